#include "recording/stack_delta.h"

#include <catch2/catch.hpp>
#include <random>

using namespace swprof;

namespace {

std::vector<uint8_t> to_vec(Bytes b) { return {b.begin(), b.end()}; }

std::vector<uint8_t> round_trip(StackDeltaCoder& enc, StackDeltaCoder& dec, uint32_t tid, uint64_t sp,
                                const std::vector<uint8_t>& stack, size_t* stored_size = nullptr) {
  auto stored = to_vec(enc.encode(tid, sp, Bytes(stack.data(), stack.size())));
  if (stored_size) *stored_size = stored.size();
  auto out = dec.decode(tid, sp, static_cast<uint32_t>(stack.size()), Bytes(stored.data(), stored.size()));
  REQUIRE(out);
  return to_vec(*out);
}

}  // namespace

TEST_CASE("stack deltas round trip as the stack pointer moves", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::mt19937 rng(42);
  const uint64_t top = 0x7ffc00010000;
  std::vector<uint8_t> memory(8192);
  for (auto& b : memory) b = static_cast<uint8_t>(rng());
  for (int i = 0; i < 200; ++i) {
    // The thread's stack: fixed top, sp wanders; a few bytes near sp change.
    uint64_t depth = 256 + (rng() % 4096);
    for (int k = 0; k < 16; ++k) memory[memory.size() - depth + (rng() % 64)] = static_cast<uint8_t>(rng());
    std::vector<uint8_t> stack(memory.end() - static_cast<long>(depth), memory.end());
    CHECK(round_trip(enc, dec, 1, top - depth, stack) == stack);
  }
}

TEST_CASE("an unchanged stack stores nothing", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::vector<uint8_t> stack(1024, 0xAB);
  size_t stored = 0;
  round_trip(enc, dec, 5, 0x1000, stack, &stored);
  CHECK(stored == 1024);
  CHECK(round_trip(enc, dec, 5, 0x1000, stack, &stored) == stack);
  CHECK(stored == 0);
}

TEST_CASE("only the changed low part of a stack is stored", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::vector<uint8_t> stack(4096, 0x11);
  round_trip(enc, dec, 1, 0x10000, stack);
  stack[10] = 0x22;
  size_t stored = 0;
  CHECK(round_trip(enc, dec, 1, 0x10000, stack, &stored) == stack);
  CHECK(stored == 11);
}

TEST_CASE("threads are coded independently and reset forgets history", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::vector<uint8_t> a(512, 1), b(256, 2);
  CHECK(round_trip(enc, dec, 1, 0x5000, a) == a);
  CHECK(round_trip(enc, dec, 2, 0x9000, b) == b);
  CHECK(round_trip(enc, dec, 1, 0x5100, std::vector<uint8_t>(a.begin() + 256, a.end())) ==
        std::vector<uint8_t>(a.begin() + 256, a.end()));
  enc.reset();
  dec.reset();
  size_t stored = 0;
  CHECK(round_trip(enc, dec, 2, 0x9000, b, &stored) == b);
  CHECK(stored == 256);
}

TEST_CASE("non-overlapping and empty stacks", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::vector<uint8_t> a(64, 3), b(64, 4), empty;
  CHECK(round_trip(enc, dec, 1, 0x1000, a) == a);
  CHECK(round_trip(enc, dec, 1, 0x9000, b) == b);
  CHECK(round_trip(enc, dec, 1, 0x9000, empty) == empty);
  CHECK(round_trip(enc, dec, 1, 0x9000, b) == b);
}

TEST_CASE("decode rejects stored bytes longer than the stack", "[stack_delta]") {
  StackDeltaCoder dec;
  std::vector<uint8_t> stored(10, 1);
  CHECK_FALSE(dec.decode(1, 0x1000, 5, Bytes(stored.data(), stored.size())).has_value());
}

TEST_CASE("stack deltas round trip whatever the overlap: below, above, inside, around, apart", "[stack_delta]") {
  // Random sp and sizes (not only a fixed top): the previous stack may
  // cover the start, the end, the middle, all or none of the new one, and
  // the stored bytes may end before, inside or after the overlap.
  StackDeltaCoder enc, dec;
  std::mt19937_64 rng(7);
  const uint64_t base = 0x7ffc00000000;
  std::vector<uint8_t> memory(16384);
  for (auto& b : memory) b = static_cast<uint8_t>(rng());
  for (int i = 0; i < 2000; ++i) {
    const uint64_t off = rng() % 12000;
    const uint64_t size = rng() % 4096;
    for (int k = 0; k < 8; ++k) memory[rng() % memory.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0)  // zeros at the high end: stored bytes end early
      std::fill(memory.begin() + static_cast<long>(off + size / 2), memory.begin() + static_cast<long>(off + size), 0);
    std::vector<uint8_t> stack(memory.begin() + static_cast<long>(off), memory.begin() + static_cast<long>(off + size));
    REQUIRE(round_trip(enc, dec, static_cast<uint32_t>(rng() % 3), base + off, stack) == stack);
  }
}
