#include "support/archive_image.h"

#include <cstring>

namespace swprof::testing {
namespace {

template <class T>
void put(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

void put_text(std::vector<uint8_t>& out, const std::string& text) { out.insert(out.end(), text.begin(), text.end()); }

}  // namespace

std::vector<uint8_t> archive_image(const std::vector<ArchiveImageEntry>& entries) {
  std::vector<uint8_t> out;
  put_text(out, std::string("\x89SWPARC\n", 8));
  put(out, uint32_t{1});
  put(out, uint32_t{0});
  std::vector<uint64_t> offsets;
  for (const ArchiveImageEntry& e : entries) {
    offsets.push_back(out.size());
    out.insert(out.end(), e.frame.begin(), e.frame.end());
  }
  const uint64_t index_offset = out.size();
  for (size_t i = 0; i < entries.size(); ++i) {
    const ArchiveImageEntry& e = entries[i];
    put(out, e.kind);
    put(out, static_cast<uint8_t>(e.build_id.size()));
    out.insert(out.end(), e.build_id.begin(), e.build_id.end());
    put(out, static_cast<uint16_t>(e.path.size()));
    put_text(out, e.path);
    put(out, offsets[i]);
    put(out, static_cast<uint64_t>(e.frame.size()));
    put(out, e.raw_size);
  }
  const uint64_t index_size = out.size() - index_offset;
  put(out, index_offset);
  put(out, static_cast<uint32_t>(entries.size()));
  put(out, static_cast<uint32_t>(index_size));
  put_text(out, "SWPARCIX");
  return out;
}

std::vector<uint8_t> zstd_zero_frame(uint64_t size) {
  constexpr uint32_t kBlock = 128 << 10;  // the largest block, and the window
  std::vector<uint8_t> out;
  put(out, uint32_t{0xFD2FB528});  // magic
  put(out, uint8_t{0xC0});         // 8-byte content size; a window descriptor; no checksum, no dictionary
  put(out, uint8_t{(17 - 10) << 3});  // window 2^17 bytes
  put(out, size);
  uint64_t left = size;
  do {
    const uint32_t n = static_cast<uint32_t>(left < kBlock ? left : kBlock);
    left -= n;
    const uint32_t header = (n << 3) | (1u << 1) | (left == 0 ? 1u : 0u);  // an RLE block, last or not
    out.push_back(static_cast<uint8_t>(header));
    out.push_back(static_cast<uint8_t>(header >> 8));
    out.push_back(static_cast<uint8_t>(header >> 16));
    out.push_back(0);  // the byte repeated
  } while (left > 0);
  return out;
}

}  // namespace swprof::testing
