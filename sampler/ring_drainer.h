#pragma once
// Takes the records out of the perf rings on a thread of its own, so that
// the kernel finds room in them whatever the recorder is doing.
//
// The recorder's loop does more than read the rings: it parses and encodes
// each record, compresses a chunk when one is full, reads the build-id and
// the mount namespace of every new process and copies perf maps. A burst of
// process creation makes that work (and a loaded machine the wait for a CPU)
// last longer than the rings take to fill, and the kernel drops samples.
// Here one thread only waits for the rings and copies their records out:
//
//   drainer thread:  poll(rings' fds, 100 ms) -> pass: now, every ring's
//                    complete records copied, space released -> batch queue
//   recorder:        take() the batches, in order, and write them
//
// A batch holds what one pass found, with the time the pass began: every
// record the kernel stamped before that time (less the few µs between
// stamping a record and publishing it) is in that batch or an earlier one.
// Memory is bounded: while the batches waiting hold `max_pending_bytes` or
// more, the thread copies nothing and the records wait in the rings (where
// the kernel counts any it must drop, as it would without this thread); the
// batches taken and being written hold at most as much again.

#include <poll.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/byte_reader.h"
#include "common/unique_fd.h"

namespace swprof {

// One set of rings: hands every complete record waiting to `fn`, releases
// their space, and returns how many headers were malformed.
using RecordFn = std::function<void(Bytes)>;
using RingSetDrainFn = std::function<uint64_t(const RecordFn& fn)>;

// What one pass took from each set of rings, records back to back.
struct DrainedBatch {
  struct Records {
    std::vector<uint8_t> bytes;
    std::vector<size_t> ends;  // where each record ends in `bytes`

    size_t count() const { return ends.size(); }
    Bytes record(size_t i) const {
      const size_t begin = i == 0 ? 0 : ends[i - 1];
      return Bytes(bytes.data() + begin, ends[i] - begin);
    }
  };

  uint64_t started_ns = 0;      // CLOCK_MONOTONIC when the pass began
  std::vector<Records> sets;    // in the order of the sets given to the drainer
  uint64_t malformed = 0;

  size_t bytes() const;
};

class RingDrainer {
 public:
  // Starts the thread. `fds` are polled for the rings' wakeups (an fd that
  // reports only POLLHUP/POLLERR, an event whose task exited, is polled no
  // more; its rings are still drained).
  RingDrainer(std::vector<RingSetDrainFn> sets, std::vector<pollfd> fds, uint64_t max_pending_bytes);
  ~RingDrainer();
  RingDrainer(const RingDrainer&) = delete;
  RingDrainer& operator=(const RingDrainer&) = delete;

  // The batches made since the last take(), oldest first; waits up to
  // `timeout` for one when there is none (and may return none).
  std::vector<DrainedBatch> take(std::chrono::milliseconds timeout);
  // Batches written: their buffers are kept for later passes (a few, up to
  // kMaxSpareBytes each), which then write into memory already mapped
  // instead of faulting in new pages for every sample's stack.
  void recycle(std::vector<DrainedBatch> batches);
  static constexpr size_t kMaxSpares = 8;
  static constexpr size_t kMaxSpareBytes = size_t{4} << 20;
  // Once the events are disabled: one last pass, the thread ends, and every
  // batch not taken yet is returned.
  std::vector<DrainedBatch> finish();

  // How many times the queue was full and the thread waited (tests, summaries).
  uint64_t full_waits() const;

  // Prompt: a pass at every wakeup of a ring (rings that wake at every
  // sample: EventSet::wakeup_watermark), while the recorder reads stacks
  // past their copies (StackExtender), which must happen while the sampled
  // threads are still in the frames the copies missed. Not prompt (the
  // default): at least kPassGap between passes, so that rings that wake at
  // every sample cost a few passes a second; a ring holds 1/16 s of samples
  // or more (default_ring_bytes).
  void set_prompt(bool prompt) { prompt_ = prompt; }
  static constexpr int kPassGapMs = 10;

 private:
  void run();
  void stop_thread();
  std::vector<DrainedBatch> take_queue();  // with mutex_ held
  DrainedBatch pass();
  DrainedBatch::Records spare();
  void keep_spares(DrainedBatch& batch);  // with mutex_ held
  void push(DrainedBatch batch);
  void wait_for_rings();
  void wake();

  std::vector<RingSetDrainFn> sets_;
  std::vector<pollfd> fds_;  // the rings' fds, then the wake eventfd
  uint64_t max_pending_bytes_;
  UniqueFd wake_fd_;

  mutable std::mutex mutex_;
  std::condition_variable batch_ready_;  // the recorder waits for a batch
  std::condition_variable room_;         // the thread waits for the queue to shrink
  std::deque<DrainedBatch> queue_;
  std::vector<DrainedBatch::Records> spares_;
  uint64_t pending_bytes_ = 0;
  uint64_t full_waits_ = 0;
  bool stopping_ = false;
  std::atomic<bool> prompt_{false};
  std::thread thread_;
};

}  // namespace swprof
