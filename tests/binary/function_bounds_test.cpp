// The function holding an address, from each source in turn: sized symbols,
// PLT stubs, unsized symbols, discovered functions (the discovery fixture,
// tests/binary/fixtures/discovery.S, and its stripped twin; plt_names).

#include "binary/function_bounds.h"

#include <catch2/catch.hpp>

#include "binary/elf_binary.h"
#include "binary/function_starts.h"
#include "support/sym_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::string kFixture = SWPROF_DISCOVERY_FIXTURE;

std::shared_ptr<ElfBinary> open_binary(const std::string& path) {
  auto binary = ElfBinary::open(path);
  REQUIRE(binary);
  return binary;
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
