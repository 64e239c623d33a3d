#include "support/elf_files.h"

#include <libelf.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace swprof::testing {

std::shared_ptr<ElfBinary> open_binary(const std::string& path) {
  auto binary = ElfBinary::open(path);
  REQUIRE(binary);
  return binary;
}

uint64_t function_start(const ElfBinary& binary, const char* name) {
  const FunctionSymbol* f = binary.function_named(name);
  REQUIRE(f);
  return f->start;
}

uint8_t code_byte(const ElfBinary& binary, uint64_t vaddr) {
  uint8_t b = 0;
  REQUIRE(binary.read_code(vaddr, &b, 1));
  return b;
}

ElfPtr elf_of(const ElfBinary& binary) {
  const Bytes file = binary.file_bytes();
  ElfPtr elf(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(file.data())), file.size()));
  REQUIRE(elf);
  return elf;
}

std::vector<std::string> mapped_libraries(const std::string& part) {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> out;
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash != std::string::npos && line.find(part, slash) != std::string::npos) out.insert(line.substr(slash));
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ':');) out.push_back(item);
  return out;
}

std::vector<std::string> cc1_paths() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator("/usr/lib/gcc/x86_64-linux-gnu", ec)) {
    const auto cc1 = dir.path() / "cc1";
    if (std::filesystem::is_regular_file(cc1, ec)) out.push_back(cc1.string());
  }
  return out;
}

CfiSections cfi_sections(const std::string& path) {
  CfiSections out{open_binary(path), {}, {}};
  auto eh_frame = out.binary->section(".eh_frame");
  auto hdr = out.binary->section(".eh_frame_hdr");
  REQUIRE(eh_frame);
  REQUIRE(hdr);
  out.eh_frame = *eh_frame;
  out.eh_frame_hdr = *hdr;
  return out;
}

void damage_section(std::vector<uint8_t>& image, const ElfSection& section, std::mt19937& rng, int max_changes,
                    size_t skip) {
  for (int i = 0, n = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_changes)); i < n; ++i) {
    const auto value = static_cast<uint8_t>(rng());
    image[section.offset + skip + rng() % (section.data.size() - skip)] = value;
  }
}

}  // namespace swprof::testing
