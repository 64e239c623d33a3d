// Fuzz target: the chunk index a finished recording ends with
// (recording/recording_index.h). The input is read two ways:
//   - as a file image: read_recording_index finds its trailer and index
//     chunk, with the chunks starting at byte 16;
//   - as u64 first_chunk, u64 index_offset, then an index body (what the
//     index chunk's zstd frame holds, which its checksum keeps most
//     mutations of a file image from reaching): parse_index_body.
// An index either is refused or lists chunks lying back to back from the
// first chunk to the index, saying only what ChunkHolds knows.

#include "fuzz/fuzz_target.h"
#include "recording/recording_bytes.h"
#include "recording/recording_index.h"

namespace {

void check(const swprof::RecordingIndex& index, uint64_t first_chunk) {
  uint64_t at = first_chunk;
  for (const swprof::IndexedChunk& c : index.chunks) {
    SWPROF_FUZZ_CHECK(c.offset == at && c.bytes >= 16 && (c.holds & ~swprof::kKnownChunkHolds) == 0);
    at = c.end();
  }
  SWPROF_FUZZ_CHECK(at == index.index_offset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const swprof::Bytes input(data, size);
  constexpr uint64_t kFirstChunk = 16;
  const auto file = swprof::RecordingBytes::in_memory(input, "fuzz.swprof");
  if (auto index = swprof::read_recording_index(*file, kFirstChunk)) {
    check(*index, kFirstChunk);
    SWPROF_FUZZ_CHECK(index->index_offset < size);
  }
  swprof::ByteReader r(input);
  uint64_t first_chunk = 0, index_offset = 0;
  if (!r.read_into(first_chunk) || !r.read_into(index_offset)) return 0;
  const swprof::Bytes body = input.subspan(16);
  const auto entries = static_cast<uint32_t>(body.size() >= 8 ? (body.size() - 8) / swprof::kIndexEntrySize : 0);
  if (auto index = swprof::parse_index_body(body, entries, first_chunk, index_offset)) {
    check(*index, first_chunk);
    SWPROF_FUZZ_CHECK(index->chunks.size() == entries);
  }
  return 0;
}
