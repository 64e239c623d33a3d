#include <catch2/catch.hpp>
#include <filesystem>

#include "recording/recording_bytes.h"
#include "recording/recording_index.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "support/read_file.h"
#include "support/record_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

ImageRecord image(const std::string& name, const std::string& text) {
  return ImageRecord{name, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size())};
}

// On-CPU samples in chunks of about 4 KiB, an off-CPU sample with its
// switch-out every 10 samples, then the images known at the end.
void write_recording(const std::string& path, int samples) {
  RecordingWriter w(path, record_header(4096), 4096);
  w.write(make_mapping(1, "/usr/bin/app", true));
  for (int i = 0; i < samples; ++i) {
    OwnedSample s = make_sample(100, 1000 + static_cast<uint64_t>(i), 0x7ff000, std::vector<uint8_t>(512, uint8_t(i)));
    s.view.off_cpu = i % 10 == 9;
    w.write(s.view);
    if (s.view.off_cpu) w.write(SwitchRecord{s.view.time + 1, 100, 100, 0, /*out=*/true, false, false});
  }
  w.flush();
  w.write(image(kKallsymsImageName, "ffffffff81000000 T _stext\n"));
  w.finish(EndRecord{"{}"});
}

uint64_t first_chunk(const std::string& path) { return RecordingReader(path).header_bytes(); }

std::optional<RecordingIndex> index_of(const std::string& path) {
  return read_recording_index(*RecordingBytes::open(path, "recording"), first_chunk(path));
}

std::vector<uint8_t> body_of(const RecordingIndex& index) { return encode_index_body(index); }

// A finished recording of `samples` samples (write_recording) and its index.
struct Finished {
  explicit Finished(int samples) {
    write_recording(path, samples);
    auto read = index_of(path);
    REQUIRE(read);
    index = *read;
  }
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  RecordingIndex index;
};

}  // namespace

TEST_CASE("index: a finished recording's chunks, back to back, with what each holds", "[recording_index]") {
  const Finished f(200);
  const std::string& path = f.path;
  const RecordingIndex* index = &f.index;
  REQUIRE(index->chunks.size() > 10);
  CHECK(index->chunks.front().offset == first_chunk(path));
  for (size_t i = 1; i < index->chunks.size(); ++i) CHECK(index->chunks[i].offset == index->chunks[i - 1].end());
  CHECK(index->index_offset == index->chunks.back().end());
  CHECK(index->latest_time == 1000 + 199 + 1);  // the last switch-out, after the last sample
  size_t timing = 0, with_samples = 0;
  for (const IndexedChunk& c : index->chunks) {
    timing += c.timing();
    with_samples += (c.holds & kHoldsSamples) != 0;
    if (c.timing()) CHECK(c.holds == kHoldsOffCpuTiming);
  }
  CHECK(timing >= 1);
  CHECK(with_samples >= 10);
  // The end: the kallsyms image, then the end record, after the last samples.
  CHECK((index->chunks.back().holds & kHoldsEnd) != 0);
  CHECK((index->chunks.back().holds & kHoldsImages) != 0);
  CHECK((index->chunks.back().holds & kHoldsSamples) == 0);
}

TEST_CASE("index: none in a recording cut anywhere after its last chunk, which reads whole", "[recording_index]") {
  const Finished f(100);
  const TempDir& dir = f.dir;
  const std::string& path = f.path;
  const RecordingIndex* whole = &f.index;
  const uint64_t size = std::filesystem::file_size(path);
  const std::vector<char> bytes = read_bytes(path);
  for (uint64_t cut : {size - 1, size - kIndexTrailerSize, size - kIndexTrailerSize - 1, whole->index_offset + 3,
                       whole->index_offset}) {
    CAPTURE(cut);
    const std::string cut_path = dir.file("cut.swprof");
    write_prefix(cut_path, bytes, cut);
    CHECK_FALSE(index_of(cut_path));
    RecordingReader reader(cut_path);
    CHECK(reader.trailing_images().size() == 1);  // found by the chunk headers
    uint64_t records = 0;
    while (reader.next()) ++records;
    // Cut inside the index chunk's header, the reader cannot tell it from a record chunk's.
    CHECK(reader.status().state ==
          (cut == whole->index_offset + 3 ? ReadStatus::State::kTruncated : ReadStatus::State::kComplete));
    CHECK(reader.status().finalized);
    CHECK(records > 100);
  }
}

TEST_CASE("index: a damaged index or trailer is not used, and the records read as without one",
          "[recording_index]") {
  const Finished f(100);
  const TempDir& dir = f.dir;
  const std::string& path = f.path;
  const RecordingIndex* whole = &f.index;
  const std::vector<char> bytes = read_bytes(path);
  // Every byte of the index chunk and the trailer but the zstd frame's
  // (its checksum covers those): the index is refused, nothing else changes.
  const uint64_t from = whole->index_offset;
  for (uint64_t at = from; at < bytes.size(); ++at) {
    if (at >= from + kChunkHeaderSize && at < bytes.size() - kIndexTrailerSize) continue;
    CAPTURE(at);
    std::vector<char> damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x40);
    write_prefix(dir.file("bad.swprof"), damaged, damaged.size());
    CHECK_FALSE(index_of(dir.file("bad.swprof")));
  }
  // A flipped bit inside the zstd frame: its checksum.
  std::vector<char> damaged = bytes;
  damaged[from + kChunkHeaderSize + 5] = static_cast<char>(damaged[from + kChunkHeaderSize + 5] ^ 1);
  write_prefix(dir.file("bad.swprof"), damaged, damaged.size());
  CHECK_FALSE(index_of(dir.file("bad.swprof")));
  RecordingReader reader(dir.file("bad.swprof"));
  CHECK(reader.trailing_images().size() == 1);
  while (reader.next()) {
  }
  CHECK(reader.status().state == ReadStatus::State::kComplete);
}

TEST_CASE("index: a body whose chunks leave a gap, overlap, or say what no chunk holds is refused",
          "[recording_index]") {
  RecordingIndex index;
  index.latest_time = 7;
  index.chunks = {{100, 40, kHoldsSamples}, {140, 30, kHoldsOffCpuTiming}, {170, 16, kHoldsEnd | kHoldsImages}};
  const auto parse = [](const RecordingIndex& i, uint64_t first = 100, uint64_t end = 186) {
    const std::vector<uint8_t> body = body_of(i);
    return parse_index_body(Bytes(body.data(), body.size()), static_cast<uint32_t>(i.chunks.size()), first, end);
  };
  const auto good = parse(index);
  REQUIRE(good);
  CHECK(good->latest_time == 7);
  CHECK(good->chunks.size() == 3);
  CHECK(good->chunks[1].timing());

  CHECK_FALSE(parse(index, 99));        // a gap before the first chunk
  CHECK_FALSE(parse(index, 100, 190));  // a gap before the index
  CHECK_FALSE(parse(index, 100, 180));  // the last chunk runs into the index
  RecordingIndex bad = index;
  bad.chunks[1].offset = 139;  // overlaps the first
  CHECK_FALSE(parse(bad));
  bad = index;
  bad.chunks[2].bytes = 15;  // shorter than a chunk header
  bad.chunks.push_back({185, 1, 0});
  CHECK_FALSE(parse(bad));
  bad = index;
  bad.chunks[0].holds = 16;  // unknown
  CHECK_FALSE(parse(bad));
  bad = index;
  bad.chunks[1].holds = kHoldsOffCpuTiming | kHoldsSamples;  // a timing chunk holds no samples
  CHECK_FALSE(parse(bad));
  // More entries than chunk headers fit: refused before any is read.
  const std::vector<uint8_t> body = body_of(index);
  CHECK_FALSE(parse_index_body(Bytes(body.data(), body.size()), 3, 100, 130));
  CHECK_FALSE(parse_index_body(Bytes(body.data(), body.size() - 1), 3, 100, 186));
}
