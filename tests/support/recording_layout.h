#pragma once
// Where a recording file's chunks lie (docs/recording-format.md), found by
// walking their headers from the end of the file header to the end of the
// file or to the chunk index: for tests that cut or damage a recording at a
// chosen place, as Ctrl-C, kill -9 or a full disk would (a recording cut
// short has no index: it is cut inside its chunks).

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "recording/recording_format.h"
#include "support/read_file.h"

namespace swprof::testing {

struct ChunkSpan {
  uint64_t start;
  uint64_t end;
  uint32_t records;
  bool timing;  // an off-CPU timing chunk ('SWCT')
};

inline std::vector<ChunkSpan> chunk_spans(const std::vector<char>& file) {
  const auto u32 = [&](uint64_t at) {
    uint32_t v;
    std::memcpy(&v, file.data() + at, sizeof v);
    return v;
  };
  std::vector<ChunkSpan> spans;
  if (file.size() < 16) return spans;
  uint64_t at = 16 + u32(12);
  while (at + kChunkHeaderSize <= file.size() && (u32(at) == kChunkMagic || u32(at) == kTimingChunkMagic)) {
    spans.push_back({at, at + kChunkHeaderSize + u32(at + 8), u32(at + 12), u32(at) == kTimingChunkMagic});
    at = spans.back().end;
  }
  return spans;
}

// Where the last chunk of the recording at `path` ends (before its index).
inline uint64_t chunks_end(const std::string& path) {
  const std::vector<ChunkSpan> spans = chunk_spans(read_bytes(path));
  return spans.empty() ? 0 : spans.back().end;
}

}  // namespace swprof::testing
