#include "recording/trailing_images.h"

#include <algorithm>
#include <zstd.h>

#include "common/error.h"
#include "recording/recording_bytes.h"
#include "recording/recording_format.h"
#include "recording/recording_reader.h"

namespace swprof {
namespace {

// Chunks decoded at most, from the end: images are few and come last.
constexpr size_t kMaxTrailingChunks = 64;

struct ChunkSpan {
  uint64_t offset;
  uint64_t bytes;  // header + compressed data
};

// The whole chunks of records from `offset` on, by their headers alone
// (off-CPU timing chunks hold no images nor samples: passed over).
std::vector<ChunkSpan> chunk_spans(const RecordingBytes& file, uint64_t offset, uint64_t file_bytes) {
  std::vector<ChunkSpan> out;
  uint32_t fields[4];
  while (offset + kChunkHeaderSize <= file_bytes && file.read_at(fields, sizeof fields, offset) == sizeof fields) {
    const auto [magic, raw_size, compressed_size, count] = fields;
    (void)count;
    if ((magic != kChunkMagic && magic != kTimingChunkMagic) || raw_size > kMaxChunkRawSize ||
        compressed_size > ZSTD_compressBound(raw_size) || compressed_size > file_bytes - offset - kChunkHeaderSize)
      break;  // the end of the chunks (a chunk index, a cut or damage)
    if (magic == kChunkMagic) out.push_back({offset, kChunkHeaderSize + compressed_size});
    offset += kChunkHeaderSize + compressed_size;
  }
  return out;
}

// The recording's header and one of its chunks, read as a recording of
// that one chunk: its images are appended to `images`. True when the
// chunk holds a sample.
bool chunk_images(const RecordingBytes& file, const std::vector<uint8_t>& head, const ChunkSpan& chunk,
                  std::vector<StoredImage>& images) {
  std::vector<uint8_t> image(head.size() + static_cast<size_t>(chunk.bytes));
  std::copy(head.begin(), head.end(), image.begin());
  if (file.read_at(image.data() + head.size(), chunk.bytes, chunk.offset) != chunk.bytes) return true;
  RecordingReader reader(Bytes(image.data(), image.size()), file.path());
  bool sample = false;
  while (auto rec = reader.next()) {
    if (auto* img = std::get_if<ImageRecord>(&*rec))
      images.push_back({img->name, std::vector<uint8_t>(img->bytes.begin(), img->bytes.end())});
    sample = sample || std::holds_alternative<SampleView>(*rec);
  }
  return sample;
}

std::vector<StoredImage> trailing_images(const RecordingReader& checked) {
  const RecordingBytes& file = *checked.file();
  const uint64_t header_end = checked.header_bytes();
  const uint64_t file_bytes = file.size();
  if (file_bytes == UINT64_MAX) return {};  // not a regular file
  std::vector<uint8_t> head(header_end);
  if (file.read_at(head.data(), head.size(), 0) != head.size()) return {};
  const std::vector<ChunkSpan> chunks = chunk_spans(file, header_end, file_bytes);
  std::vector<std::vector<StoredImage>> by_chunk;  // last chunk first
  for (size_t i = chunks.size(); i-- > 0 && by_chunk.size() < kMaxTrailingChunks;) {
    by_chunk.emplace_back();
    if (chunk_images(file, head, chunks[i], by_chunk.back())) break;
  }
  std::vector<StoredImage> out;
  for (auto it = by_chunk.rbegin(); it != by_chunk.rend(); ++it)
    for (StoredImage& img : *it) out.push_back(std::move(img));
  return out;
}

}  // namespace

std::vector<StoredImage> read_trailing_images(const std::string& path) {
  try {
    return RecordingReader(path).trailing_images();  // the header checked: magic, version, length
  } catch (const Error&) {
    return {};
  }
}

std::vector<StoredImage> read_trailing_images(const RecordSource& source) {
  const auto* recording = dynamic_cast<const RecordingReader*>(&source);
  if (!recording) return {};
  try {
    return trailing_images(*recording);
  } catch (const Error&) {
    return {};
  }
}

}  // namespace swprof
