#include "recording/stack_delta.h"

#include <catch2/catch.hpp>
#include <deque>
#include <memory>
#include <random>
#include <set>

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

TEST_CASE("a decoded stack whose buffer is held keeps its bytes through later decodes", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::vector<std::vector<uint8_t>> stacks;
  for (int i = 0; i < 6; ++i) stacks.push_back(std::vector<uint8_t>(512, static_cast<uint8_t>(i + 1)));
  auto stored0 = to_vec(enc.encode(3, 0x1000, Bytes(stacks[0].data(), stacks[0].size())));
  auto first = dec.decode(3, 0x1000, 512, Bytes(stored0.data(), stored0.size()));
  REQUIRE(first);
  std::shared_ptr<const void> held = dec.last_buffer();
  REQUIRE(held);
  for (int i = 1; i < 6; ++i) {  // the same thread, then another: neither may write over the held bytes
    CHECK(round_trip(enc, dec, 3, 0x1000, stacks[static_cast<size_t>(i)]) == stacks[static_cast<size_t>(i)]);
    CHECK(round_trip(enc, dec, 4, 0x1000, stacks[static_cast<size_t>(i)]) == stacks[static_cast<size_t>(i)]);
  }
  CHECK(to_vec(*first) == stacks[0]);
}

TEST_CASE("buffers let go of are reused: a steady stream of samples allocates none", "[stack_delta]") {
  StackDeltaCoder enc, dec;
  std::vector<uint8_t> stack(2048);
  std::deque<std::shared_ptr<const void>> held;  // a consumer keeping the last 8 stacks, as a window does
  std::set<const void*> buffers;
  for (int i = 0; i < 2000; ++i) {
    stack[static_cast<size_t>(i) % stack.size()] = static_cast<uint8_t>(i);
    const uint32_t tid = 1 + static_cast<uint32_t>(i % 3);
    CHECK(round_trip(enc, dec, tid, 0x7000, stack) == stack);
    held.push_back(dec.last_buffer());
    buffers.insert(held.back().get());
    if (held.size() > 8) held.pop_front();
    if (i % 500 == 499) {  // a new chunk
      enc.reset();
      dec.reset();
    }
  }
  CHECK(buffers.size() <= 16);  // 8 held, one per thread, one being written, and slack; never one per sample
}
