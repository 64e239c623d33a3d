#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>

#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "recording/trailing_images.h"
#include "support/read_file.h"
#include "support/record_fixtures.h"
#include "support/recording_v3.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Samples of four threads of two processes, with mappings, comms, forks and
// exits between them, in small chunks (many of them), and an image last.
void write_busy_recording(const std::string& path) {
  RecordingWriter w(path, record_header(8192, {"./app"}), 4 << 10);
  w.write(make_mapping(1, "/usr/bin/app", true));
  w.write(CommRecord{2, 100, 100, true, "app"});
  std::vector<uint8_t> stack(4096);
  for (int i = 0; i < 600; ++i) {
    const uint32_t tid = 100 + static_cast<uint32_t>(i % 4);
    if (i % 97 == 5) w.write(TaskRecord{false, static_cast<uint64_t>(1000 + i), 100, 100, tid + 10, tid});
    if (i % 131 == 7) w.write(make_mapping(static_cast<uint64_t>(1000 + i), "/usr/lib/libx.so", true));
    if (i % 113 == 9) w.write(TaskRecord{true, static_cast<uint64_t>(1000 + i), 100, 100, tid + 10, tid});
    for (size_t k = 0; k < 48; ++k) stack[(static_cast<size_t>(i) * 37 + k) % 2048] = static_cast<uint8_t>(i * 3 + k);
    const size_t depth = 512 + static_cast<size_t>(i % 9) * 256;
    std::vector<uint8_t> s(stack.end() - static_cast<long>(depth), stack.end());
    auto sample = make_sample(tid, 1000 + static_cast<uint64_t>(i), 0x7ff000010000 - depth, s);
    w.write(sample.view);
  }
  static const uint8_t kallsyms[] = "ffffffff81000000 T _stext\n";
  w.write(ImageRecord{kKallsymsImageName, Bytes(kallsyms, sizeof kallsyms - 1)});
  w.finish(EndRecord{R"({"samples":600})"});
}

struct ReadBack {
  std::vector<std::string> records;
  ReadStatus status;
};

ReadBack read_all(RecordSource& reader) {
  ReadBack out;
  while (auto r = reader.next()) out.records.push_back(to_text(*r));
  out.status = reader.status();
  return out;
}

void check_same(const ReadBack& a, const ReadBack& b) {
  CHECK(a.records == b.records);
  CHECK(a.status.state == b.status.state);
  CHECK(a.status.problem == b.status.problem);
  CHECK(a.status.good_bytes == b.status.good_bytes);
  CHECK(a.status.chunks == b.status.chunks);
  CHECK(a.status.records == b.status.records);
  CHECK(a.status.finalized == b.status.finalized);
}

// The file read by a reader of the file (chunks loaded ahead on a thread)
// and by a reader of its image in memory (chunks loaded on the caller's
// thread, one by one).
void check_prefetched_equals_sequential(const std::string& path) {
  const std::vector<char> bytes = read_bytes(path);
  RecordingReader from_file(path);
  RecordingReader in_memory(Bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), path);
  check_same(read_all(from_file), read_all(in_memory));
}

}  // namespace

TEST_CASE("chunks loaded ahead on a thread read exactly as chunks loaded one by one", "[recording_reader]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  write_busy_recording(path);
  RecordingReader reader(path);
  const ReadBack all = read_all(reader);
  REQUIRE(all.status.chunks > 20);
  CHECK(all.status.state == ReadStatus::State::kComplete);
  CHECK(all.records.size() == all.status.records);
  check_prefetched_equals_sequential(path);
}

TEST_CASE("a cut or damaged file gives the same records and the same one-line problem, prefetched or not",
          "[recording_reader]") {
  TempDir dir;
  const std::string full = dir.file("full.swprof");
  write_busy_recording(full);
  const std::vector<char> bytes = read_bytes(full);
  const std::string path = dir.file("r.swprof");
  for (size_t cut = bytes.size() / 3; cut < bytes.size(); cut += bytes.size() / 7) {
    CAPTURE(cut);
    write_prefix(path, bytes, cut);
    check_prefetched_equals_sequential(path);
  }
  std::vector<char> damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x5a;
  write_prefix(path, damaged, damaged.size());
  check_prefetched_equals_sequential(path);
  RecordingReader reader(path);
  const ReadBack got = read_all(reader);
  CHECK(got.status.state == ReadStatus::State::kCorrupt);
  CHECK(got.status.problem.find('\n') == std::string::npos);
  CHECK(got.records.size() > 100);
}

TEST_CASE("a reader stopped early (or never started) ends cleanly", "[recording_reader]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  write_busy_recording(path);
  { RecordingReader unused(path); }
  RecordingReader reader(path);
  for (int i = 0; i < 10; ++i) REQUIRE(reader.next());
  CHECK(reader.status().chunks >= 1);
}

TEST_CASE("reread() and the trailing images read the file the reader opened, not the path again",
          "[recording_reader]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  write_busy_recording(path);
  RecordingReader reader(path);
  REQUIRE(::unlink(path.c_str()) == 0);  // only the open file is left
  const std::unique_ptr<RecordSource> again = reader.reread();
  REQUIRE(again);
  CHECK(again->path() == path);
  const ReadBack first = read_all(reader);
  const ReadBack second = read_all(*again);
  check_same(first, second);
  CHECK(second.status.state == ReadStatus::State::kComplete);
  const std::vector<StoredImage> images = read_trailing_images(reader);
  REQUIRE(images.size() == 1);
  CHECK(images[0].name == kKallsymsImageName);
}

namespace {

// A --wall recording's records, written by `Writer` (RecordingWriter, or
// RecordingV3Writer for version 3's layout) in small chunks: on-CPU
// samples of two threads, off-CPU samples with their switch-out and -in,
// repeats, perf map lines among the samples, and the images and end record
// of a finished recording after them.
template <typename Writer>
void write_wall_recording(const std::string& path) {
  RecordingHeader header = record_header(8192, {"./app"});
  header.off_cpu = true;
  Writer w(path, header, 4 << 10);
  w.write(make_mapping(1, "/usr/bin/app", true));
  for (int i = 0; i < 400; ++i) {
    const uint32_t tid = 100 + static_cast<uint32_t>(i % 2);
    const uint64_t time = 1000 + static_cast<uint64_t>(i) * 10;
    OwnedSample s = make_sample(tid, time, 0x7ff000, std::vector<uint8_t>(1024, uint8_t(i / 3)));
    s.view.off_cpu = i % 7 == 3;
    w.write(s.view);
    SwitchRecord sw;
    sw.pid = 100;
    sw.tid = tid;
    if (s.view.off_cpu) {
      sw.time = time + 1;
      sw.out = true;
      w.write(sw);
      sw.time = time + 5;
      sw.out = false;
      w.write(sw);
    }
    if (i % 50 == 49) w.write(OffCpuRepeatRecord{time + 2, 100, tid, time - 3 * 10});
    if (i == 200) w.write(ImageRecord{"perf-map:100", Bytes(reinterpret_cast<const uint8_t*>("1000 10 early\n"), 14)});
  }
  w.flush();
  static const char kallsyms[] = "ffffffff81000000 T _stext\n";
  w.write(ImageRecord{kKallsymsImageName, Bytes(reinterpret_cast<const uint8_t*>(kallsyms), sizeof kallsyms - 1)});
  w.finish(EndRecord{R"({"end_monotonic_ns":5000})"});
}

struct AheadOfRecords {
  std::vector<std::string> images;
  std::vector<std::string> off_cpu;  // off-CPU samples as time/tid, switch and repeat records, the end record
  uint64_t latest = 0;
};

std::string off_cpu_text(const Record& r) {
  if (const auto* s = std::get_if<SampleView>(&r)) return "off-cpu sample " + std::to_string(s->pid) + "/" +
                                                         std::to_string(s->tid) + " t=" + std::to_string(s->time);
  return to_text(r);
}

// What a report asks before the first record, asked as the pipeline asks it.
AheadOfRecords read_ahead_of_records(RecordSource& reader) {
  AheadOfRecords out;
  for (const StoredImage& img : reader.trailing_images())
    out.images.push_back(img.name + ":" + std::string(img.bytes.begin(), img.bytes.end()));
  out.latest = reader.read_off_cpu_records([&](const Record& r) { out.off_cpu.push_back(off_cpu_text(r)); });
  return out;
}

// The records but the switch and repeat records (read ahead, apart, in a version 4 recording).
std::vector<std::string> without_off_cpu_timing(const std::vector<std::string>& records) {
  std::vector<std::string> out;
  for (const std::string& r : records)
    if (!r.starts_with("switch") && !r.starts_with("off-cpu-repeat")) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("one pass: trailing images and off-CPU records first, then the others, every byte read once",
          "[recording_reader]") {
  TempDir dir;
  const std::string v4 = dir.file("v4.swprof");
  write_wall_recording<RecordingWriter>(v4);
  const auto file = RecordingBytes::open(v4, "recording");
  RecordingReader reader(file);
  REQUIRE(reader.version() == kRecordingVersion);
  const AheadOfRecords ahead = read_ahead_of_records(reader);
  const ReadBack rest = read_all(reader);
  CHECK(file->bytes_read() == std::filesystem::file_size(v4));
  CHECK(rest.status.state == ReadStatus::State::kComplete);
  CHECK(rest.status.finalized);

  // The same as the reader of a file without an index finds: by walking the
  // chunks, and reading the file again for the off-CPU records.
  const auto walked_file = RecordingBytes::open(v4, "recording");
  RecordingReader walked(walked_file);
  const std::vector<StoredImage> images = read_trailing_images(walked);
  AheadOfRecords expected;
  for (const StoredImage& img : images) expected.images.push_back(img.name + ":" + std::string(img.bytes.begin(), img.bytes.end()));
  expected.latest = walked.RecordSource::read_off_cpu_records([&](const Record& r) { expected.off_cpu.push_back(off_cpu_text(r)); });
  const ReadBack all = read_all(walked);
  CHECK(walked_file->bytes_read() > std::filesystem::file_size(v4) * 3 / 2);  // the whole file twice, but its head
  CHECK(ahead.images == expected.images);
  REQUIRE(ahead.images.size() == 1);
  // Off-CPU samples, switch and repeat records in the order written; the end record last.
  std::vector<std::string> sorted_ahead = ahead.off_cpu, sorted_expected = expected.off_cpu;
  CHECK(sorted_ahead.back() == sorted_expected.back());
  std::sort(sorted_ahead.begin(), sorted_ahead.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  CHECK(sorted_ahead == sorted_expected);
  CHECK(ahead.off_cpu.size() > 100);
  CHECK(ahead.latest == expected.latest);
  CHECK(ahead.latest == 1000 + 399 * 10 + 2);  // the last repeat
  CHECK(rest.records == without_off_cpu_timing(all.records));
  CHECK(rest.status.chunks == all.status.chunks);
}

TEST_CASE("one pass: a recording of version 3 reads the same records, its off-CPU records read apart",
          "[recording_reader]") {
  TempDir dir;
  const std::string v3 = dir.file("v3.swprof"), v4 = dir.file("v4.swprof");
  write_wall_recording<RecordingV3Writer>(v3);
  write_wall_recording<RecordingWriter>(v4);
  RecordingReader old(v3), now(v4);
  CHECK(old.version() == 3);
  const AheadOfRecords old_ahead = read_ahead_of_records(old), now_ahead = read_ahead_of_records(now);
  CHECK(old_ahead.images == now_ahead.images);
  CHECK(old_ahead.latest == now_ahead.latest);
  std::vector<std::string> a = old_ahead.off_cpu, b = now_ahead.off_cpu;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a.size() == b.size());
  // Version 3 gives the off-CPU samples whole: compare their time and thread only.
  CHECK(a == b);
  const ReadBack old_records = read_all(old), now_records = read_all(now);
  CHECK(old_records.status.state == ReadStatus::State::kComplete);
  CHECK(without_off_cpu_timing(old_records.records) == now_records.records);
}
