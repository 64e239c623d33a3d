// PLT stubs named as perf names them, on the plt_names test programs
// (tests/programs/plt_names.c) built stripped: the expectations are objdump's
// labels of their PLT sections (NAME.plt.expected, written at build time).
// plt_static: a static binary whose .plt holds IRELATIVE stubs.

#include "binary/plt_entries.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "binary/elf_binary.h"
#include "binary/relocations.h"
#include "support/sym_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::shared_ptr<ElfBinary> open_program(const std::string& name) {
  auto binary = ElfBinary::open(program_file(name));
  REQUIRE(binary);
  return binary;
}

std::set<std::string> names_of(const PltEntries& plt) {
  std::set<std::string> out;
  for (const PltEntry& e : plt.entries()) out.insert(e.name);
  return out;
}

// Every stub objdump labels has our entry at its address with its name; we
// have no entry objdump does not label, except (`unlabelled_header`) the lazy
// header objdump calls "puts@plt-0x10".
void check_against_objdump(const std::string& program, bool unlabelled_header) {
  auto binary = open_program(program + ".stripped");
  const auto labels = objdump_stub_labels(program_file(program + ".plt.expected"));
  const PltEntries& plt = binary->plt_entries();
  REQUIRE(labels.size() >= 4);
  for (const auto& [address, name] : labels) {
    const PltEntry* entry = plt.at(address);
    REQUIRE(entry);
    CHECK(entry->start == address);
    CHECK(entry->name == name);
  }
  CHECK(plt.entries().size() == labels.size() + (unlabelled_header ? 1 : 0));
  const std::set<std::string> names = names_of(plt);
  for (const char* expected : {".plt", "write@plt", "puts@plt", "getpid@plt", "__cxa_finalize@plt"})
    CHECK(names.count(expected) == 1);
}

}  // namespace

TEST_CASE("binary: PLT stubs of lazy .plt and .plt.got are named as objdump labels them", "[binary]") {
  check_against_objdump("plt_names", true);
  auto binary = open_program("plt_names.stripped");
  const PltEntry& header = binary->plt_entries().entries().front();
  CHECK(header.name == ".plt");
  CHECK(header.start == binary->section(".plt")->addr);
  CHECK(header.size == 16);
}

TEST_CASE("binary: IBT stubs in .plt.sec are named and .plt spans its whole section", "[binary]") {
  auto binary = open_program("plt_names_ibt.stripped");
  REQUIRE(binary->section(".plt.sec"));
  check_against_objdump("plt_names_ibt", false);
  const PltEntry& header = binary->plt_entries().entries().front();
  CHECK(header.name == ".plt");
  CHECK(header.size == binary->section(".plt")->data.size());
  for (const auto& [address, name] : objdump_stub_labels(program_file("plt_names_ibt.plt.expected"))) {
    if (name != "write@plt") continue;
    const PltEntry* inside = binary->plt_entries().at(address + 4);  // after endbr64
    REQUIRE(inside);
    CHECK(inside->name == "write@plt");
    CHECK(inside->size == 16);
  }
}

TEST_CASE("binary: a static binary's IRELATIVE stubs are named by file offset when stripped", "[binary]") {
  auto binary = open_program("plt_static.stripped");
  const Relocations relocations = Relocations::read(*binary);
  const PltEntries& plt = binary->plt_entries();
  REQUIRE(relocations.plt().size() > 0);
  CHECK_FALSE(relocations.plt_has_symbol_table());
  REQUIRE(plt.entries().size() == relocations.plt().size());  // no header: the stubs fill .plt
  const ElfSection section = *binary->section(".plt");
  for (const PltEntry& e : plt.entries()) {
    char expected[40];
    std::snprintf(expected, sizeof expected, "offset_%#llx@plt",
                  static_cast<unsigned long long>(section.offset + (e.start - section.addr)));
    CHECK(e.name == expected);
    CHECK(e.size == 8);
    CHECK(e.symbol.empty());
  }
  CHECK(plt.entries().front().start == section.addr);
}

TEST_CASE("binary: a static binary's IRELATIVE stubs take the IFUNC symbol at the addend", "[binary]") {
  auto binary = open_program("plt_static");
  const Relocations relocations = Relocations::read(*binary);
  std::set<uint64_t> addends;
  for (const Relocation& r : relocations.plt()) {
    CHECK(r.type == kRelocX86_64IRelative);
    addends.insert(static_cast<uint64_t>(r.addend));
  }
  const auto symbols = nm_symbols(program_file("plt_static"), false);
  const PltEntries& plt = binary->plt_entries();
  REQUIRE(plt.entries().size() == relocations.plt().size());
  for (const PltEntry& e : plt.entries()) {
    REQUIRE(e.name == e.symbol + "@plt");
    bool at_an_addend = false;
    auto [first, last] = symbols.equal_range(e.symbol);
    for (auto it = first; it != last; ++it) at_an_addend |= addends.count(it->second) == 1;
    CHECK(at_an_addend);
  }
}

TEST_CASE("binary: PltEntries::at finds the stub holding an address", "[binary]") {
  const PltEntries plt({{0x1030, 16, "b@plt", "b"}, {0x1020, 16, "a@plt", "a"}});
  CHECK(plt.at(0x101f) == nullptr);
  CHECK(plt.at(0x1020)->name == "a@plt");
  CHECK(plt.at(0x102f)->name == "a@plt");
  CHECK(plt.at(0x1030)->name == "b@plt");
  CHECK(plt.at(0x103f)->name == "b@plt");
  CHECK(plt.at(0x1040) == nullptr);
  CHECK(PltEntries().at(0x1020) == nullptr);
}
