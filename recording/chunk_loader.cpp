#include "recording/chunk_loader.h"

#include <algorithm>
#include <cstring>

#include "recording/recording_format.h"

namespace swprof {

ChunkLoader::ChunkLoader(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes,
                         std::shared_ptr<ChunkPlan> plan)
    : file_(std::move(file)),
      offset_(offset),
      file_bytes_(file_bytes),
      plan_(std::move(plan)),
      dctx_(ZSTD_createDCtx()) {}

namespace {

std::string chunk_where(uint64_t number, uint64_t chunk_at) {
  return "chunk " + std::to_string(number) + " at byte " + std::to_string(chunk_at);
}

}  // namespace

void ChunkLoader::stop(LoadedChunk& out, ReadStatus::State state, std::string problem) {
  out.state = state;
  out.problem = std::move(problem);
  out.count = 0;
  out.file_bytes = file_bytes_;
  finished_ = true;
}

size_t ChunkLoader::read_header(uint32_t (&fields)[4]) {
  uint8_t bytes[kChunkHeaderSize];
  size_t have = std::min(lookahead_.size(), sizeof bytes);
  std::memcpy(bytes, lookahead_.data(), have);
  lookahead_.clear();
  have += file_->read_at(bytes + have, sizeof bytes - have, offset_ + have);
  std::memcpy(fields, bytes, have);
  return have;
}

// The compressed bytes, and the next chunk's header with them when the file holds it.
bool ChunkLoader::read_compressed(LoadedChunk& out, const std::string& where, uint32_t compressed_size) {
  const uint64_t size = file_->size();  // asked again: the file may still be growing
  if (size != UINT64_MAX) file_bytes_ = size;
  const uint64_t left = size == UINT64_MAX ? UINT64_MAX : size - std::min(offset_, size);
  if (compressed_size > left) {  // checked before allocating
    stop(out, ReadStatus::State::kTruncated, "file ends inside " + where);
    return false;
  }
  compressed_.resize(size_t{compressed_size} + kChunkHeaderSize);
  const size_t got = file_->read_at(compressed_.data(), compressed_.size(), offset_);
  if (got < compressed_size) {
    offset_ += got;
    stop(out, ReadStatus::State::kTruncated, "file ends inside " + where);
    return false;
  }
  lookahead_.assign(compressed_.begin() + compressed_size, compressed_.begin() + static_cast<ptrdiff_t>(got));
  offset_ += compressed_size;
  return true;
}

void ChunkLoader::decompress(LoadedChunk& out, const std::string& where, const uint32_t (&fields)[4],
                             Bytes compressed) {
  const auto [magic, raw_size, compressed_size, count] = fields;
  out.raw.resize(raw_size);
  const size_t n = ZSTD_decompressDCtx(dctx_.get(), out.raw.data(), out.raw.size(), compressed.data(), compressed.size());
  if (ZSTD_isError(n) || n != raw_size)
    return stop(out, ReadStatus::State::kCorrupt,
                "damaged data in " + where + (ZSTD_isError(n) ? std::string(" (") + ZSTD_getErrorName(n) + ")" : ""));
  ++chunks_;
  out.state = ReadStatus::State::kReading;
  out.problem.clear();
  out.count = count;
  out.end_offset = offset_;
  out.file_bytes = file_bytes_;
  out.timing = magic == kTimingChunkMagic;
}

void ChunkLoader::load(LoadedChunk& out) {
  if (finished_) return stop(out, ReadStatus::State::kComplete, "");
  if (plan_) return load_planned(out);
  load_walked(out);
}

void ChunkLoader::load_walked(LoadedChunk& out) {
  const uint64_t chunk_at = offset_;
  uint32_t fields[4];
  const size_t got = read_header(fields);
  offset_ += got;
  if (got == 0) return stop(out, ReadStatus::State::kComplete, "");
  const std::string where = chunk_where(chunks_ + 1, chunk_at);
  if (got < sizeof fields) return stop(out, ReadStatus::State::kTruncated, "file ends inside the header of " + where);
  const auto [magic, raw_size, compressed_size, count] = fields;
  if (magic == kIndexChunkMagic) return stop(out, ReadStatus::State::kComplete, "");  // the chunks end at the index
  if ((magic != kChunkMagic && magic != kTimingChunkMagic) || raw_size > kMaxChunkRawSize ||
      compressed_size > ZSTD_compressBound(raw_size))
    return stop(out, ReadStatus::State::kCorrupt, "damaged header of " + where);
  if (!read_compressed(out, where, compressed_size)) return;
  decompress(out, where, fields, Bytes(compressed_.data(), compressed_size));
}

void ChunkLoader::load_planned(LoadedChunk& out) {
  if (planned_ == plan_->chunks.size()) return stop(out, ReadStatus::State::kComplete, "");
  const IndexedChunk& c = plan_->chunks[planned_++];
  if (plan_->passed.count(c.offset)) {  // its records were handed out: an empty chunk
    ++chunks_;
    out.state = ReadStatus::State::kReading;
    out.raw.clear();
    out.count = 0;
    offset_ = out.end_offset = c.end();
    out.file_bytes = file_bytes_;
    out.timing = c.timing();
    return;
  }
  if (auto it = plan_->loaded.find(c.offset); it != plan_->loaded.end()) {
    ++chunks_;
    out = std::move(*it->second);
    plan_->loaded.erase(it);
    offset_ = c.end();
    return;
  }
  load_indexed(c, planned_, out);
}

void ChunkLoader::load_indexed(const IndexedChunk& c, uint64_t number, LoadedChunk& out) {
  const std::string where = chunk_where(number, c.offset);
  const uint64_t size = file_->size();
  if (size != UINT64_MAX) file_bytes_ = size;
  compressed_.resize(c.bytes);  // within the file when its index was read
  const size_t got = file_->read_at(compressed_.data(), compressed_.size(), c.offset);
  offset_ = c.offset + got;
  if (got != c.bytes) return stop(out, ReadStatus::State::kTruncated, "file ends inside " + where);
  uint32_t fields[4];
  std::memcpy(fields, compressed_.data(), sizeof fields);
  const auto [magic, raw_size, compressed_size, count] = fields;
  if (magic != (c.timing() ? kTimingChunkMagic : kChunkMagic) || compressed_size != c.bytes - kChunkHeaderSize ||
      raw_size > kMaxChunkRawSize || compressed_size > ZSTD_compressBound(raw_size))
    return stop(out, ReadStatus::State::kCorrupt, "damaged header of " + where);
  decompress(out, where, fields, Bytes(compressed_.data() + kChunkHeaderSize, compressed_size));
}

ChunkPrefetcher::ChunkPrefetcher(std::shared_ptr<const RecordingBytes> file, uint64_t offset, uint64_t file_bytes,
                                 size_t ahead, std::shared_ptr<ChunkPlan> plan)
    : loader_(std::move(file), offset, file_bytes, std::move(plan)), ahead_(std::max<size_t>(1, ahead)), thread_([this] { run(); }) {}

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
