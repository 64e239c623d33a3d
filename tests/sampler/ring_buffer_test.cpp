#include "sampler/ring_buffer.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace swprof;

namespace {

// A ring buffer in ordinary memory, filled the way the kernel fills one.
struct FakeRing {
  perf_event_mmap_page meta{};
  std::vector<uint8_t> data;
  explicit FakeRing(size_t size) : data(size, 0xEE) {}

  RingView view() { return RingView{&meta, data.data(), data.size()}; }

  // Appends a record of `size` bytes (header included) whose body bytes are `fill`.
  void produce(uint16_t size, uint8_t fill) {
    std::vector<uint8_t> rec(size, fill);
    perf_event_header h{PERF_RECORD_SAMPLE, 0, size};
    std::memcpy(rec.data(), &h, sizeof h);
    for (size_t i = 0; i < rec.size(); ++i) data[(meta.data_head + i) % data.size()] = rec[i];
    meta.data_head += size;
  }
};

struct Seen {
  uint16_t size;
  uint8_t fill;
  bool contiguous_and_right;
};

std::vector<Seen> drain_all(RingBufferReader& reader, FakeRing& ring, DrainStats* stats = nullptr) {
  std::vector<Seen> seen;
  DrainStats s = reader.drain(ring.view(), [&](Bytes rec) {
    perf_event_header h;
    std::memcpy(&h, rec.data(), sizeof h);
    bool ok = rec.size() == h.size;
    for (size_t i = sizeof h; i < rec.size(); ++i) ok = ok && rec[i] == rec[sizeof h];
    seen.push_back({h.size, rec.size() > sizeof h ? rec[sizeof h] : uint8_t{0}, ok});
  });
  if (stats) *stats = s;
  return seen;
}

}  // namespace

TEST_CASE("drains records and releases the space", "[ring_buffer]") {
  FakeRing ring(256);
  RingBufferReader reader;
  ring.produce(40, 1);
  ring.produce(16, 2);
  auto seen = drain_all(reader, ring);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].size == 40);
  CHECK(seen[0].fill == 1);
  CHECK(seen[1].fill == 2);
  CHECK(seen[0].contiguous_and_right);
  CHECK(ring.meta.data_tail == 56);
  CHECK(drain_all(reader, ring).empty());  // nothing new
}

TEST_CASE("a record that wraps around the end comes out whole", "[ring_buffer]") {
  FakeRing ring(256);
  RingBufferReader reader;
  ring.produce(200, 7);
  drain_all(reader, ring);
  // Tail is at 200: the next 100-byte record runs 200..255 and 0..43.
  ring.produce(100, 9);
  ring.produce(24, 3);
  auto seen = drain_all(reader, ring);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].size == 100);
  CHECK(seen[0].fill == 9);
  CHECK(seen[0].contiguous_and_right);
  CHECK(seen[1].fill == 3);
  CHECK(ring.meta.data_tail == 324);
}

TEST_CASE("a header split by the end of the buffer is read correctly", "[ring_buffer]") {
  FakeRing ring(64);
  RingBufferReader reader;
  ring.produce(60, 1);
  drain_all(reader, ring);
  ring.produce(32, 5);  // header bytes 60..63 and 0..3
  auto seen = drain_all(reader, ring);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].size == 32);
  CHECK(seen[0].contiguous_and_right);
}

TEST_CASE("many laps around a small ring", "[ring_buffer]") {
  FakeRing ring(128);
  RingBufferReader reader;
  uint64_t expected = 0;
  for (int lap = 0; lap < 50; ++lap) {
    uint16_t size = static_cast<uint16_t>((16 + (lap * 13) % 56) & ~7);
    ring.produce(size, static_cast<uint8_t>(lap));
    expected += size;
    auto seen = drain_all(reader, ring);
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].fill == static_cast<uint8_t>(lap));
    CHECK(seen[0].contiguous_and_right);
  }
  CHECK(ring.meta.data_tail == expected);
}

TEST_CASE("an impossible record size skips to head and is counted", "[ring_buffer]") {
  FakeRing ring(256);
  RingBufferReader reader;
  ring.produce(16, 1);
  // A header claiming 4 bytes (smaller than a header) after a good record.
  perf_event_header bad{PERF_RECORD_SAMPLE, 0, 4};
  std::memcpy(ring.data.data() + 16, &bad, sizeof bad);
  ring.meta.data_head += 8;
  DrainStats stats;
  auto seen = drain_all(reader, ring, &stats);
  CHECK(seen.size() == 1);
  CHECK(stats.malformed == 1);
  CHECK(ring.meta.data_tail == ring.meta.data_head);
}

TEST_CASE("a size larger than what was published is malformed", "[ring_buffer]") {
  FakeRing ring(256);
  RingBufferReader reader;
  perf_event_header big{PERF_RECORD_SAMPLE, 0, 200};
  std::memcpy(ring.data.data(), &big, sizeof big);
  ring.meta.data_head = 64;
  DrainStats stats;
  CHECK(drain_all(reader, ring, &stats).empty());
  CHECK(stats.malformed == 1);
}
