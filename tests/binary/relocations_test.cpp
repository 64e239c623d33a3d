// The dynamic relocations of the plt_names test programs (tests/programs/
// plt_names.c), checked entry by entry against what `readelf -rW` lists.

#include "binary/relocations.h"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <sstream>

#include "binary/elf_binary.h"
#include "support/sym_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

struct Listed {
  uint64_t offset;
  std::string type;
  std::string symbol;  // without its version
  uint64_t addend;
};

// readelf's lines "OFFSET INFO TYPE [VALUE NAME[@VERSION] + ADDEND | ADDEND]".
std::vector<Listed> readelf_relocations(const std::string& path) {
  static const std::regex line_re(
      R"(^([0-9a-f]{16}) +[0-9a-f]{16} (R_X86_64_\w+) +(?:[0-9a-f]{16} ([^@ ]+)(?:@\S+)? \+ ([0-9a-f]+)|([0-9a-f]+))$)");
  std::istringstream in(command_output("readelf -rW '" + path + "'"));
  std::vector<Listed> out;
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_match(line, m, line_re)) continue;
    const std::string addend = m[4].matched ? m[4].str() : m[5].str();
    out.push_back({std::stoull(m[1], nullptr, 16), m[2], m[3], std::stoull(addend, nullptr, 16)});
  }
  return out;
}

void check_against_readelf(const std::string& program) {
  auto binary = ElfBinary::open(program_file(program));
  REQUIRE(binary);
  const Relocations relocations = Relocations::read(*binary);
  const auto listed = readelf_relocations(program_file(program));
  REQUIRE(listed.size() >= 3);
  CHECK(relocations.plt().size() + relocations.dyn().size() == listed.size());
  const std::map<std::string, uint32_t> types = {{"R_X86_64_64", 1},
                                                 {"R_X86_64_GLOB_DAT", kRelocX86_64GlobDat},
                                                 {"R_X86_64_JUMP_SLOT", kRelocX86_64JumpSlot},
                                                 {"R_X86_64_RELATIVE", 8},
                                                 {"R_X86_64_IRELATIVE", kRelocX86_64IRelative}};
  for (const Listed& l : listed) {
    const Relocation* r = relocations.at(l.offset);
    REQUIRE(r);
    CHECK(r->symbol_name == l.symbol);
    CHECK(static_cast<uint64_t>(r->addend) == l.addend);
    if (types.count(l.type)) CHECK(r->type == types.at(l.type));
  }
  for (const auto* list : {&relocations.plt(), &relocations.dyn()})
    CHECK(std::is_sorted(list->begin(), list->end(),
                         [](const Relocation& a, const Relocation& b) { return a.offset < b.offset; }));
}

}  // namespace

TEST_CASE("binary: relocations of a PIE with their symbols, as readelf lists them", "[binary]") {
  check_against_readelf("plt_names.stripped");
  auto binary = ElfBinary::open(program_file("plt_names.stripped"));
  REQUIRE(binary);
  const Relocations relocations = Relocations::read(*binary);
  CHECK(relocations.plt_has_symbol_table());
  REQUIRE(relocations.plt().size() == 3);
  for (const Relocation& r : relocations.plt()) CHECK(r.type == kRelocX86_64JumpSlot);
  CHECK(relocations.at(0) == nullptr);
}

TEST_CASE("binary: a static binary's IRELATIVE relocations, sorted by slot", "[binary]") {
  check_against_readelf("plt_static.stripped");
}
