#pragma once
// The whole contents of a file the test wrote or reads ("" when unreadable),
// as text or as bytes to change and write back, whole or cut short.

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace swprof::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Writes the first `n` of `bytes` to `path`, replacing what it held.
inline void write_prefix(const std::string& path, const std::vector<char>& bytes, size_t n) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(n));
}

}  // namespace swprof::testing
