#include "recording/recording_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/byte_reader.h"
#include "common/error.h"

namespace swprof {

RecordingWriter::RecordingWriter(const std::string& path, const RecordingHeader& header, size_t chunk_bytes)
    : path_(path), chunk_bytes_(chunk_bytes), cctx_(ZSTD_createCCtx()) {
  fd_.reset(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd_.valid()) throw Error("cannot write output file '" + path + "': " + errno_text(errno));
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
  raw_.reserve(chunk_bytes_ + (64u << 10));
  chunk_started_ = std::chrono::steady_clock::now();
}

void RecordingWriter::write(const Record& record) {
  if (pending_records_ == 0) chunk_started_ = std::chrono::steady_clock::now();
  encoder_.encode(record, raw_);
  ++pending_records_;
  if (raw_.size() >= chunk_bytes_) flush();
}

void RecordingWriter::flush_if_older_than(std::chrono::milliseconds max_age) {
  if (pending_records_ > 0 && std::chrono::steady_clock::now() - chunk_started_ >= max_age) flush();
}

void RecordingWriter::flush() {
  if (pending_records_ == 0) return;
  const size_t bound = ZSTD_compressBound(raw_.size());
  compressed_.resize(kChunkHeaderSize + bound);
  const size_t n = ZSTD_compress2(cctx_.get(), compressed_.data() + kChunkHeaderSize, bound, raw_.data(), raw_.size());
  if (ZSTD_isError(n)) throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  const uint32_t fields[4] = {kChunkMagic, static_cast<uint32_t>(raw_.size()), static_cast<uint32_t>(n),
                              pending_records_};
  std::memcpy(compressed_.data(), fields, sizeof fields);
  // One write per chunk: a cut file ends at a chunk boundary or inside the last chunk.
  write_all(compressed_.data(), kChunkHeaderSize + n);
  raw_.clear();
  pending_records_ = 0;
  encoder_.reset();  // chunks decode independently
}

void RecordingWriter::finish(const EndRecord& end) {
  write(end);
  flush();
  if (fsync(fd_.get()) != 0 && errno != EINVAL)
    throw Error("cannot write output file '" + path_ + "': " + errno_text(errno));
}

void RecordingWriter::write_all(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_.get(), p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write output file '" + path_ + "': " + errno_text(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
    file_bytes_ += static_cast<uint64_t>(w);
  }
}

}  // namespace swprof
