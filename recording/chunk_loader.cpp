#include "recording/chunk_loader.h"

#include <algorithm>

#include "recording/recording_format.h"

namespace swprof {

ChunkLoader::ChunkLoader(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes)
    : file_(std::move(file)), offset_(offset), file_bytes_(file_bytes), dctx_(ZSTD_createDCtx()) {}

void ChunkLoader::stop(LoadedChunk& out, ReadStatus::State state, std::string problem) {
  out.state = state;
  out.problem = std::move(problem);
  out.count = 0;
  out.file_bytes = file_bytes_;
  finished_ = true;
}

bool ChunkLoader::read_compressed(LoadedChunk& out, const std::string& where, uint32_t compressed_size) {
  const uint64_t size = file_->size();  // asked again: the file may still be growing
  if (size != UINT64_MAX) file_bytes_ = size;
  const uint64_t left = size == UINT64_MAX ? UINT64_MAX : size - std::min(offset_, size);
  if (compressed_size > left) {  // checked before allocating
    stop(out, ReadStatus::State::kTruncated, "file ends inside " + where);
    return false;
  }
  compressed_.resize(compressed_size);
  const size_t got = file_->read_at(compressed_.data(), compressed_size, offset_);
  offset_ += got;
  if (got != compressed_size) {
    stop(out, ReadStatus::State::kTruncated, "file ends inside " + where);
    return false;
  }
  return true;
}

void ChunkLoader::load(LoadedChunk& out) {
  if (finished_) return stop(out, ReadStatus::State::kComplete, "");
  const uint64_t chunk_at = offset_;
  uint32_t fields[4];
  const size_t got = file_->read_at(fields, sizeof fields, offset_);
  offset_ += got;
  if (got == 0) return stop(out, ReadStatus::State::kComplete, "");
  const std::string where = "chunk " + std::to_string(chunks_ + 1) + " at byte " + std::to_string(chunk_at);
  if (got < sizeof fields) return stop(out, ReadStatus::State::kTruncated, "file ends inside the header of " + where);
  const auto [magic, raw_size, compressed_size, count] = fields;
  if (magic != kChunkMagic || raw_size > kMaxChunkRawSize || compressed_size > ZSTD_compressBound(raw_size))
    return stop(out, ReadStatus::State::kCorrupt, "damaged header of " + where);
  if (!read_compressed(out, where, compressed_size)) return;
  out.raw.resize(raw_size);
  const size_t n = ZSTD_decompressDCtx(dctx_.get(), out.raw.data(), out.raw.size(), compressed_.data(), compressed_.size());
  if (ZSTD_isError(n) || n != raw_size)
    return stop(out, ReadStatus::State::kCorrupt,
                "damaged data in " + where + (ZSTD_isError(n) ? std::string(" (") + ZSTD_getErrorName(n) + ")" : ""));
  ++chunks_;
  out.state = ReadStatus::State::kReading;
  out.problem.clear();
  out.count = count;
  out.end_offset = offset_;
  out.file_bytes = file_bytes_;
}

ChunkPrefetcher::ChunkPrefetcher(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes,
                                 size_t ahead)
    : loader_(std::move(file), offset, file_bytes), ahead_(std::max<size_t>(1, ahead)), thread_([this] { run(); }) {}

ChunkPrefetcher::~ChunkPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void ChunkPrefetcher::run() {
  while (!loader_.finished()) {
    std::unique_ptr<LoadedChunk> chunk;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stop_ || ready_.size() < ahead_; });
      if (stop_) return;
      if (!spare_.empty()) {
        chunk = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    if (!chunk) chunk = std::make_unique<LoadedChunk>();
    loader_.load(*chunk);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.push_back(std::move(chunk));
      loaded_all_ = loader_.finished();
    }
    changed_.notify_all();
  }
}

std::unique_ptr<LoadedChunk> ChunkPrefetcher::next(std::unique_ptr<LoadedChunk> done) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (done) spare_.push_back(std::move(done));
  changed_.wait(lock, [this] { return !ready_.empty() || loaded_all_; });
  if (ready_.empty()) {  // asked again after the last chunk
    auto end = std::make_unique<LoadedChunk>();
    end->state = ReadStatus::State::kComplete;
    return end;
  }
  std::unique_ptr<LoadedChunk> chunk = std::move(ready_.front());
  ready_.pop_front();
  lock.unlock();
  changed_.notify_all();
  return chunk;
}

}  // namespace swprof
