#include "common/flat_index.h"

#include <catch2/catch.hpp>

using namespace swprof;

namespace {

// Every key in one slot: each lookup walks the probe sequence.
struct SameSlot {
  uint64_t operator()(uint64_t) const { return 7; }
};

}  // namespace

TEST_CASE("flat index: a key's first value stays, absent keys are kAbsent", "[flat_index]") {
  FlatIndex<uint64_t> index;
  CHECK(index.find(5) == FlatIndex<uint64_t>::kAbsent);
  CHECK(index.try_emplace(5, 0) == std::pair<uint32_t, bool>{0, true});
  CHECK(index.try_emplace(5, 9) == std::pair<uint32_t, bool>{0, false});
  CHECK(index.find(5) == 0);
  CHECK(index.find(6) == FlatIndex<uint64_t>::kAbsent);
  index.assign(5, 3);
  CHECK(index.find(5) == 3);
  CHECK(index.size() == 1);
  index.clear();
  CHECK(index.find(5) == FlatIndex<uint64_t>::kAbsent);
  CHECK(index.size() == 0);
}

TEST_CASE("flat index: every key kept through growth, also when all keys share a slot", "[flat_index]") {
  FlatIndex<uint64_t> spread;
  FlatIndex<uint64_t, SameSlot> colliding;
  for (uint32_t i = 0; i < 1000; ++i) {
    spread.try_emplace(uint64_t{i} << 32, i);
    colliding.try_emplace(i * 3, i);
  }
  CHECK(spread.size() == 1000);
  CHECK(colliding.size() == 1000);
  for (uint32_t i = 0; i < 1000; ++i) {
    CHECK(spread.find(uint64_t{i} << 32) == i);
    CHECK(colliding.find(i * 3) == i);
    CHECK(colliding.find(i * 3 + 1) == FlatIndex<uint64_t, SameSlot>::kAbsent);
  }
}
