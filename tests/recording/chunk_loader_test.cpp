#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "recording/chunk_loader.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "support/record_fixtures.h"
#include "support/recording_layout.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A recording of `n` comm records in chunks of about 1 KiB; returns where
// its first chunk starts.
uint64_t write_chunks(const std::string& path, int n) {
  RecordingHeader h;
  h.mode = "record";
  h.event = "cpu-clock";
  stamp_header(h);
  {
    RecordingWriter w(path, h, 1 << 10);
    for (int i = 0; i < n; ++i) w.write(CommRecord{static_cast<uint64_t>(i), 1, 1, false, std::string(40, 'a' + i % 26)});
    w.finish(EndRecord{"{}"});
  }
  return RecordingReader(path).header_bytes();
}

struct Loaded {
  std::vector<std::vector<uint8_t>> raw;
  std::vector<uint32_t> counts;
  ReadStatus::State last = ReadStatus::State::kReading;
  std::string problem;
};

Loaded load_inline(const std::shared_ptr<const RecordingBytes>& file, uint64_t at) {
  Loaded out;
  ChunkLoader loader(file, at, file->size());
  for (;;) {
    LoadedChunk c;
    loader.load(c);
    if (!c.good()) {
      out.last = c.state;
      out.problem = c.problem;
      return out;
    }
    out.raw.push_back(c.raw);
    out.counts.push_back(c.count);
  }
}

Loaded load_prefetched(const std::shared_ptr<const RecordingBytes>& file, uint64_t at, size_t ahead) {
  Loaded out;
  ChunkPrefetcher prefetcher(file, at, file->size(), ahead);
  std::unique_ptr<LoadedChunk> c;
  for (;;) {
    c = prefetcher.next(std::move(c));
    if (!c->good()) {
      out.last = c->state;
      out.problem = c->problem;
      return out;
    }
    out.raw.push_back(c->raw);
    out.counts.push_back(c->count);
  }
}

void check_same(const Loaded& a, const Loaded& b) {
  CHECK(a.raw == b.raw);
  CHECK(a.counts == b.counts);
  CHECK(a.last == b.last);
  CHECK(a.problem == b.problem);
}

}  // namespace

TEST_CASE("the prefetcher hands over the chunks the loader loads, in order", "[chunk_loader]") {
  TempDir dir;
  const uint64_t at = write_chunks(dir.file("r"), 400);
  const auto file = RecordingBytes::open(dir.file("r"), "recording");
  const Loaded inline_ = load_inline(file, at);
  REQUIRE(inline_.raw.size() > 10);
  CHECK(inline_.last == ReadStatus::State::kComplete);
  for (size_t ahead : {1, 2, 8}) {
    CAPTURE(ahead);
    check_same(load_prefetched(file, at, ahead), inline_);
  }
}

TEST_CASE("a cut chunk ends both the same way, with the chunk's number and offset", "[chunk_loader]") {
  TempDir dir;
  const uint64_t at = write_chunks(dir.file("r"), 200);
  std::ifstream in(dir.file("r"), std::ios::binary);
  std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  {
    std::ofstream out(dir.file("cut"), std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(chunks_end(dir.file("r")) - 7));  // inside the last chunk
  }
  const auto file = RecordingBytes::open(dir.file("cut"), "recording");
  const Loaded inline_ = load_inline(file, at);
  CHECK(inline_.last == ReadStatus::State::kTruncated);
  CHECK(inline_.problem.find("file ends inside chunk ") == 0);
  check_same(load_prefetched(file, at, 2), inline_);
}

TEST_CASE("a prefetcher dropped before its last chunk stops its thread", "[chunk_loader]") {
  TempDir dir;
  const uint64_t at = write_chunks(dir.file("r"), 400);
  const auto file = RecordingBytes::open(dir.file("r"), "recording");
  for (int taken = 0; taken < 3; ++taken) {
    ChunkPrefetcher prefetcher(file, at, file->size(), 1);
    for (int i = 0; i < taken; ++i) CHECK(prefetcher.next()->good());
  }
  ChunkPrefetcher done(file, at, file->size());
  std::unique_ptr<LoadedChunk> c;
  do c = done.next(std::move(c));
  while (c->good());
  CHECK(done.next()->state == ReadStatus::State::kComplete);  // asked again after the end
}
