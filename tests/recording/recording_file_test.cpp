#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>

#include "common/error.h"
#include "recording/recording_reader.h"
#include "recording/recording_index.h"
#include "recording/recording_writer.h"
#include "support/read_file.h"
#include "support/record_fixtures.h"
#include "support/recording_layout.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

RecordingHeader test_header() {
  RecordingHeader h;
  h.mode = "record";
  h.command = {"./app", "--flag", "weird \"quoted\" arg"};
  h.event = "cpu-clock";
  h.frequency = 999;
  h.stack_size = 32768;
  h.regs_mask = 0xff0fff;
  stamp_header(h);
  return h;
}

// Writes `n` samples across two threads plus a few other records, in chunks
// of about `chunk_bytes`; returns the text of every record written.
std::vector<std::string> write_recording(const std::string& path, int n, size_t chunk_bytes) {
  RecordingWriter w(path, test_header(), chunk_bytes);
  std::vector<std::string> written;
  auto put = [&](const Record& r) {
    w.write(r);
    written.push_back(to_text(r));
  };
  put(make_mapping(1, "/usr/bin/app", true));
  put(CommRecord{2, 100, 100, true, "app"});
  std::vector<uint8_t> stack(2048);
  for (int i = 0; i < n; ++i) {
    const uint32_t tid = 100 + static_cast<uint32_t>(i % 2);
    for (size_t k = 0; k < 64; ++k) stack[(static_cast<size_t>(i) * 31 + k) % 512] = static_cast<uint8_t>(i + k);
    const size_t depth = 1024 + static_cast<size_t>(i % 7) * 128;
    std::vector<uint8_t> s(stack.end() - static_cast<long>(depth), stack.end());
    auto sample = make_sample(tid, 1000 + static_cast<uint64_t>(i), 0x7ff000010000 - depth, s);
    put(sample.view);
  }
  EndRecord end{R"({"samples":)" + std::to_string(n) + "}"};
  w.finish(end);
  written.push_back(to_text(end));
  return written;
}

std::vector<std::string> read_all(const std::string& path, ReadStatus* status = nullptr) {
  RecordingReader reader(path);
  std::vector<std::string> out;
  while (auto r = reader.next()) out.push_back(to_text(*r));
  if (status) *status = reader.status();
  return out;
}

}  // namespace

TEST_CASE("a recording reads back exactly what was written", "[recording]") {
  TempDir dir;
  auto written = write_recording(dir.file("r.swprof"), 500, 16 << 10);
  ReadStatus st;
  CHECK(read_all(dir.file("r.swprof"), &st) == written);
  CHECK(st.state == ReadStatus::State::kComplete);
  CHECK(st.finalized);
  CHECK(st.chunks > 3);
  RecordingReader reader(dir.file("r.swprof"));
  CHECK(reader.header().command == test_header().command);
  CHECK(reader.header().frequency == 999);
  CHECK(reader.header().stack_size == 32768);
}

TEST_CASE("a cut file reads up to its last whole chunk, wherever it is cut", "[recording]") {
  TempDir dir;
  const std::string full = dir.file("full.swprof");
  auto written = write_recording(full, 400, 8 << 10);
  const auto file = read_bytes(full);
  const auto spans = chunk_spans(file);
  REQUIRE(spans.size() >= 4);
  REQUIRE(spans.back().end + kIndexTrailerSize < file.size());  // the chunk index follows

  std::vector<uint64_t> cuts;
  for (const auto& s : spans) {
    cuts.push_back(s.start);                     // at a chunk boundary
    cuts.push_back(s.start + 1);                 // inside a chunk header
    cuts.push_back(s.start + kChunkHeaderSize);  // just after a chunk header
    cuts.push_back((s.start + s.end) / 2);       // mid-chunk
    cuts.push_back(s.end - 1);                   // one byte short
  }
  const std::string cut_path = dir.file("cut.swprof");
  for (uint64_t cut : cuts) {
    CAPTURE(cut);
    write_prefix(cut_path, file, cut);
    size_t whole_records = 0;
    bool at_boundary = false;
    for (const auto& s : spans) {
      if (s.end <= cut) whole_records += s.records;
      if (s.end == cut || s.start == cut) at_boundary = true;
    }
    ReadStatus st;
    auto got = read_all(cut_path, &st);
    REQUIRE(got.size() == whole_records);
    CHECK(std::equal(got.begin(), got.end(), written.begin()));
    CHECK_FALSE(st.finalized);
    if (at_boundary) CHECK(st.state == ReadStatus::State::kComplete);
    else CHECK(st.state == ReadStatus::State::kTruncated);
  }
}

TEST_CASE("a damaged chunk stops the read there and says so", "[recording]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  auto written = write_recording(path, 300, 8 << 10);
  auto file = read_bytes(path);
  const auto spans = chunk_spans(file);
  REQUIRE(spans.size() >= 3);
  SECTION("flipped byte inside compressed data") {
    file[(spans[1].start + kChunkHeaderSize + spans[1].end) / 2] ^= 0x5a;
  }
  SECTION("bad chunk magic") {
    file[spans[1].start] ^= 0xff;
  }
  write_prefix(path, file, file.size());
  ReadStatus st;
  auto got = read_all(path, &st);
  CHECK(st.state == ReadStatus::State::kCorrupt);
  CHECK(got.size() == spans[0].records);
  CHECK(st.problem.find("chunk 2") != std::string::npos);
}

TEST_CASE("files that are not recordings are refused with a clear error", "[recording]") {
  TempDir dir;
  CHECK_THROWS_WITH(RecordingReader(dir.file("missing")), Catch::Contains("cannot open recording"));
  {
    std::ofstream out(dir.file("text"));
    out << "hello, this is not a recording\n";
  }
  CHECK_THROWS_WITH(RecordingReader(dir.file("text")), Catch::Contains("not a swprof recording"));
  write_recording(dir.file("r.swprof"), 10, 1 << 20);
  auto file = read_bytes(dir.file("r.swprof"));
  write_prefix(dir.file("short"), file, 20);
  CHECK_THROWS_WITH(RecordingReader(dir.file("short")), Catch::Contains("truncated inside its header"));
  file[8] = 99;  // version
  write_prefix(dir.file("v99"), file, file.size());
  CHECK_THROWS_WITH(RecordingReader(dir.file("v99")), Catch::Contains("format version 99"));
  CHECK_THROWS_WITH(RecordingReader(dir.path()), Catch::Contains("directory"));
}

TEST_CASE("version 1 recordings (before off-CPU data) still read", "[recording]") {
  TempDir dir;
  write_recording(dir.file("r.swprof"), 10, 1 << 20);
  auto file = read_bytes(dir.file("r.swprof"));
  file[8] = 1;
  write_prefix(dir.file("v1"), file, file.size());
  RecordingReader reader(dir.file("v1"));
  size_t n = 0;
  while (reader.next()) ++n;
  CHECK(n > 0);
  CHECK(reader.header().default_weight == "cpu");
  CHECK_FALSE(reader.header().off_cpu);
  file[8] = 0;
  write_prefix(dir.file("v0"), file, file.size());
  CHECK_THROWS_WITH(RecordingReader(dir.file("v0")), Catch::Contains("format version 0"));
}

TEST_CASE("version 2 recordings (before stack read past a copy) still read", "[recording]") {
  TempDir dir;
  write_recording(dir.file("r.swprof"), 10, 1 << 20);
  auto file = read_bytes(dir.file("r.swprof"));
  CHECK(file[8] == kRecordingVersion);
  file[8] = 2;
  write_prefix(dir.file("v2"), file, file.size());
  RecordingReader reader(dir.file("v2"));
  size_t samples = 0;
  while (auto rec = reader.next())
    if (auto* s = std::get_if<SampleView>(&*rec)) {
      ++samples;
      CHECK(s->stack_beyond == 0);
    }
  CHECK(samples > 0);
}

TEST_CASE("the header keeps the off-CPU settings and the default weight", "[recording]") {
  RecordingHeader h;
  h.mode = "record";
  h.off_cpu = true;
  h.off_cpu_settings = OffCpuSettings{4, 1000000, 8192};
  h.default_weight = "wall";
  auto back = RecordingHeader::from_json(h.to_json());
  CHECK(back.off_cpu);
  CHECK(back.off_cpu_settings.every == 4);
  CHECK(back.off_cpu_settings.min_ns == 1000000);
  CHECK(back.off_cpu_settings.stack_size == 8192);
  CHECK(back.default_weight == "wall");
  auto plain = RecordingHeader::from_json(RecordingHeader{}.to_json());
  CHECK_FALSE(plain.off_cpu);
  CHECK(plain.default_weight == "cpu");
  CHECK_THROWS_WITH(RecordingHeader::from_json(R"({"default_weight":"sideways"})"), Catch::Contains("default_weight"));
}

TEST_CASE("the writer reports an unwritable path", "[recording]") {
  CHECK_THROWS_WITH(RecordingWriter("/nonexistent-dir/x.swprof", test_header()),
                    Catch::Contains("cannot write output file"));
}
