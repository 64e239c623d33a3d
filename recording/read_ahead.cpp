#include "recording/read_ahead.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace swprof {

ReadAhead::ReadAhead(std::shared_ptr<const RecordingBytes> file, uint64_t from, uint64_t end, size_t window,
                     size_t headroom)
    : file_(std::move(file)), end_(end), window_(window), headroom_(headroom) {
  for (Buffer& b : buffers_) b.bytes.resize(headroom_ + window_);
  std::unique_lock<std::mutex> lock(mutex_);
  fill(0, from);
  thread_ = std::thread([this] { run(); });  // throws std::system_error: the caller reads without
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void ReadAhead::fill(size_t index, uint64_t offset) {
  filling_ = index;
  buffers_[index].offset = offset;
  buffers_[index].got = 0;
  next_at_ = offset >= end_ ? offset : offset + std::min<uint64_t>(window_, end_ - offset);
  job_ = true;
  changed_.notify_all();
}

void ReadAhead::wait_filled(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [this] { return !job_; });
}

void ReadAhead::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return job_ || stopping_; });
    if (stopping_) return;
    Buffer& b = buffers_[filling_];
    const uint64_t at = b.offset;
    const size_t n = at >= end_ ? 0 : static_cast<size_t>(std::min<uint64_t>(window_, end_ - at));
    lock.unlock();  // the caller reads the other buffer meanwhile
    const size_t got = n ? file_->read_at(b.bytes.data() + headroom_, n, at) : 0;
    lock.lock();
    b.got = got;
    job_ = false;
    changed_.notify_all();
  }
}

ReadAhead::Window ReadAhead::next(Bytes carry) {
  if (carry.size() > headroom_) throw Error("read-ahead: a carried tail of " + std::to_string(carry.size()) + " bytes");
  std::unique_lock<std::mutex> lock(mutex_);
  wait_filled(lock);
  const size_t ready = filling_;
  Buffer& b = buffers_[ready];
  uint8_t* start = b.bytes.data() + headroom_ - carry.size();
  if (!carry.empty()) std::memmove(start, carry.data(), carry.size());
  Window w{start, carry.size() + b.got, b.offset - carry.size()};
  // A short read is the end of the file (cut): nothing more to read ahead.
  const uint64_t after = b.got == next_at_ - b.offset ? next_at_ : end_;
  fill(1 - ready, after);
  return w;
}

void ReadAhead::seek(uint64_t offset) {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_filled(lock);
  fill(filling_, offset);
}

}  // namespace swprof
