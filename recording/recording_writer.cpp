#include "recording/recording_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/byte_reader.h"
#include "common/error.h"

namespace swprof {

RecordingWriter::RecordingWriter(const std::string& path, const RecordingHeader& header, size_t chunk_bytes)
    : path_(path), chunk_bytes_(chunk_bytes), cctx_(ZSTD_createCCtx()) {
  fd_.reset(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600));
  if (!fd_.valid()) fail(errno);
  start_private_and_empty();
  if (!cctx_) throw Error("cannot create a zstd compression context");
  ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_checksumFlag, 1);

  std::vector<uint8_t> head;
  ByteWriter w(head);
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(kRecordingMagic), sizeof kRecordingMagic));
  w.put(kRecordingVersion);
  const std::string json = header.to_json();
  w.put(static_cast<uint32_t>(json.size()));
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
  write_all(head.data(), head.size());
  records_.raw.reserve(chunk_bytes_ + (64u << 10));
}

// Not O_TRUNC at the open: a file there keeps its mode, and it is made
// private before its bytes go, so one that cannot be keeps them.
void RecordingWriter::start_private_and_empty() {
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) fail(errno);
  if (!S_ISREG(st.st_mode)) return;
  if ((st.st_mode & 07777) != 0600 && ::fchmod(fd_.get(), 0600) != 0)
    throw Error("cannot write output file '" + path_ + "': it cannot be made readable only by its owner: " +
                errno_text(errno) + "; remove it or choose another -o");
  if (st.st_size > 0 && ::ftruncate(fd_.get(), 0) != 0) fail(errno);
}

void RecordingWriter::PendingChunk::start() {
  if (records == 0) started = std::chrono::steady_clock::now();
}

namespace {

uint32_t holds_of(const Record& record) {
  if (std::holds_alternative<SampleView>(record)) return kHoldsSamples;
  if (std::holds_alternative<ImageRecord>(record)) return kHoldsImages;
  if (std::holds_alternative<EndRecord>(record)) return kHoldsEnd;
  return 0;
}

// Whether a record goes to the off-CPU timing chunks.
bool off_cpu_timing(const Record& record) {
  return std::holds_alternative<SwitchRecord>(record) || std::holds_alternative<OffCpuRepeatRecord>(record);
}

}  // namespace

void RecordingWriter::write(const Record& record) {
  const auto* sample = std::get_if<SampleView>(&record);
  if (sample || off_cpu_timing(record)) index_.latest_time = std::max(index_.latest_time, *time_of(record));
  PendingChunk& chunk = off_cpu_timing(record) ? timing_ : records_;
  chunk.start();
  chunk.encoder.encode(record, chunk.raw);
  ++chunk.records;
  chunk.holds |= holds_of(record);
  if (sample && sample->off_cpu) {
    timing_.start();
    RecordEncoder::encode_off_cpu_sample_time(*sample, timing_.raw);
    ++timing_.records;
    if (&chunk != &timing_ && timing_.raw.size() >= chunk_bytes_) flush(timing_);
  }
  if (chunk.raw.size() >= chunk_bytes_) flush(chunk);
}

void RecordingWriter::flush_if_older_than(std::chrono::milliseconds max_age) {
  const auto now = std::chrono::steady_clock::now();
  for (PendingChunk* chunk : {&records_, &timing_})
    if (chunk->records > 0 && now - chunk->started >= max_age) flush(*chunk);
}

void RecordingWriter::flush() {
  flush(records_);
  flush(timing_);
}

void RecordingWriter::flush(PendingChunk& chunk) {
  if (chunk.records == 0) return;
  const uint64_t offset = file_bytes_;
  const uint32_t bytes = write_chunk(chunk.magic, chunk.raw, chunk.records);
  index_.chunks.push_back({offset, bytes, chunk.magic == kTimingChunkMagic ? kHoldsOffCpuTiming : chunk.holds});
  chunk.raw.clear();
  chunk.records = 0;
  chunk.holds = 0;
  chunk.encoder.reset();  // chunks decode independently
}

uint32_t RecordingWriter::write_chunk(uint32_t magic, const std::vector<uint8_t>& raw, uint32_t records) {
  const size_t bound = ZSTD_compressBound(raw.size());
  compressed_.resize(kChunkHeaderSize + bound);
  const size_t n = ZSTD_compress2(cctx_.get(), compressed_.data() + kChunkHeaderSize, bound, raw.data(), raw.size());
  if (ZSTD_isError(n)) throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  const uint32_t fields[4] = {magic, static_cast<uint32_t>(raw.size()), static_cast<uint32_t>(n), records};
  std::memcpy(compressed_.data(), fields, sizeof fields);
  // One write per chunk: a cut file ends at a chunk boundary or inside the last chunk.
  write_all(compressed_.data(), kChunkHeaderSize + n);
  return static_cast<uint32_t>(kChunkHeaderSize + n);
}

// After the last chunk: a reader finds it from the file's end (recording_index.h).
void RecordingWriter::write_index() {
  index_.index_offset = file_bytes_;
  const std::vector<uint8_t> body = encode_index_body(index_);
  const uint32_t bytes = write_chunk(kIndexChunkMagic, body, static_cast<uint32_t>(index_.chunks.size()));
  const std::vector<uint8_t> trailer = encode_index_trailer(index_.index_offset, bytes);
  write_all(trailer.data(), trailer.size());
}

void RecordingWriter::finish(const EndRecord& end) {
  write(end);
  flush();
  write_index();
  if (fsync(fd_.get()) != 0 && errno != EINVAL) fail(errno);
}

void RecordingWriter::write_all(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_.get(), p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    p += w;
    n -= static_cast<size_t>(w);
    file_bytes_ += static_cast<uint64_t>(w);
  }
}

void RecordingWriter::fail(int err) const {
  throw Error("cannot write output file '" + path_ + "': " + errno_text(err));
}

std::optional<std::string> previous_recording_name(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return std::nullopt;
  return path + ".old";
}

std::optional<std::string> keep_previous_recording(const std::string& path) {
  auto old = previous_recording_name(path);
  if (old && ::rename(path.c_str(), old->c_str()) != 0)
    throw Error("cannot keep the previous recording '" + path + "' as '" + *old + "': " + errno_text(errno));
  return old;
}

}  // namespace swprof
