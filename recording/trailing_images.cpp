#include "recording/trailing_images.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <zstd.h>

#include "common/error.h"
#include "common/unique_fd.h"
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

bool pread_fully(int fd, void* dst, size_t n, uint64_t offset) {
  auto* p = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// The whole chunks from `offset` on, by their headers alone.
std::vector<ChunkSpan> chunk_spans(int fd, uint64_t offset, uint64_t file_bytes) {
  std::vector<ChunkSpan> out;
  uint32_t fields[4];
  while (offset + kChunkHeaderSize <= file_bytes && pread_fully(fd, fields, sizeof fields, offset)) {
    const auto [magic, raw_size, compressed_size, count] = fields;
    (void)count;
    if (magic != kChunkMagic || raw_size > kMaxChunkRawSize || compressed_size > ZSTD_compressBound(raw_size) ||
        compressed_size > file_bytes - offset - kChunkHeaderSize)
      break;
    out.push_back({offset, kChunkHeaderSize + compressed_size});
    offset += kChunkHeaderSize + compressed_size;
  }
  return out;
}

// The recording's header and one of its chunks, read as a recording of
// that one chunk: its images are appended to `images`. True when the
// chunk holds a sample.
bool chunk_images(const std::string& path, const std::vector<uint8_t>& head, int fd, const ChunkSpan& chunk,
                  std::vector<StoredImage>& images) {
  std::vector<uint8_t> image(head.size() + static_cast<size_t>(chunk.bytes));
  std::copy(head.begin(), head.end(), image.begin());
  if (!pread_fully(fd, image.data() + head.size(), chunk.bytes, chunk.offset)) return true;
  RecordingReader reader(Bytes(image.data(), image.size()), path);
  bool sample = false;
  while (auto rec = reader.next()) {
    if (auto* img = std::get_if<ImageRecord>(&*rec))
      images.push_back({img->name, std::vector<uint8_t>(img->bytes.begin(), img->bytes.end())});
    sample = sample || std::holds_alternative<SampleView>(*rec);
  }
  return sample;
}

}  // namespace

std::vector<StoredImage> read_trailing_images(const std::string& path) {
  try {
    RecordingReader checked(path);  // the header: magic, version, length
    const uint64_t header_end = checked.status().good_bytes;
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st;
    if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    std::vector<uint8_t> head(header_end);
    if (!pread_fully(fd.get(), head.data(), head.size(), 0)) return {};
    const std::vector<ChunkSpan> chunks = chunk_spans(fd.get(), header_end, static_cast<uint64_t>(st.st_size));
    std::vector<std::vector<StoredImage>> by_chunk;  // last chunk first
    for (size_t i = chunks.size(); i-- > 0 && by_chunk.size() < kMaxTrailingChunks;) {
      by_chunk.emplace_back();
      if (chunk_images(path, head, fd.get(), chunks[i], by_chunk.back())) break;
    }
    std::vector<StoredImage> out;
    for (auto it = by_chunk.rbegin(); it != by_chunk.rend(); ++it)
      for (StoredImage& img : *it) out.push_back(std::move(img));
    return out;
  } catch (const Error&) {
    return {};
  }
}

}  // namespace swprof
