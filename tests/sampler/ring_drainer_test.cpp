// RingDrainer (sampler/ring_drainer.h): the rings are emptied on a thread of
// their own, whatever the recorder is doing, into a bounded queue of batches.

#include "sampler/ring_drainer.h"

#include <linux/perf_event.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

using namespace swprof;

namespace {

// A set of rings that holds one new record at each pass, `size` bytes with
// its sequence number in the first bytes after the header, until `limit`.
class FakeRings {
 public:
  explicit FakeRings(uint64_t limit = UINT64_MAX, uint16_t size = 16) : limit_(limit), size_(size) {}

  RingSetDrainFn drain_fn() {
    return [this](const RecordFn& fn) -> uint64_t {
      passes_.fetch_add(1);
      const uint64_t n = made_.load();
      if (n >= limit_) return 0;
      std::vector<uint8_t> record(size_, 0);
      const perf_event_header h{PERF_RECORD_SAMPLE, 0, size_};
      std::memcpy(record.data(), &h, sizeof h);
      std::memcpy(record.data() + sizeof h, &n, sizeof n);
      fn(Bytes(record.data(), record.size()));
      made_.store(n + 1);
      return 0;
    };
  }
  uint64_t passes() const { return passes_.load(); }
  uint64_t made() const { return made_.load(); }

 private:
  uint64_t limit_;
  uint16_t size_;
  std::atomic<uint64_t> passes_{0};
  std::atomic<uint64_t> made_{0};
};

uint64_t sequence(Bytes record) {
  uint64_t n = 0;
  std::memcpy(&n, record.data() + sizeof(perf_event_header), sizeof n);
  return n;
}

// The sequence numbers of the records of set `set` in `batches`, in order.
std::vector<uint64_t> sequences(const std::vector<DrainedBatch>& batches, size_t set = 0) {
  std::vector<uint64_t> out;
  for (const DrainedBatch& b : batches)
    for (size_t i = 0; i < b.sets.at(set).count(); ++i) out.push_back(sequence(b.sets[set].record(i)));
  return out;
}

template <typename Pred>
bool eventually(Pred&& pred) {
  for (int i = 0; i < 1000 && !pred(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return pred();
}

}  // namespace

TEST_CASE("the drainer empties the rings while the recorder is busy elsewhere", "[ring_drainer]") {
  FakeRings rings(5);
  RingDrainer drainer({rings.drain_fn()}, {}, 1 << 20);
  // Nothing is taken meanwhile: the thread passes over the rings on its own
  // (every 100 ms without a wakeup).
  REQUIRE(eventually([&] { return rings.made() == 5; }));
  const std::vector<DrainedBatch> batches = drainer.take(std::chrono::milliseconds(0));
  CHECK(sequences(batches) == std::vector<uint64_t>{0, 1, 2, 3, 4});
  for (size_t i = 1; i < batches.size(); ++i) CHECK(batches[i - 1].started_ns <= batches[i].started_ns);
  CHECK(drainer.full_waits() == 0);
}

TEST_CASE("the drainer keeps the sets apart, in the order given", "[ring_drainer]") {
  FakeRings timer(3, 16), off_cpu(2, 24);
  RingDrainer drainer({timer.drain_fn(), off_cpu.drain_fn()}, {}, 1 << 20);
  REQUIRE(eventually([&] { return timer.made() == 3 && off_cpu.made() == 2; }));
  const std::vector<DrainedBatch> batches = drainer.finish();
  CHECK(sequences(batches, 0) == std::vector<uint64_t>{0, 1, 2});
  CHECK(sequences(batches, 1) == std::vector<uint64_t>{0, 1});
  for (const DrainedBatch& b : batches)
    for (size_t i = 0; i < b.sets[1].count(); ++i) CHECK(b.sets[1].record(i).size() == 24);
}

TEST_CASE("the drainer stops copying while the batches waiting fill its room, and goes on once taken",
          "[ring_drainer]") {
  FakeRings rings(UINT64_MAX, 1024);
  RingDrainer drainer({rings.drain_fn()}, {}, 3 * 1024);
  REQUIRE(eventually([&] { return drainer.full_waits() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(rings.made() == 3);  // the rest waits in the rings, where the kernel counts what it drops
  CHECK(sequences(drainer.take(std::chrono::milliseconds(0))) == std::vector<uint64_t>{0, 1, 2});
  REQUIRE(eventually([&] { return rings.made() >= 4; }));
  CHECK(sequences(drainer.finish()).front() == 3);
}

TEST_CASE("finish makes a last pass after the thread has stopped", "[ring_drainer]") {
  FakeRings rings(1);
  RingDrainer drainer({rings.drain_fn()}, {}, 1 << 20);
  REQUIRE(eventually([&] { return rings.made() == 1; }));
  const uint64_t passes = rings.passes();
  const std::vector<DrainedBatch> batches = drainer.finish();
  CHECK(rings.passes() > passes);
  CHECK(sequences(batches) == std::vector<uint64_t>{0});
  REQUIRE(!batches.empty());
  CHECK(batches.back().bytes() == 0);  // the last pass, after the one record
}

TEST_CASE("an idle drainer queues one empty batch, its time the latest pass's", "[ring_drainer]") {
  FakeRings rings(0);
  RingDrainer drainer({rings.drain_fn()}, {}, 1 << 20);
  REQUIRE(eventually([&] { return rings.passes() >= 4; }));
  const std::vector<DrainedBatch> batches = drainer.take(std::chrono::milliseconds(0));
  REQUIRE(batches.size() == 1);
  CHECK(batches[0].bytes() == 0);
  CHECK(batches[0].started_ns > 0);
}

TEST_CASE("a hung-up fd (an event whose task has exited) is polled no more", "[ring_drainer]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  close(fds[1]);  // the read end now reports POLLHUP at every poll
  FakeRings rings(0);
  {
    RingDrainer drainer({rings.drain_fn()}, {{fds[0], POLLIN, 0}}, 1 << 20);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    drainer.finish();
  }
  close(fds[0]);
  // A pass per 100 ms poll timeout, not one per poll returning at once.
  CHECK(rings.passes() < 50);
}

TEST_CASE("the drainer passes at every wakeup only when prompt, else keeps a gap between passes", "[ring_drainer]") {
  // Rings whose fd is always readable, as rings that wake their reader at
  // every sample are while samples come.
  const int always = eventfd(1, EFD_CLOEXEC);
  REQUIRE(always >= 0);
  FakeRings rings;
  RingDrainer drainer({rings.drain_fn()}, {{always, POLLIN, 0}}, uint64_t{1} << 30);
  SECTION("not prompt: passes at least kPassGapMs apart") {
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(eventually([&] { return rings.passes() >= 11; }));
    const auto passes = rings.passes();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(elapsed >= std::chrono::milliseconds(RingDrainer::kPassGapMs) * static_cast<int64_t>(passes - 2));
  }
  SECTION("prompt: a pass at every wakeup, with no gap") {
    drainer.set_prompt(true);
    // 2000 gaps would take 20 s, twice as long as eventually() waits.
    CHECK(eventually([&] { return rings.passes() >= 2000; }));
  }
  drainer.finish();
  close(always);
}

