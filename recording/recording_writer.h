#pragma once
// Writes a recording: header first, then records buffered into chunks that
// are zstd-compressed and appended whole, and when finished the chunk index
// (recording_index.h). The off-CPU timing records -- switch and repeat
// records, and the time of each off-CPU sample -- go to chunks of their own
// ('SWCT'), which a report reads before the others.
//
// A recording is readable and writable only by its owner (0600, as perf's
// perf.data): it holds raw copies of user stacks (whatever a stack buffer
// held: a password, a key) and the real kernel addresses /proc/kallsyms
// hides from other users. It is written in place as it goes, so a recording
// cut short still reads up to its last chunk; the sessions that record
// (record, attach, dump --samples) first keep what was at the path as
// PATH.old (keep_previous_recording).

#include <zstd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "recording/record_codec.h"
#include "recording/recording_format.h"
#include "recording/recording_index.h"

namespace swprof {

struct ZstdCCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

class RecordingWriter {
 public:
  // Creates `path` with mode 0600 and writes the header. A regular file
  // already there (reached through a symbolic link, which the kernel
  // follows, or left empty) is made 0600, then emptied; a device or a FIFO
  // is written as it is. Throws Error when the file cannot be created,
  // made private or written: a file that cannot be made private keeps its
  // bytes.
  RecordingWriter(const std::string& path, const RecordingHeader& header,
                  size_t chunk_bytes = kDefaultChunkBytes);

  void write(const Record& record);
  // Writes the pending chunks, if any.
  void flush();
  // Flushes when a pending chunk is older than `max_age`.
  void flush_if_older_than(std::chrono::milliseconds max_age);
  // Writes the end record, the last chunks and the chunk index.
  void finish(const EndRecord& end);

  uint64_t bytes_written() const { return file_bytes_; }
  const std::string& path() const { return path_; }

  static constexpr size_t kDefaultChunkBytes = 1u << 20;

 private:
  // The records of one chunk being collected.
  struct PendingChunk {
    explicit PendingChunk(uint32_t chunk_magic) : magic(chunk_magic) {}
    const uint32_t magic;
    std::vector<uint8_t> raw;
    uint32_t records = 0;
    uint32_t holds = 0;  // ChunkHolds
    std::chrono::steady_clock::time_point started;
    RecordEncoder encoder;
    // Before a record is added.
    void start();
  };

  void start_private_and_empty();
  void flush(PendingChunk& chunk);
  // Compresses `raw` into one chunk headed by `magic` and appends it;
  // returns the bytes written.
  uint32_t write_chunk(uint32_t magic, const std::vector<uint8_t>& raw, uint32_t records);
  void write_index();
  void write_all(const void* data, size_t n);
  [[noreturn]] void fail(int err) const;

  std::string path_;
  UniqueFd fd_;
  size_t chunk_bytes_;
  PendingChunk records_{kChunkMagic};
  PendingChunk timing_{kTimingChunkMagic};  // off-CPU timing records
  std::vector<uint8_t> compressed_;
  std::unique_ptr<ZSTD_CCtx, ZstdCCtxDeleter> cctx_;
  RecordingIndex index_;  // of the chunks written so far
  uint64_t file_bytes_ = 0;
};

// perf's perf.data.old: what a new recording at `path` would replace is kept
// as PATH.old (replacing an older PATH.old) when it is a non-empty regular
// file named by `path` itself. A symbolic link is written through instead
// (the kernel follows it), an empty file is reused, a device or a FIFO is
// written in place. The name it would be kept under, or nullopt.
std::optional<std::string> previous_recording_name(const std::string& path);

// Moves that file to PATH.old; returns PATH.old, or nullopt when there is
// nothing to keep. Throws Error when the rename fails.
std::optional<std::string> keep_previous_recording(const std::string& path);

}  // namespace swprof
