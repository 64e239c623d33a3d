// Function discovery on stripped code: the assembler fixture
// (tests/binary/fixtures/discovery.S, each function reachable in one known
// way) and the static C program known_static (tests/programs/known_static.c),
// each stripped; the expected starts are the unstripped twin's STT_FUNC
// symbols.

#include "binary/function_starts.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "binary/elf_binary.h"
#include "support/elf_files.h"
#include "support/sym_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::string kFixture = SWPROF_DISCOVERY_FIXTURE;

std::set<uint64_t> starts_of(const FunctionStarts& starts) {
  return std::set<uint64_t>(starts.starts().begin(), starts.starts().end());
}

uint64_t symbol(const ElfBinary& binary, const std::string& name) {
  const FunctionSymbol* f = binary.function_named(name);
  REQUIRE(f);
  return f->start;
}

// Every symbol's start (the fixture also has local labels; only functions count).
std::set<uint64_t> symbol_starts(const ElfBinary& binary) {
  std::set<uint64_t> out;
  for (const FunctionSymbol& f : binary.functions()) out.insert(f.start);
  return out;
}

bool has_source(const FunctionStarts& starts, uint64_t start, StartSource source) {
  const auto f = starts.at(start);
  return f && f->start == start && (f->sources & source) != 0;
}

}  // namespace

TEST_CASE("binary: function starts of the stripped fixture are exactly its function symbols", "[binary]") {
  auto named = open_binary(kFixture);
  auto stripped = open_binary(kFixture + ".stripped");
  REQUIRE(stripped->functions().empty());
  const std::set<uint64_t> expected = symbol_starts(*named);
  REQUIRE(expected.size() == 13);

  const auto starts = FunctionStarts::discover(*stripped);
  CHECK(starts_of(*starts) == expected);
  // The pointer-only function, by its pointer in .data.
  CHECK(has_source(*starts, symbol(*named, "callback_only"), kFromPointer));
  CHECK_FALSE(starts->stats().budget_hit);
  CHECK(starts->stats().instructions > 0);
}

TEST_CASE("binary: each fixture function is found the way it is reachable", "[binary]") {
  auto named = open_binary(kFixture);
  const auto starts = FunctionStarts::discover(*open_binary(kFixture + ".stripped"));
  CHECK(has_source(*starts, symbol(*named, "_start"), kFromEntry));
  CHECK(has_source(*starts, symbol(*named, "main"), kFromEntryArg));
  CHECK(has_source(*starts, symbol(*named, "start_main"), kFromCall));
  CHECK(has_source(*starts, symbol(*named, "work"), kFromCall));
  CHECK(has_source(*starts, symbol(*named, "tail_after_add"), kFromTailJump));
  CHECK(has_source(*starts, symbol(*named, "tail_after_pop"), kFromTailJump));
  CHECK(has_source(*starts, symbol(*named, "leaf2"), kFromTailJump));
  CHECK(has_source(*starts, symbol(*named, "init_fn"), kFromInitArray));
  CHECK(starts->stats().by_source[4] == 1);  // one entry argument
}

TEST_CASE("binary: a no-return callee ends its caller's block, bytes after it are not followed", "[binary]") {
  auto named = open_binary(kFixture);
  const auto starts = FunctionStarts::discover(*open_binary(kFixture + ".stripped"));
  const auto die = starts->at(symbol(*named, "die"));
  REQUIRE(die);
  CHECK(die->no_return);
  const auto main = starts->at(symbol(*named, "main"));
  REQUIRE(main);
  CHECK_FALSE(main->no_return);
  // start_main ends `call die; e8 00 00 00 00; ud2`: the `e8` would call
  // the ud2 if the fall-through after die were followed.
  const FunctionSymbol* start_main = named->function_named("start_main");
  REQUIRE(start_main);
  const uint64_t fake_target = start_main->start + start_main->size - 2;
  CHECK(starts->at(fake_target)->start == start_main->start);
}

TEST_CASE("binary: a discovered function ends at the next start, the last at its segment's end", "[binary]") {
  auto named = open_binary(kFixture);
  const auto starts = FunctionStarts::discover(*open_binary(kFixture + ".stripped"));
  const uint64_t leaf2 = symbol(*named, "leaf2");
  const auto f = starts->at(leaf2 + 1);
  REQUIRE(f);
  CHECK(f->start == leaf2);
  CHECK(f->end == symbol(*named, "leaf1"));
  // Cases of the jump table stay inside switchy.
  const FunctionSymbol* sw = named->function_named("switchy");
  REQUIRE(sw);
  for (uint64_t a = sw->start; a < sw->start + sw->size; ++a) CHECK(starts->at(a)->start == sw->start);
  const auto ranges = named->executable_ranges();
  REQUIRE(ranges.size() == 1);
  CHECK(starts->at(ranges[0].second - 1)->end == ranges[0].second);
  CHECK_FALSE(starts->at(ranges[0].second));
  CHECK_FALSE(starts->at(0));
}

TEST_CASE("binary: gap parsing finds a function only a pointer names", "[binary]") {
  auto named = open_binary(kFixture);
  DiscoveryLimits limits;
  limits.parse_gaps = true;
  limits.data_pointers = false;  // else its pointer finds it first
  const auto starts = FunctionStarts::discover(*open_binary(kFixture + ".stripped"), limits);
  CHECK(has_source(*starts, symbol(*named, "callback_only"), kFromGap));
  for (uint64_t expected : symbol_starts(*named)) CHECK(starts->at(expected)->start == expected);
}

TEST_CASE("binary: an instruction budget stops discovery and says so", "[binary]") {
  DiscoveryLimits limits;
  limits.max_instructions = 5;
  const auto starts = FunctionStarts::discover(*open_binary(kFixture + ".stripped"), limits);
  CHECK(starts->stats().budget_hit);
  CHECK(starts->stats().instructions <= 6);
}

TEST_CASE("binary: a symbol table's functions are starts as they are", "[binary]") {
  auto named = open_binary(kFixture);
  const auto starts = FunctionStarts::discover(*named);
  CHECK(starts_of(*starts) == symbol_starts(*named));
  CHECK(has_source(*starts, symbol(*named, "callback_only"), kFromSymbol));
}

TEST_CASE("binary: the stripped static C program: every function of the known chain, few false starts", "[binary]") {
  auto named = open_binary(program_file("known_static"));
  auto stripped = open_binary(program_file("known_static.stripped"));
  const auto found = FunctionStarts::discover(*stripped);
  const std::set<uint64_t> starts = starts_of(*found);
  // PLT stubs are functions too (its IRELATIVE stubs have no symbol).
  std::set<uint64_t> expected = symbol_starts(*named);
  const size_t symbols = expected.size();
  for (const PltEntry& e : named->plt_entries().entries()) expected.insert(e.start);
  for (const char* name : {"main", "a", "b", "c", "leaf", "recurse", "_start", "__libc_start_main",
                           "__libc_start_call_main"})
    CHECK(starts.count(symbol(*named, name)) == 1);
  size_t hits = 0;
  for (uint64_t s : expected) hits += starts.count(s);
  const size_t false_starts = starts.size() - hits;
  INFO("symbols " << expected.size() << ", found " << starts.size() << ", true " << hits);
  // Recall: only address-taken-only code is missed (__restore_rt, _dl_tlsdesc_undefweak).
  CHECK(hits + 2 >= expected.size());
  REQUIRE(symbols > 1000);
  // Precision >= 99 %: FDEs that start a byte early, jumps into .cold parts.
  CHECK(false_starts * 100 <= starts.size());
}

TEST_CASE("binary: the stripped multi-call program: applets named only by pointers in data, none split by its jump table",
          "[binary]") {
  auto named = open_binary(program_file("known_applets"));
  auto stripped = open_binary(program_file("known_applets.stripped"));
  const auto found = FunctionStarts::discover(*stripped);
  const std::set<uint64_t> starts = starts_of(*found);
  for (const char* name : {"applet_spin", "applet_count", "applet_sum", "applet_echo"}) {
    INFO(name);
    const FunctionSymbol* f = named->function_named(name);
    REQUIRE(f);
    CHECK(has_source(*found, f->start, kFromPointer));
    // Its switch's case blocks (jump-table targets in .rodata) stay inside it.
    size_t split = 0;
    for (uint64_t a = f->start; a < f->start + f->size; ++a) split += found->at(a)->start != f->start;
    CHECK(split == 0);
  }
  for (const char* name : {"main", "find_applet", "a", "b", "c", "leaf", "_start", "__libc_start_main",
                           "__libc_start_call_main"})
    CHECK(starts.count(symbol(*named, name)) == 1);
  std::set<uint64_t> expected = symbol_starts(*named);
  for (const PltEntry& e : named->plt_entries().entries()) expected.insert(e.start);
  size_t hits = 0;
  for (uint64_t s : expected) hits += starts.count(s);
  const size_t false_starts = starts.size() - hits;
  INFO("symbols " << expected.size() << ", found " << starts.size() << ", true " << hits);
  REQUIRE(expected.size() > 1000);
  CHECK(hits + 2 >= expected.size());
  // Precision measured 99.7 % (3 false starts in 1108: an FDE a byte early twice, a jump into a .cold part).
  CHECK(false_starts * 200 <= starts.size());
}

TEST_CASE("binary: hand-written asm without symbols or FDEs, reached only from code with CFI, is found", "[binary]") {
  // known_asm: C with CFI calls the asm directly and stores its addresses
  // with lea; the asm calls and tail-jumps to its helpers.
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_asm";
  if (!std::filesystem::exists(program)) {
    WARN("known_asm was not built (nasm is not installed); skipped");
    return;
  }
  auto named = open_binary(program);
  auto stripped = open_binary(program + ".stripped");
  const std::set<uint64_t> starts = starts_of(*FunctionStarts::discover(*stripped));
  DiscoveryLimits without;
  without.fde_exits = false;
  const std::set<uint64_t> before = starts_of(*FunctionStarts::discover(*stripped, without));
  for (const char* name : {"asm_leaf", "asm_helper", "asm_push_sub", "asm_align_reg", "asm_deep_helper", "asm_align_stack",
                           "asm_tail", "asm_tail_target"}) {
    INFO(name);
    CHECK(starts.count(symbol(*named, name)) == 1);
  }
  // Without the pass, nothing leads discovery there.
  for (const char* name : {"asm_leaf", "asm_push_sub", "asm_align_reg", "asm_align_stack", "asm_tail"}) {
    INFO(name);
    CHECK(before.count(symbol(*named, name)) == 0);
  }
}
