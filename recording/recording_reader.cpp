#include "recording/recording_reader.h"

#include <cstring>

#include "common/error.h"

namespace swprof {

RecordingReader::RecordingReader(const std::string& path)
    : RecordingReader(RecordingBytes::open(path, "recording")) {}

RecordingReader::RecordingReader(Bytes image, const std::string& name)
    : RecordingReader(RecordingBytes::in_memory(image, name)) {}

RecordingReader::RecordingReader(std::shared_ptr<const RecordingBytes> file) : file_(std::move(file)) {
  status_.file_bytes = file_->size_at_open();
  read_header();
}

RecordingReader::~RecordingReader() = default;

std::unique_ptr<RecordSource> RecordingReader::reread() const { return std::make_unique<RecordingReader>(file_); }

void RecordingReader::read_header() {
  const std::string& path = file_->path();
  uint8_t fixed[16];
  const size_t got = file_->read_at(fixed, sizeof fixed, 0);
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
  if (status_.file_bytes && *header_len > status_.file_bytes - got)  // never allocate more than the file holds
    throw Error("recording '" + path + "' is truncated inside its header");
  std::string json(*header_len, '\0');
  if (file_->read_at(json.data(), json.size(), got) != json.size())
    throw Error("recording '" + path + "' is truncated inside its header");
  try {
    header_ = RecordingHeader::from_json(json);
  } catch (const Error& e) {
    throw Error("recording '" + path + "': " + e.what());
  }
  // Recordings that do not say (0) get the kernel's largest.
  if (header_.stack_size) decoder_.set_max_stack_size(header_.stack_size);
  header_bytes_ = got + json.size();
  status_.good_bytes = header_bytes_;
}

void RecordingReader::stop(ReadStatus::State state, const std::string& problem) {
  status_.state = state;
  status_.problem = problem;
}

bool RecordingReader::next_chunk() {
  if (!prefetcher_ && !loader_) {
    if (file_->in_memory()) loader_ = std::make_unique<ChunkLoader>(file_, header_bytes_, status_.file_bytes);
    else prefetcher_ = std::make_unique<ChunkPrefetcher>(file_, header_bytes_, status_.file_bytes);
  }
  if (prefetcher_) {
    chunk_ = prefetcher_->next(std::move(chunk_));
  } else {
    if (!chunk_) chunk_ = std::make_unique<LoadedChunk>();
    loader_->load(*chunk_);
  }
  status_.file_bytes = chunk_->file_bytes;
  if (!chunk_->good()) {
    stop(chunk_->state, chunk_->problem);
    prefetcher_.reset();  // its thread and chunk buffers are no longer needed
    chunk_.reset();
    return false;
  }
  cursor_ = ByteReader(Bytes(chunk_->raw.data(), chunk_->raw.size()));
  chunk_records_left_ = chunk_->count;
  decoder_.reset();
  ++status_.chunks;
  status_.good_bytes = chunk_->end_offset;
  return true;
}

std::optional<Record> RecordingReader::next() {
  while (status_.state == ReadStatus::State::kReading) {
    if (chunk_records_left_ == 0) {
      if (!cursor_.at_end()) {
        stop(ReadStatus::State::kCorrupt, "chunk " + std::to_string(status_.chunks) + " holds more bytes than its records");
        return std::nullopt;
      }
      if (!next_chunk()) return std::nullopt;
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
