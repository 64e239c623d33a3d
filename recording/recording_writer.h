#pragma once
// Writes a recording: header first, then records buffered into chunks that
// are zstd-compressed and appended whole.

#include <zstd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "recording/record_codec.h"
#include "recording/recording_format.h"

namespace swprof {

struct ZstdCCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

class RecordingWriter {
 public:
  // Creates (truncates) `path` and writes the header. Throws Error when the
  // file cannot be created or written.
  RecordingWriter(const std::string& path, const RecordingHeader& header,
                  size_t chunk_bytes = kDefaultChunkBytes);

  void write(const Record& record);
  // Writes the pending chunk, if any.
  void flush();
  // Flushes when the pending chunk is older than `max_age`.
  void flush_if_older_than(std::chrono::milliseconds max_age);
  // Writes the end record and the last chunk.
  void finish(const EndRecord& end);

  uint64_t bytes_written() const { return file_bytes_; }
  const std::string& path() const { return path_; }

  static constexpr size_t kDefaultChunkBytes = 1u << 20;

 private:
  void write_all(const void* data, size_t n);

  std::string path_;
  UniqueFd fd_;
  size_t chunk_bytes_;
  std::vector<uint8_t> raw_;
  std::vector<uint8_t> compressed_;
  uint32_t pending_records_ = 0;
  std::chrono::steady_clock::time_point chunk_started_;
  RecordEncoder encoder_;
  std::unique_ptr<ZSTD_CCtx, ZstdCCtxDeleter> cctx_;
  uint64_t file_bytes_ = 0;
};

}  // namespace swprof
