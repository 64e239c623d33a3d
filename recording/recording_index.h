#pragma once
// The chunk index a finished recording ends with (format version 4): where
// each chunk is and what it holds. A reader that has it knows the whole file
// from its two ends, and reads every byte once: the images written after the
// last samples and the off-CPU timing chunks first, then the other chunks in
// order, skipping those it has read already. Recordings cut short have no
// index, nor have those written before version 4: their readers walk the
// chunk headers instead.
//
//   index chunk  u32 'SWIX', u32 raw_size, u32 compressed_size, u32 entry_count,
//                then one zstd frame (content checksum on) of raw_size bytes:
//                  u64 latest_time   the latest time of a sample, switch or
//                                    off-CPU repeat record (0: none)
//                  entry_count x { u64 offset, u32 bytes, u32 holds }
//   trailer      u32 'SWIE', u32 index_bytes, u64 index_offset
//                (the file's last 16 bytes)
//
// The entries are the file's chunks in file order, back to back from the end
// of the file header to the index chunk at index_offset; `bytes` counts a
// chunk's header and data, `holds` what it holds (ChunkHolds). index_bytes
// counts the index chunk's header and data.

#include <cstdint>
#include <optional>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

class RecordingBytes;

enum ChunkHolds : uint32_t {
  kHoldsSamples = 1,       // a sample record
  kHoldsImages = 2,        // an image record
  kHoldsEnd = 4,           // the end record
  kHoldsOffCpuTiming = 8,  // an 'SWCT' chunk: switch, off-CPU repeat and off-CPU sample time records only
};
inline constexpr uint32_t kKnownChunkHolds = 15;

struct IndexedChunk {
  uint64_t offset = 0;  // of its header
  uint32_t bytes = 0;   // header + zstd frame
  uint32_t holds = 0;   // ChunkHolds
  uint64_t end() const { return offset + bytes; }
  bool timing() const { return holds & kHoldsOffCpuTiming; }
};

struct RecordingIndex {
  uint64_t latest_time = 0;
  std::vector<IndexedChunk> chunks;
  uint64_t index_offset = 0;  // where the chunks end
};

inline constexpr uint32_t kIndexTrailerMagic = 0x45495753;  // "SWIE" little-endian
inline constexpr size_t kIndexTrailerSize = 16;
inline constexpr size_t kIndexEntrySize = 16;
inline constexpr size_t kIndexBodyHeaderSize = 8;

// The index chunk's body (before compression), for the writer.
std::vector<uint8_t> encode_index_body(const RecordingIndex& index);
// The trailer that ends the file after an index chunk of `index_bytes` at `index_offset`.
std::vector<uint8_t> encode_index_trailer(uint64_t index_offset, uint32_t index_bytes);

// An index body of `entry_count` entries (decompressed), checked: its chunks
// must lie back to back from `first_chunk` (the file header's end) to
// `index_offset`, each at least a chunk header long, and say only what
// ChunkHolds knows. nullopt when it is damaged.
std::optional<RecordingIndex> parse_index_body(Bytes body, uint32_t entry_count, uint64_t first_chunk,
                                               uint64_t index_offset);

// The index of the recording in `file`, whose chunks start at `first_chunk`;
// nullopt when it has none (cut short, written before version 4, read from
// a pipe) or a damaged one. Reads the trailer and the index chunk only.
std::optional<RecordingIndex> read_recording_index(const RecordingBytes& file, uint64_t first_chunk);

}  // namespace swprof
