#include "sampler/ring_drainer.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <iterator>
#include <utility>

#include "recording/recording_format.h"

namespace swprof {

size_t DrainedBatch::bytes() const {
  size_t n = 0;
  for (const Records& r : sets) n += r.bytes.size();
  return n;
}

RingDrainer::RingDrainer(std::vector<RingSetDrainFn> sets, std::vector<pollfd> fds, uint64_t max_pending_bytes)
    : sets_(std::move(sets)),
      fds_(std::move(fds)),
      max_pending_bytes_(max_pending_bytes),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (wake_fd_.valid()) fds_.push_back({wake_fd_.get(), POLLIN, 0});
  thread_ = std::thread([this] { run(); });
}

RingDrainer::~RingDrainer() { stop_thread(); }

std::vector<DrainedBatch> RingDrainer::take(std::chrono::milliseconds timeout) {
  std::vector<DrainedBatch> out;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    batch_ready_.wait_for(lock, timeout, [this] { return !queue_.empty(); });
    out = take_queue();
  }
  room_.notify_all();
  return out;
}

std::vector<DrainedBatch> RingDrainer::finish() {
  stop_thread();
  push(pass());  // the thread has ended: this thread owns the rings now
  std::lock_guard<std::mutex> lock(mutex_);
  return take_queue();
}

void RingDrainer::stop_thread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  room_.notify_all();
  wake();
  thread_.join();
}

std::vector<DrainedBatch> RingDrainer::take_queue() {
  std::vector<DrainedBatch> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  pending_bytes_ = 0;
  return out;
}

void RingDrainer::recycle(std::vector<DrainedBatch> batches) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (DrainedBatch& batch : batches) keep_spares(batch);
}

void RingDrainer::keep_spares(DrainedBatch& batch) {
  for (DrainedBatch::Records& records : batch.sets) {
    if (spares_.size() >= kMaxSpares || records.bytes.capacity() > kMaxSpareBytes) continue;
    records.bytes.clear();
    records.ends.clear();
    spares_.push_back(std::move(records));
  }
}

DrainedBatch::Records RingDrainer::spare() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spares_.empty()) return {};
  DrainedBatch::Records records = std::move(spares_.back());
  spares_.pop_back();
  return records;
}

uint64_t RingDrainer::full_waits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return full_waits_;
}

void RingDrainer::run() {
  for (;;) {
    wait_for_rings();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!stopping_ && pending_bytes_ >= max_pending_bytes_) {
        ++full_waits_;
        room_.wait(lock, [this] { return stopping_ || pending_bytes_ < max_pending_bytes_; });
      }
      if (stopping_) return;
    }
    push(pass());
  }
}

DrainedBatch RingDrainer::pass() {
  DrainedBatch batch;
  batch.started_ns = monotonic_now_ns();  // before reading: what was stamped earlier is in the rings
  batch.sets.reserve(sets_.size());
  for (size_t i = 0; i < sets_.size(); ++i) {
    DrainedBatch::Records& records = batch.sets.emplace_back(spare());
    batch.malformed += sets_[i]([&records](Bytes record) {
      records.bytes.insert(records.bytes.end(), record.begin(), record.end());
      records.ends.push_back(records.bytes.size());
    });
  }
  return batch;
}

// A pass that found nothing only moves the time of an empty batch still
// waiting, so that an idle session queues no more than one.
void RingDrainer::push(DrainedBatch batch) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t bytes = batch.bytes();
    if (bytes == 0 && batch.malformed == 0 && !queue_.empty() && queue_.back().bytes() == 0 &&
        queue_.back().malformed == 0) {
      queue_.back().started_ns = batch.started_ns;
      keep_spares(batch);
    } else {
      pending_bytes_ += bytes;
      queue_.push_back(std::move(batch));
    }
  }
  batch_ready_.notify_all();
}

// Waits for a ring's wakeup, a stop, or 100 ms (when not prompt, first
// kPassGapMs or a stop). An event whose task has
// exited (and whose inherited copies are gone) reports POLLHUP for good:
// it is polled no more, or every poll would return at once.
void RingDrainer::wait_for_rings() {
  if (!prompt_ && wake_fd_.valid()) {
    pollfd wake{wake_fd_.get(), POLLIN, 0};
    if (poll(&wake, 1, kPassGapMs) > 0) return;  // a stop: run() sees it
  }
  if (poll(fds_.data(), fds_.size(), 100) <= 0) return;
  for (pollfd& p : fds_) {
    if (p.fd != wake_fd_.get() && (p.revents & (POLLHUP | POLLERR)) && !(p.revents & POLLIN)) p.fd = -1;
  }
}

void RingDrainer::wake() {
  if (!wake_fd_.valid()) return;
  const uint64_t one = 1;
  (void)!write(wake_fd_.get(), &one, sizeof one);
}

}  // namespace swprof
