#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "recording/trailing_images.h"
#include "support/read_file.h"
#include "support/record_fixtures.h"
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
