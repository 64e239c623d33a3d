// Writes the seed corpus of the go_pclntab target (fuzz/make_corpus.sh): the
// test builder's ELF images (tests/support/go_pclntab_builder.h), one per
// table layout, with and without section headers.
//   go_pclntab_seeds DIR

#include <cstdio>
#include <fstream>
#include <string>

#include "support/go_pclntab_builder.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: go_pclntab_seeds DIR\n");
    return 2;
  }
  using Layout = swprof::GoPclntab::Layout;
  for (Layout layout : {Layout::kGo116, Layout::kGo118, Layout::kGo120})
    for (bool sections : {true, false}) {
      const auto image = swprof::testing::build_go_elf(swprof::testing::sample_go_table(layout), sections);
      const std::string path = std::string(argv[1]) + "/" + swprof::go_layout_name(layout) +
                               (sections ? "_sections" : "_no_section_headers");
      std::ofstream(path, std::ios::binary)
          .write(reinterpret_cast<const char*>(image.bytes.data()), static_cast<std::streamsize>(image.bytes.size()));
    }
  return 0;
}
