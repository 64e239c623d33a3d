#pragma once
// Archive files built byte by byte (docs/archive-format.md), holding any
// frame a test gives: hostile archives the writer would never make.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof::testing {

struct ArchiveImageEntry {
  uint8_t kind = 0;  // 0 binary, 1 debuginfo
  std::vector<uint8_t> build_id;
  std::string path;
  std::vector<uint8_t> frame;  // the entry's zstd frame, as stored
  uint64_t raw_size = 0;       // what the index says it inflates to
};

// The whole file: header, the frames one after the other, index, trailer.
std::vector<uint8_t> archive_image(const std::vector<ArchiveImageEntry>& entries);

// A zstd frame (RFC 8878) of `size` zero bytes, its content size in its
// header, made of RLE blocks of 128 KiB: 4 bytes for each, so a few KB
// claim and inflate to a GiB. No checksum.
std::vector<uint8_t> zstd_zero_frame(uint64_t size);

}  // namespace swprof::testing
