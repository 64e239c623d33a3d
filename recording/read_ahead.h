#pragma once
// Reads a range of a file window by window, one window ahead of the
// caller, on a thread of its own. Reading a big perf.data is mostly the
// kernel copying pages into our buffer (a 1.2 GB file: ~0.1 s of a 0.19 s
// report); ahead, that copy runs beside the caller's decoding, symbolizing
// and tree building instead of between them.
//
// Two buffers take turns: the caller reads one while the thread fills the
// other. Each has `headroom` bytes in front of its window, where next()
// carries the caller's unread tail of the window before (a record the
// window boundary cut), so records stay contiguous without copying windows.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/byte_reader.h"
#include "recording/recording_bytes.h"

namespace swprof {

class ReadAhead {
 public:
  // Reads [from, end) of `file` in windows of `window` bytes (the last one
  // shorter), starting at once.
  ReadAhead(std::shared_ptr<const RecordingBytes> file, uint64_t from, uint64_t end, size_t window, size_t headroom);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  struct Window {
    const uint8_t* data = nullptr;  // `carry` then the bytes read
    size_t size = 0;                // carry.size() + bytes read: no more than carry at the end or a cut
    uint64_t offset = 0;            // the file offset of data[0]
  };
  // The next window with `carry` (at most headroom bytes, the caller's
  // unread tail of the window before it, which it must directly precede)
  // in front. The window before is then refilled: views of it die.
  Window next(Bytes carry);
  // Continues at `offset` (a payload skipped): what was read ahead is dropped.
  void seek(uint64_t offset);

 private:
  struct Buffer {
    std::vector<uint8_t> bytes;  // headroom + window
    uint64_t offset = 0;         // file offset of bytes[headroom]
    size_t got = 0;
  };
  void run();
  void fill(size_t index, uint64_t offset);  // asks the thread; mutex held
  void wait_filled(std::unique_lock<std::mutex>& lock);

  std::shared_ptr<const RecordingBytes> file_;
  const uint64_t end_;
  const size_t window_;
  const size_t headroom_;
  Buffer buffers_[2];
  size_t filling_ = 0;     // the buffer the thread fills (or filled)
  uint64_t next_at_ = 0;   // where the window after it starts
  std::mutex mutex_;
  std::condition_variable changed_;
  bool job_ = false;       // the thread has a fill to do
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace swprof
