#include <catch2/catch.hpp>
#include <fstream>
#include <thread>
#include <vector>

#include "common/error.h"
#include "recording/recording_bytes.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

void write_text(const std::string& path, const std::string& text, bool append = false) {
  std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  out << text;
}

std::string read_text(const RecordingBytes& f, size_t n, uint64_t offset) {
  std::string out(n, '\0');
  out.resize(f.read_at(out.data(), n, offset));
  return out;
}

}  // namespace

TEST_CASE("positioned reads: whole, partial at the end, nothing past it", "[recording_bytes]") {
  TempDir dir;
  write_text(dir.file("f"), "0123456789");
  const auto f = RecordingBytes::open(dir.file("f"), "recording");
  CHECK(f->path() == dir.file("f"));
  CHECK(f->size_at_open() == 10);
  CHECK(read_text(*f, 4, 3) == "3456");
  CHECK(read_text(*f, 4, 8) == "89");
  CHECK(read_text(*f, 4, 10).empty());
  CHECK(read_text(*f, 4, 1000).empty());
  CHECK(read_text(*f, 3, 0) == "012");  // offsets are independent: no shared position
}

TEST_CASE("size() follows a file that grows or shrinks while it is open", "[recording_bytes]") {
  TempDir dir;
  write_text(dir.file("f"), "abc");
  const auto f = RecordingBytes::open(dir.file("f"), "recording");
  write_text(dir.file("f"), "defg", true);
  CHECK(f->size() == 7);
  CHECK(read_text(*f, 10, 0) == "abcdefg");
  write_text(dir.file("f"), "xy");  // truncated under the reader: short reads, no signal
  CHECK(f->size() == 2);
  CHECK(read_text(*f, 10, 0) == "abc");  // its head as it was when opened, then nothing
  CHECK(read_text(*f, 10, 5).empty());
  CHECK(f->size_at_open() == 3);
}

TEST_CASE("the head is read when the file is opened, and no byte is read twice", "[recording_bytes]") {
  TempDir dir;
  std::string text;
  for (size_t i = 0; i < RecordingBytes::kHeadBytes + 1000; ++i) text += static_cast<char>('a' + i % 26);
  write_text(dir.file("f"), text);
  const auto f = RecordingBytes::open(dir.file("f"), "recording");
  CHECK(f->bytes_read() == RecordingBytes::kHeadBytes);
  CHECK(std::string(f->head().begin(), f->head().end()) == text.substr(0, RecordingBytes::kHeadBytes));
  CHECK(read_text(*f, 16, 0) == text.substr(0, 16));
  CHECK(read_text(*f, 200, RecordingBytes::kHeadBytes - 100) == text.substr(RecordingBytes::kHeadBytes - 100, 200));
  CHECK(read_text(*f, 2000, RecordingBytes::kHeadBytes + 100) == text.substr(RecordingBytes::kHeadBytes + 100));
  CHECK(f->bytes_read() == text.size());
}

TEST_CASE("an image in memory reads like a file", "[recording_bytes]") {
  const std::string text = "hello";
  const auto f = RecordingBytes::in_memory(Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "mem");
  CHECK(f->in_memory());
  CHECK(f->path() == "mem");
  CHECK(f->size() == 5);
  CHECK(read_text(*f, 3, 1) == "ell");
  CHECK(read_text(*f, 3, 4) == "o");
  CHECK(read_text(*f, 3, 9).empty());
}

TEST_CASE("threads read one open file at their own offsets", "[recording_bytes]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 4096; ++i) text += static_cast<char>('a' + i % 26);
  write_text(dir.file("f"), text);
  const auto f = RecordingBytes::open(dir.file("f"), "recording");
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (uint64_t at = static_cast<uint64_t>(t); at + 16 <= text.size(); at += 61)
        wrong[static_cast<size_t>(t)] += read_text(*f, 16, at) != text.substr(at, 16);
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == std::vector<int>(4, 0));
}

TEST_CASE("a missing file or a directory is refused, naming what it should be", "[recording_bytes]") {
  TempDir dir;
  CHECK_THROWS_WITH(RecordingBytes::open(dir.file("missing"), "recording"),
                    Catch::Contains("cannot open recording '" + dir.file("missing") + "'"));
  CHECK_THROWS_WITH(RecordingBytes::open(dir.path(), "perf.data file"),
                    Catch::Contains("cannot open perf.data file") && Catch::Contains("it is a directory"));
}
