#include "recording/recording_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  raw_.reserve(chunk_bytes_ + (64u << 10));
  chunk_started_ = std::chrono::steady_clock::now();
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
