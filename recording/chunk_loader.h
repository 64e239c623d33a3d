#pragma once
// Loads the chunks of a recording in file order: reads a chunk's header and
// compressed bytes and decompresses them (recording_format.h). Each chunk is
// an independent zstd frame, so the work can run ahead of the reader that
// decodes the records: ChunkPrefetcher does it on a thread of its own and
// hands over whole decompressed chunks, in order; ChunkLoader does the same
// work on the caller's thread (recordings held in memory).

#include <zstd.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "recording/record_source.h"
#include "recording/recording_bytes.h"

namespace swprof {

struct ZstdDCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

// One chunk, or what stopped the read where it would have been.
struct LoadedChunk {
  ReadStatus::State state = ReadStatus::State::kReading;  // kReading: a good chunk
  std::string problem;         // for kTruncated / kCorrupt
  std::vector<uint8_t> raw;    // the decompressed records
  uint32_t count = 0;          // records in raw
  uint64_t end_offset = 0;     // file offset after the chunk
  uint64_t file_bytes = 0;     // the file's size as last seen (for progress)
  bool good() const { return state == ReadStatus::State::kReading; }
};

class ChunkLoader {
 public:
  // Loads from `offset` (just after the file header); `file_bytes` is the
  // file's size as known so far.
  ChunkLoader(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes);
  // Fills `out` (its buffers reused) with the next chunk. After a chunk that
  // is not good(), nothing more is loaded.
  void load(LoadedChunk& out);
  bool finished() const { return finished_; }

 private:
  bool read_compressed(LoadedChunk& out, const std::string& where, uint32_t compressed_size);
  void stop(LoadedChunk& out, ReadStatus::State state, std::string problem);

  std::shared_ptr<const RecordingBytes> file_;
  uint64_t offset_;
  uint64_t file_bytes_;
  uint64_t chunks_ = 0;
  bool finished_ = false;
  std::vector<uint8_t> compressed_;
  std::unique_ptr<ZSTD_DCtx, ZstdDCtxDeleter> dctx_;
};

class ChunkPrefetcher {
 public:
  // Starts loading on a thread of its own, at most `ahead` chunks ahead of
  // the one the caller holds (besides the one being loaded). One is enough
  // to keep the caller fed: decompressing a chunk takes a fraction of the
  // time decoding and unwinding its samples does; each more costs a chunk
  // of memory (about 1 MiB).
  ChunkPrefetcher(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes, size_t ahead = 1);
  ~ChunkPrefetcher();
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  // The next chunk in file order (waits for it). `done`, when given, is the
  // previous chunk handed back for its buffers to be reused.
  std::unique_ptr<LoadedChunk> next(std::unique_ptr<LoadedChunk> done = nullptr);

 private:
  void run();

  ChunkLoader loader_;
  const size_t ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<LoadedChunk>> ready_;
  std::vector<std::unique_ptr<LoadedChunk>> spare_;
  bool stop_ = false;
  bool loaded_all_ = false;  // the loader stopped: nothing more comes
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace swprof
