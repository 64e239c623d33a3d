#pragma once
// The whole contents of a file the test wrote or reads ("" when unreadable).

#include <fstream>
#include <sstream>
#include <string>

namespace swprof::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace swprof::testing
