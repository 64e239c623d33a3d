#pragma once
// Loads the chunks of a recording in file order: reads a chunk's header and
// compressed bytes and decompresses them (recording_format.h). Each chunk is
// an independent zstd frame, so the work can run ahead of the reader that
// decodes the records: ChunkPrefetcher does it on a thread of its own and
// hands over whole decompressed chunks, in order; ChunkLoader does the same
// work on the caller's thread (recordings held in memory).
//
// Without a plan the loader walks the chunk headers from the first chunk to
// the file's end (or to a chunk index, where the chunks end). With one (from
// the chunk index, recording_index.h) it loads the chunks the plan lists,
// each in a single read, and hands over those read ahead without reading
// them again.

#include <zstd.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "recording/record_source.h"
#include "recording/recording_bytes.h"
#include "recording/recording_index.h"

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
  bool timing = false;         // an off-CPU timing chunk ('SWCT')
  bool good() const { return state == ReadStatus::State::kReading; }
};

// The chunks to load, from a file's chunk index.
struct ChunkPlan {
  std::vector<IndexedChunk> chunks;  // in file order
  // Chunks loaded already, by offset: handed over when reached.
  std::map<uint64_t, std::unique_ptr<LoadedChunk>> loaded;
  // Chunks whose records were handed out already (the off-CPU timing
  // chunks, read apart), by offset: handed over empty, not read.
  std::set<uint64_t> passed;
};

class ChunkLoader {
 public:
  // Loads from `offset` (just after the file header); `file_bytes` is the
  // file's size as known so far. With a plan, loads what it lists.
  ChunkLoader(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes,
              std::shared_ptr<ChunkPlan> plan = nullptr);
  // Fills `out` (its buffers reused) with the next chunk. After a chunk that
  // is not good(), nothing more is loaded.
  void load(LoadedChunk& out);
  // Loads chunk `c`, the `number`th (from 1) of a chunk index, into `out`, in one read.
  void load_indexed(const IndexedChunk& c, uint64_t number, LoadedChunk& out);
  bool finished() const { return finished_; }

 private:
  void load_walked(LoadedChunk& out);
  void load_planned(LoadedChunk& out);
  // The next chunk header (its bytes read with the chunk before come first);
  // returns the bytes of it there were.
  size_t read_header(uint32_t (&fields)[4]);
  bool read_compressed(LoadedChunk& out, const std::string& where, uint32_t compressed_size);
  void decompress(LoadedChunk& out, const std::string& where, const uint32_t (&fields)[4], Bytes compressed);
  void stop(LoadedChunk& out, ReadStatus::State state, std::string problem);

  std::shared_ptr<const RecordingBytes> file_;
  uint64_t offset_;
  uint64_t file_bytes_;
  uint64_t chunks_ = 0;
  bool finished_ = false;
  std::shared_ptr<ChunkPlan> plan_;
  size_t planned_ = 0;  // plan_->chunks loaded so far
  std::vector<uint8_t> compressed_;
  // Walking: the bytes after the last chunk read with it (the start of the
  // next header: a chunk takes one read).
  std::vector<uint8_t> lookahead_;
  std::unique_ptr<ZSTD_DCtx, ZstdDCtxDeleter> dctx_;
};

class ChunkPrefetcher {
 public:
  // Starts loading on a thread of its own, at most `ahead` chunks ahead of
  // the one the caller holds (besides the one being loaded). One is enough
  // to keep the caller fed: decompressing a chunk takes a fraction of the
  // time decoding and unwinding its samples does; each more costs a chunk
  // of memory (about 1 MiB).
  ChunkPrefetcher(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes, size_t ahead = 1,
                  std::shared_ptr<ChunkPlan> plan = nullptr);
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
