#include "recording/recording_index.h"

#include <zstd.h>

#include <array>

#include "recording/recording_bytes.h"
#include "recording/recording_format.h"

namespace swprof {
namespace {

struct Trailer {
  uint64_t index_offset = 0;
  uint32_t index_bytes = 0;
};

std::optional<Trailer> parse_trailer(Bytes bytes) {
  ByteReader r(bytes);
  Trailer t;
  const auto magic = r.read<uint32_t>();
  if (!magic || *magic != kIndexTrailerMagic || !r.read_into(t.index_bytes) || !r.read_into(t.index_offset))
    return std::nullopt;
  return t;
}

// The index chunk (header + zstd frame) decompressed and parsed.
std::optional<RecordingIndex> parse_index_chunk(Bytes chunk, uint64_t first_chunk, uint64_t index_offset) {
  ByteReader r(chunk);
  std::array<uint32_t, 4> fields;
  if (!r.read_into(fields)) return std::nullopt;
  const auto [magic, raw_size, compressed_size, count] = fields;
  // The body's size follows from the count: nothing is allocated for a claim the count does not back.
  if (magic != kIndexChunkMagic || compressed_size != r.remaining() ||
      raw_size != kIndexBodyHeaderSize + uint64_t{count} * kIndexEntrySize || raw_size > kMaxChunkRawSize ||
      compressed_size > ZSTD_compressBound(raw_size))
    return std::nullopt;
  std::vector<uint8_t> body(raw_size);
  const size_t n = ZSTD_decompress(body.data(), body.size(), chunk.data() + kChunkHeaderSize, compressed_size);
  if (ZSTD_isError(n) || n != raw_size) return std::nullopt;
  return parse_index_body(Bytes(body.data(), body.size()), count, first_chunk, index_offset);
}

}  // namespace

std::vector<uint8_t> encode_index_body(const RecordingIndex& index) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.put(index.latest_time);
  for (const IndexedChunk& c : index.chunks) {
    w.put(c.offset);
    w.put(c.bytes);
    w.put(c.holds);
  }
  return out;
}

std::vector<uint8_t> encode_index_trailer(uint64_t index_offset, uint32_t index_bytes) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.put(kIndexTrailerMagic);
  w.put(index_bytes);
  w.put(index_offset);
  return out;
}

std::optional<RecordingIndex> parse_index_body(Bytes body, uint32_t entry_count, uint64_t first_chunk,
                                               uint64_t index_offset) {
  ByteReader r(body);
  RecordingIndex index;
  index.index_offset = index_offset;
  if (!r.read_into(index.latest_time) || r.remaining() != uint64_t{entry_count} * kIndexEntrySize)
    return std::nullopt;
  // Each chunk is at least a header long: no more entries than that allows.
  if (index_offset < first_chunk || entry_count > (index_offset - first_chunk) / kChunkHeaderSize) return std::nullopt;
  index.chunks.reserve(entry_count);
  uint64_t expected = first_chunk;
  for (uint32_t i = 0; i < entry_count; ++i) {
    IndexedChunk c;
    if (!r.read_into(c.offset) || !r.read_into(c.bytes) || !r.read_into(c.holds)) return std::nullopt;
    if (c.offset != expected || c.bytes < kChunkHeaderSize || c.bytes > index_offset - c.offset ||
        (c.holds & ~kKnownChunkHolds) != 0 || (c.timing() && c.holds != kHoldsOffCpuTiming))
      return std::nullopt;
    expected = c.end();
    index.chunks.push_back(c);
  }
  if (expected != index_offset) return std::nullopt;
  return index;
}

std::optional<RecordingIndex> read_recording_index(const RecordingBytes& file, uint64_t first_chunk) {
  const uint64_t size = file.size();
  if (size == UINT64_MAX || size < first_chunk + kChunkHeaderSize + kIndexTrailerSize) return std::nullopt;
  uint8_t trailer_bytes[kIndexTrailerSize];
  if (file.read_at(trailer_bytes, sizeof trailer_bytes, size - kIndexTrailerSize) != sizeof trailer_bytes)
    return std::nullopt;
  const auto trailer = parse_trailer(Bytes(trailer_bytes, sizeof trailer_bytes));
  if (!trailer || trailer->index_bytes < kChunkHeaderSize || trailer->index_bytes > size - kIndexTrailerSize ||
      trailer->index_offset != size - kIndexTrailerSize - trailer->index_bytes || trailer->index_offset < first_chunk)
    return std::nullopt;
  std::vector<uint8_t> chunk(trailer->index_bytes);  // within the file: checked above
  if (file.read_at(chunk.data(), chunk.size(), trailer->index_offset) != chunk.size()) return std::nullopt;
  return parse_index_chunk(Bytes(chunk.data(), chunk.size()), first_chunk, trailer->index_offset);
}

}  // namespace swprof
