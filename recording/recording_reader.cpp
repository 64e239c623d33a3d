#include "recording/recording_reader.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "recording/trailing_images.h"

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
  const Bytes head = file_->head();
  ByteReader r(head.first(std::min<size_t>(head.size(), 16)));
  const size_t got = r.remaining();
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
  version_ = *version;
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

const RecordingIndex* RecordingReader::index() {
  const bool started = prefetcher_ || loader_ || status_.state != ReadStatus::State::kReading;
  if (!index_read_ && !started && version_ >= 4) {
    index_read_ = true;
    index_ = read_recording_index(*file_, header_bytes_);
    if (index_) {
      plan_ = std::make_shared<ChunkPlan>();
      plan_->chunks = index_->chunks;
    }
  }
  return index_ && !started ? &*index_ : nullptr;
}

const LoadedChunk* RecordingReader::read_ahead(size_t i) {
  const IndexedChunk& c = index_->chunks[i];
  if (auto it = plan_->loaded.find(c.offset); it != plan_->loaded.end()) return it->second.get();
  if (!ahead_) ahead_ = std::make_unique<ChunkLoader>(file_, header_bytes_, status_.file_bytes);
  auto chunk = std::make_unique<LoadedChunk>();
  ahead_->load_indexed(c, i + 1, *chunk);
  if (!chunk->good()) return nullptr;
  return (plan_->loaded[c.offset] = std::move(chunk)).get();
}

bool RecordingReader::decode_chunk(const LoadedChunk& chunk, const std::function<void(DecodeResult&)>& each) const {
  RecordDecoder decoder;
  if (header_.stack_size) decoder.set_max_stack_size(header_.stack_size);
  ByteReader r(Bytes(chunk.raw.data(), chunk.raw.size()));
  for (uint32_t i = 0; i < chunk.count; ++i) {
    DecodeResult result = decoder.decode(r);
    if (result.status == DecodeResult::Status::kCorrupt) return false;
    if (result.status == DecodeResult::Status::kOk) each(result);
  }
  return true;
}

std::vector<StoredImage> RecordingReader::trailing_images() {
  const RecordingIndex* idx = index();
  if (!idx) return read_trailing_images(*this);  // by the chunk headers
  size_t first = 0;  // the last chunk holding a sample
  for (size_t i = idx->chunks.size(); i-- > 0;)
    if (idx->chunks[i].holds & kHoldsSamples) {
      first = i;
      break;
    }
  std::vector<StoredImage> out;
  for (size_t i = first; i < idx->chunks.size(); ++i) {
    if (!(idx->chunks[i].holds & kHoldsImages)) continue;
    const LoadedChunk* chunk = read_ahead(i);
    if (!chunk) continue;
    decode_chunk(*chunk, [&](DecodeResult& r) {
      if (const auto* img = std::get_if<ImageRecord>(&r.record))
        out.push_back({img->name, std::vector<uint8_t>(img->bytes.begin(), img->bytes.end())});
    });
  }
  return out;
}

uint64_t RecordingReader::read_off_cpu_records(const std::function<void(const Record&)>& each) {
  const RecordingIndex* idx = index();
  if (!idx) return RecordSource::read_off_cpu_records(each);  // the whole file, read again
  LoadedChunk chunk;
  for (size_t i = 0; i < idx->chunks.size(); ++i) {
    const IndexedChunk& c = idx->chunks[i];
    if (!c.timing()) continue;
    if (!ahead_) ahead_ = std::make_unique<ChunkLoader>(file_, header_bytes_, status_.file_bytes);
    ahead_->load_indexed(c, i + 1, chunk);
    // A damaged chunk: next() reads it again and stops there, as it stops the off-CPU records here.
    if (!chunk.good() || !decode_chunk(chunk, [&](DecodeResult& r) { each(r.record); })) break;
    plan_->passed.insert(c.offset);
  }
  for (size_t i = idx->chunks.size(); i-- > 0;) {
    if (!(idx->chunks[i].holds & kHoldsEnd)) continue;
    if (const LoadedChunk* last = read_ahead(i))
      decode_chunk(*last, [&](DecodeResult& r) {
        if (std::holds_alternative<EndRecord>(r.record)) each(r.record);
      });
    break;
  }
  return idx->latest_time;
}

void RecordingReader::stop(ReadStatus::State state, const std::string& problem) {
  status_.state = state;
  status_.problem = problem;
}

bool RecordingReader::next_chunk() {
  if (!prefetcher_ && !loader_) {
    ahead_.reset();
    if (file_->in_memory()) loader_ = std::make_unique<ChunkLoader>(file_, header_bytes_, status_.file_bytes, plan_);
    else prefetcher_ = std::make_unique<ChunkPrefetcher>(file_, header_bytes_, status_.file_bytes, 1, plan_);
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
    if (result.type == RecordType::kOffCpuSampleTime) continue;  // for read_off_cpu_records: the sample is in its own chunk
    ++status_.records;
    if (std::holds_alternative<EndRecord>(result.record)) status_.finalized = true;
    return std::move(result.record);
  }
  return std::nullopt;
}

}  // namespace swprof
