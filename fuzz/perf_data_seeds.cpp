// Writes the seed corpus of the perf_data target (fuzz/make_corpus.sh): the
// test builder's small perf.data images (tests/support/perf_data_image.h).
//   perf_data_seeds DIR

#include <cstdio>
#include <fstream>
#include <string>

#include "support/perf_data_image.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: perf_data_seeds DIR\n");
    return 2;
  }
  for (const auto& [name, bytes] : swprof::testing::seed_perf_data_images())
    std::ofstream(std::string(argv[1]) + "/" + name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return 0;
}
