// Runs a fuzz target once on every file of the folders (or files) given on
// the command line: the seed corpus and the crash regressions. Used by the
// test suite in builds without libFuzzer (GCC, and the GCC sanitizer build).
//
//   <target>_replay fuzz/corpus/<target> fuzz/regressions/<target>
//
// Exit status: 0 when every input ran, 2 when a folder is missing or no input
// was found at all; a crash or a sanitizer report ends the process earlier.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_in(const fs::path& where) {
  std::vector<fs::path> files;
  if (fs::is_regular_file(where)) return {where};
  for (const auto& entry : fs::directory_iterator(where))
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path where = argv[i];
    if (!fs::exists(where)) {
      std::cerr << "replay: '" << where.string() << "' does not exist\n";
      return 2;
    }
    for (const fs::path& file : inputs_in(where)) {
      const std::vector<uint8_t> bytes = read_all(file);
      std::cerr << "replay: " << file.string() << " (" << bytes.size() << " bytes)\n";
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::cerr << "replay: no input found in the folders given\n";
    return 2;
  }
  std::cerr << "replay: " << replayed << " inputs ran\n";
  return 0;
}
