#include "recording/recording_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace swprof {

RecordingReader::RecordingReader(const std::string& path) : path_(path), dctx_(ZSTD_createDCtx()) {
  fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd_.valid()) throw Error("cannot open recording '" + path + "': " + errno_text(errno));
  struct stat st;
  if (fstat(fd_.get(), &st) == 0) status_.file_bytes = static_cast<uint64_t>(st.st_size);
  if (S_ISDIR(st.st_mode)) throw Error("cannot open recording '" + path + "': it is a directory");
  read_header();
}

RecordingReader::RecordingReader(Bytes image, const std::string& name)
    : path_(name), image_(image), dctx_(ZSTD_createDCtx()) {
  status_.file_bytes = image.size();
  read_header();
}

void RecordingReader::read_header() {
  const std::string& path = path_;
  uint8_t fixed[16];
  const size_t got = read_fully(fixed, sizeof fixed);
  ByteReader r(Bytes(fixed, got));
  auto magic = r.bytes(sizeof kRecordingMagic);
  if (magic && is_perf_data(magic->data(), magic->size())) throw Error(perf_data_not_recording(path));
  if (!magic || std::memcmp(magic->data(), kRecordingMagic, sizeof kRecordingMagic) != 0)
    throw Error("'" + path + "' is not a swprof recording (bad magic)");
  auto version = r.read<uint32_t>();
  auto header_len = r.read<uint32_t>();
  if (!version || !header_len) throw Error("recording '" + path + "' is truncated inside its header");
  if (*version < kOldestRecordingVersion || *version > kRecordingVersion)
    throw Error("recording '" + path + "' has format version " + std::to_string(*version) +
                "; this swprof reads versions " + std::to_string(kOldestRecordingVersion) + " to " +
                std::to_string(kRecordingVersion));
  if (*header_len > (16u << 20)) throw Error("recording '" + path + "' has a damaged header (length)");
  if (status_.file_bytes && *header_len > status_.file_bytes - offset_)  // never allocate more than the file holds
    throw Error("recording '" + path + "' is truncated inside its header");
  std::string json(*header_len, '\0');
  if (read_fully(json.data(), json.size()) != json.size())
    throw Error("recording '" + path + "' is truncated inside its header");
  try {
    header_ = RecordingHeader::from_json(json);
  } catch (const Error& e) {
    throw Error("recording '" + path + "': " + e.what());
  }
  // Recordings that do not say (0) get the kernel's largest.
  if (header_.stack_size) decoder_.set_max_stack_size(header_.stack_size);
  status_.good_bytes = offset_;
}

size_t RecordingReader::read_fully(void* dst, size_t n) {
  auto* p = static_cast<uint8_t*>(dst);
  if (image_) {
    const size_t done = static_cast<size_t>(std::min<uint64_t>(n, image_->size() - std::min<uint64_t>(offset_, image_->size())));
    if (done) std::memcpy(p, image_->data() + offset_, done);
    offset_ += done;
    return done;
  }
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::read(fd_.get(), p + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  offset_ += done;
  return done;
}

uint64_t RecordingReader::bytes_left() {
  struct stat st;  // asked again: the file may still be growing
  if (fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) return UINT64_MAX;
  status_.file_bytes = static_cast<uint64_t>(st.st_size);
  return status_.file_bytes - std::min(offset_, status_.file_bytes);
}

void RecordingReader::stop(ReadStatus::State state, const std::string& problem) {
  status_.state = state;
  status_.problem = problem;
}

bool RecordingReader::load_chunk() {
  const uint64_t chunk_at = offset_;
  uint32_t fields[4];
  const size_t got = read_fully(fields, sizeof fields);
  if (got == 0) {
    stop(ReadStatus::State::kComplete, "");
    return false;
  }
  const std::string where = "chunk " + std::to_string(status_.chunks + 1) + " at byte " + std::to_string(chunk_at);
  if (got < sizeof fields) {
    stop(ReadStatus::State::kTruncated, "file ends inside the header of " + where);
    return false;
  }
  const auto [magic, raw_size, compressed_size, count] = fields;
  if (magic != kChunkMagic || raw_size > kMaxChunkRawSize || compressed_size > ZSTD_compressBound(raw_size)) {
    stop(ReadStatus::State::kCorrupt, "damaged header of " + where);
    return false;
  }
  if (compressed_size > bytes_left()) {  // checked before allocating
    stop(ReadStatus::State::kTruncated, "file ends inside " + where);
    return false;
  }
  compressed_.resize(compressed_size);
  if (read_fully(compressed_.data(), compressed_size) != compressed_size) {
    stop(ReadStatus::State::kTruncated, "file ends inside " + where);
    return false;
  }
  raw_.resize(raw_size);
  const size_t n = ZSTD_decompressDCtx(dctx_.get(), raw_.data(), raw_.size(), compressed_.data(), compressed_.size());
  if (ZSTD_isError(n) || n != raw_size) {
    stop(ReadStatus::State::kCorrupt,
         "damaged data in " + where + (ZSTD_isError(n) ? std::string(" (") + ZSTD_getErrorName(n) + ")" : ""));
    return false;
  }
  cursor_ = ByteReader(Bytes(raw_.data(), raw_.size()));
  chunk_records_left_ = count;
  decoder_.reset();
  ++status_.chunks;
  status_.good_bytes = offset_;
  return true;
}

std::optional<Record> RecordingReader::next() {
  while (status_.state == ReadStatus::State::kReading) {
    if (chunk_records_left_ == 0) {
      if (!cursor_.at_end()) {
        stop(ReadStatus::State::kCorrupt, "chunk " + std::to_string(status_.chunks) + " holds more bytes than its records");
        return std::nullopt;
      }
      if (!load_chunk()) return std::nullopt;
      continue;
    }
    DecodeResult result = decoder_.decode(cursor_);
    --chunk_records_left_;
    if (result.status == DecodeResult::Status::kCorrupt) {
      stop(ReadStatus::State::kCorrupt, "damaged record in chunk " + std::to_string(status_.chunks));
      return std::nullopt;
    }
    if (result.status == DecodeResult::Status::kUnknownType) {
      ++status_.unknown_records;
      continue;
    }
    ++status_.records;
    if (std::holds_alternative<EndRecord>(result.record)) status_.finalized = true;
    return std::move(result.record);
  }
  return std::nullopt;
}

}  // namespace swprof
