#pragma once
// The bytes of a recording file, opened once and shared: the record reader,
// the walk to the trailing images and the off-CPU pre-pass all read through
// one RecordingBytes (positioned reads, so they never disturb each other and
// may run on different threads). Reads are copies into the caller's buffer,
// never a mapping of the file: a file cut short while it is read (the
// recorder still writing, or a truncation) gives short reads, not SIGBUS.
// The file's first bytes are read when it is opened and kept (head()): the
// magic and the header come from them, and no byte of them is read again.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/byte_reader.h"
#include "common/unique_fd.h"

namespace swprof {

class RecordingBytes {
 public:
  // Opens `path` read-only; throws Error naming `what` ("recording",
  // "perf.data file") when it cannot be opened or is a directory.
  static std::shared_ptr<const RecordingBytes> open(const std::string& path, const std::string& what);
  // The same for `fd`, which the caller opened at `path`.
  static std::shared_ptr<const RecordingBytes> adopt(UniqueFd fd, const std::string& path, const std::string& what);
  // A file image held in memory (a fuzzer's input); `name` stands for the
  // path in messages. `image` must outlive every reader of it.
  static std::shared_ptr<const RecordingBytes> in_memory(Bytes image, const std::string& name);

  // The most head() keeps.
  static constexpr size_t kHeadBytes = 4096;

  const std::string& path() const { return path_; }
  // Copies up to `n` bytes at `offset` into `dst`; fewer when the file ends.
  size_t read_at(void* dst, size_t n, uint64_t offset) const;
  // The file's first kHeadBytes (fewer when it was shorter when opened).
  Bytes head() const;
  // The file's size now (asked again each time: it may still be growing);
  // UINT64_MAX when it is not a regular file.
  uint64_t size() const;
  // The size when opened (0 when not a regular file).
  uint64_t size_at_open() const { return size_at_open_; }
  // Who owns the file (this user for an image in memory).
  uid_t owner() const { return owner_; }
  bool in_memory() const { return image_.has_value(); }
  // Bytes read from the file so far, head() included: a reader that reads
  // each byte once has read the file's size.
  uint64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }

 private:
  RecordingBytes() = default;
  size_t read_file(uint8_t* dst, size_t n, uint64_t offset) const;
  size_t read_stream(uint8_t* dst, size_t n, uint64_t offset) const;

  std::string path_;
  UniqueFd fd_;
  std::optional<Bytes> image_;
  uint64_t size_at_open_ = 0;
  uid_t owner_ = 0;
  bool regular_ = true;
  std::vector<uint8_t> head_;
  mutable std::atomic<uint64_t> bytes_read_{0};
  // A pipe or other stream has no offsets: read in order, and only forward.
  mutable std::mutex stream_mutex_;
  mutable uint64_t stream_pos_ = 0;
};

}  // namespace swprof
