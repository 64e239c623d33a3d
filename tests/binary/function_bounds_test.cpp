// The function holding an address, from each source in turn: sized symbols,
// PLT stubs, unsized symbols, .init/.fini, discovered functions (the discovery fixture,
// tests/binary/fixtures/discovery.S, and its stripped twin; plt_names).

#include "binary/function_bounds.h"

#include <catch2/catch.hpp>

#include "binary/cfi_table.h"
#include "binary/elf_binary.h"
#include "binary/function_starts.h"
#include "binary/lazy_cfi_table.h"
#include "binary/x86_decoder.h"
#include "support/elf_files.h"
#include "support/sym_fixtures.h"
#include "support/test_scale.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::string kFixture = SWPROF_DISCOVERY_FIXTURE;

// pcs inside FDEs: the start, middle and last byte of each CFI row; those
// of FDEs that begin at a function's entry (cfa=rsp+8) first, the others
// (.cold parts) after them.
std::vector<uint64_t> pcs_in_fdes(const ElfBinary& binary, size_t& at_entry) {
  std::vector<uint64_t> entry, inside;
  const LazyCfiTable& lazy = binary.cfi_table();
  const auto rows = CfiTable::compile(binary)->rows();
  for (size_t i = 0; i < rows.size(); i += exhaustive_step()) {
    const auto& row = rows[i];
    for (uint64_t pc : {row.start, row.start + (row.end - row.start) / 2, row.end - 1}) {
      const CfiRule* first = lazy.lookup(lazy.fde_start(pc).value());
      const bool is_entry = first && describe(*first).rfind("cfa=rsp+8 ra=[cfa-8]", 0) == 0;
      (is_entry ? entry : inside).push_back(pc);
    }
  }
  at_entry = entry.size();
  entry.insert(entry.end(), inside.begin(), inside.end());
  return entry;
}

// Stripped binaries with CFI: static libc code in a test program, gcc's cc1.
std::vector<std::string> stripped_with_cfi() {
  std::vector<std::string> out{program_file("known_static.stripped"), program_file("plt_static.stripped"),
                               program_file("sym_target.stripped")};
  for (const std::string& cc1 : cc1_paths()) out.push_back(cc1);
  return out;
}

}  // namespace

TEST_CASE("binary: function bounds from a sized symbol", "[binary]") {
  auto named = open_binary(kFixture);
  const FunctionSymbol* work = named->function_named("work");
  REQUIRE(work);
  const auto b = function_bounds(*named, work->start + 3);
  REQUIRE(b);
  CHECK(b->name == "work");
  CHECK(b->start == work->start);
  CHECK(b->end == work->start + work->size);
  CHECK(b->sources == 0);
}

TEST_CASE("binary: function bounds from a symbol without a size run to the segment's end", "[binary]") {
  auto named = open_binary(kFixture);
  const FunctionSymbol* cb = named->function_named("callback_only");
  REQUIRE(cb);
  REQUIRE(cb->size == 0);
  const auto b = function_bounds(*named, cb->start + 2);
  REQUIRE(b);
  CHECK(b->name == "callback_only");
  CHECK(b->start == cb->start);
  CHECK(b->end == named->executable_ranges().at(0).second);
}

TEST_CASE("binary: function bounds of stripped code are the discovered function, unnamed", "[binary]") {
  auto named = open_binary(kFixture);
  auto stripped = open_binary(kFixture + ".stripped");
  const FunctionSymbol* work = named->function_named("work");
  const FunctionSymbol* next = named->function_named("tail_after_add");
  REQUIRE(work);
  REQUIRE(next);
  const auto b = function_bounds(*stripped, work->start + 3);
  REQUIRE(b);
  CHECK(b->name.empty());
  CHECK(b->start == work->start);
  CHECK(b->end == next->start);
  CHECK((b->sources & kFromCall) != 0);
  CHECK_FALSE(function_bounds(*stripped, 0x10));  // the ELF header: no code
}

TEST_CASE("binary: function bounds of a PLT stub in a stripped binary", "[binary]") {
  auto binary = open_binary(program_file("plt_names.stripped"));
  const PltEntry* write = nullptr;
  for (const PltEntry& e : binary->plt_entries().entries())
    if (e.name == "write@plt") write = &e;
  REQUIRE(write);
  const auto b = function_bounds(*binary, write->start + 2);
  REQUIRE(b);
  CHECK(b->name == "write@plt");
  CHECK(b->start == write->start);
  CHECK(b->end == write->start + write->size);
}

TEST_CASE("binary: the start of a function inside an FDE needs no discovery, and at an entry FDE is discovery's",
          "[binary]") {
  for (const std::string& path : stripped_with_cfi()) {
    INFO(path);
    auto binary = open_binary(path);
    size_t at_entry = 0;
    const std::vector<uint64_t> pcs = pcs_in_fdes(*binary, at_entry);
    REQUIRE(at_entry > 0);
    std::vector<std::optional<uint64_t>> starts;
    for (uint64_t pc : pcs) starts.push_back(function_start(*binary, pc));
    CHECK_FALSE(binary->function_starts_discovered());
    // (.cold parts: the next test.)
    // At an entry FDE, the same binary asked through discovery.
    size_t differ = 0;
    std::string first;
    for (size_t i = 0; i < at_entry; ++i) {
      const auto b = function_bounds(*binary, pcs[i]);
      if (b.has_value() != starts[i].has_value() || (b && b->start != *starts[i])) {
        if (differ++ == 0)
          first = std::to_string(pcs[i]) + ": " + (b ? std::to_string(b->start) : "none") + " against " +
                  (starts[i] ? std::to_string(*starts[i]) : "none");
      }
    }
    CHECK(binary->function_starts_discovered());
    INFO("first difference at " << first);
    CHECK(differ == 0);
  }
}

TEST_CASE("binary: the start of a function outside every FDE and symbol runs discovery", "[binary]") {
  // known_static's own code has no CFI: its functions are found by discovery.
  const std::string path = program_file("known_static.stripped");
  auto reference = open_binary(path);
  auto cfi = CfiTable::compile(*reference);
  std::optional<DiscoveredFunction> outside;
  for (uint64_t start : reference->function_starts().starts())
    if (auto f = reference->function_starts().at(start); f && (f->sources & kFromCall) && !cfi->lookup(start) &&
                                                         !reference->cfi_table().fde_start(start) &&
                                                         !reference->plt_entries().at(start)) {
      outside = f;
      break;
    }
  REQUIRE(outside);
  auto binary = open_binary(path);
  CHECK_FALSE(binary->function_starts_discovered());
  CHECK(function_start(*binary, outside->start + (outside->end - outside->start) / 2) == outside->start);
  CHECK(binary->function_starts_discovered());
}

TEST_CASE("binary: the function of .init or .fini is the section, found without discovery at discovery's start", "[binary]") {
  for (const std::string& path : stripped_with_cfi()) {
    INFO(path);
    auto binary = open_binary(path);
    std::vector<std::pair<uint64_t, uint64_t>> pcs;  // (pc, its section's start)
    for (const char* name : {".init", ".fini"}) {
      const std::optional<ElfSection> s = binary->section(name);
      if (!s || s->data.empty()) continue;
      for (uint64_t pc : {s->addr, s->addr + s->data.size() / 2, s->addr + s->data.size() - 1}) {
        INFO(name << " at " << pc);
        const auto b = function_bounds(*binary, pc);
        REQUIRE(b);
        CHECK(b->start == s->addr);
        CHECK(b->end == s->addr + s->data.size());
        CHECK(b->name.empty());
        CHECK(function_start(*binary, pc) == s->addr);
        pcs.emplace_back(pc, s->addr);
      }
    }
    REQUIRE(pcs.size() == 6);
    CHECK_FALSE(binary->function_starts_discovered());
    for (const auto& [pc, start] : pcs) {
      const std::optional<DiscoveredFunction> d = binary->function_starts().at(pc);
      REQUIRE(d);
      CHECK(d->start == start);
    }
  }
}

TEST_CASE("binary: the start of a function in the entry code is the entry point, found without discovery",
          "[binary]") {
  // ld.so's _start and _dl_start_user have no FDE; every program's first
  // samples land there.
  auto binary = open_binary("/lib64/ld-linux-x86-64.so.2");
  REQUIRE(binary->entry() != 0);
  REQUIRE_FALSE(binary->cfi_table().fde_start(binary->entry()));
  X86Decoder decoder;
  const auto code = entry_code(*binary, decoder);
  REQUIRE(code);
  CHECK(code->first == binary->entry());
  CHECK(code->second - code->first > 8);
  std::vector<std::optional<uint64_t>> starts;
  for (uint64_t pc = code->first; pc < code->second; ++pc) starts.push_back(function_start(*binary, pc));
  CHECK_FALSE(binary->function_starts_discovered());
  for (size_t i = 0; i < starts.size(); ++i) {
    INFO("pc " << std::hex << code->first + i);
    CHECK(starts[i] == binary->entry());
    const auto b = function_bounds(*binary, code->first + i);  // discovery's answer
    REQUIRE(b);
    CHECK(b->start == binary->entry());
  }
}

TEST_CASE("binary: the start of code in a .cold part is the part's own, as the unstripped twin names it", "[binary]") {
  auto named = open_binary(program_file("known_static"));
  auto stripped = open_binary(program_file("known_static.stripped"));
  size_t parts = 0;
  for (const FunctionSymbol& f : named->functions()) {
    if (f.name.find(".cold") == std::string::npos || f.size < 2) continue;
    ++parts;
    INFO(f.name);
    CHECK(function_start(*stripped, f.start + f.size / 2) == f.start);
  }
  CHECK(parts > 10);
  CHECK_FALSE(stripped->function_starts_discovered());
}
