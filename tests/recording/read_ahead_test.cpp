// ReadAhead over files of known bytes: windows in order with the carried
// tail in front, seeks, the end of the range and a file cut short of it.

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <vector>

#include "recording/read_ahead.h"
#include "support/temp_dir.h"

using namespace swprof;

namespace {

// Byte i of the pattern: not periodic in any window size the tests use.
std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((i * 7919u) ^ (i >> 9));
  return out;
}

// Whether the window holds the file's bytes from its offset on.
bool holds_file_bytes(const ReadAhead::Window& w, const std::vector<uint8_t>& file) {
  if (w.offset + w.size > file.size()) return false;
  return std::equal(w.data, w.data + w.size, file.begin() + static_cast<ptrdiff_t>(w.offset));
}

}  // namespace

TEST_CASE("recording: read-ahead: windows in order, the carried tail in front, up to the range's end") {
  const std::vector<uint8_t> file = pattern(100'000);
  auto bytes = RecordingBytes::in_memory(Bytes(file.data(), file.size()), "pattern");
  // [1000, 90000) in windows of 4096: the last one shorter.
  ReadAhead ahead(bytes, 1000, 90'000, 4096, 512);
  uint64_t expect = 1000;
  size_t carry = 0;
  size_t windows = 0;
  ReadAhead::Window w = ahead.next({});
  while (w.size > carry) {
    ++windows;
    INFO("window " << windows << " at " << w.offset << ", " << w.size << " bytes");
    CHECK(w.offset == expect - carry);
    CHECK(holds_file_bytes(w, file));
    expect = w.offset + w.size;
    carry = windows % 3 == 0 ? 0 : std::min<size_t>(w.size, 100 + windows * 13);  // up to the headroom
    w = ahead.next(Bytes(w.data + w.size - carry, carry));
  }
  CHECK(expect == 90'000);
  CHECK(windows == (90'000 - 1000 + 4095) / 4096);
  // At the end only the carry comes back, every time it is asked.
  CHECK(w.size == carry);
  CHECK(ahead.next({}).size == 0);
}

TEST_CASE("recording: read-ahead: a seek drops what was read ahead and continues there") {
  const std::vector<uint8_t> file = pattern(50'000);
  auto bytes = RecordingBytes::in_memory(Bytes(file.data(), file.size()), "pattern");
  ReadAhead ahead(bytes, 0, file.size(), 1000, 64);
  ReadAhead::Window w = ahead.next({});
  CHECK(w.offset == 0);
  w = ahead.next({});
  CHECK(w.offset == 1000);
  ahead.seek(30'123);
  w = ahead.next({});
  CHECK(w.offset == 30'123);
  CHECK(w.size == 1000);
  CHECK(holds_file_bytes(w, file));
  w = ahead.next(Bytes(w.data + 990, 10));
  CHECK(w.offset == 31'113);
  CHECK(holds_file_bytes(w, file));
  ahead.seek(file.size());  // past the last byte: nothing more
  CHECK(ahead.next({}).size == 0);
}

TEST_CASE("recording: read-ahead: a file cut short of the range ends the windows where it ends") {
  swprof::testing::TempDir dir;
  const std::vector<uint8_t> file = pattern(20'000);
  {
    std::ofstream out(dir.file("cut.bin"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  auto bytes = RecordingBytes::open(dir.file("cut.bin"), "test file");
  ReadAhead ahead(bytes, 0, 64'000, 3000, 16);  // the range claims more than the file has
  uint64_t end = 0;
  for (ReadAhead::Window w = ahead.next({}); w.size > 0; w = ahead.next({})) {
    CHECK(w.offset == end);
    CHECK(holds_file_bytes(w, file));
    end = w.offset + w.size;
  }
  CHECK(end == file.size());
}

TEST_CASE("recording: read-ahead: a carried tail bigger than the headroom is refused") {
  const std::vector<uint8_t> file = pattern(10'000);
  auto bytes = RecordingBytes::in_memory(Bytes(file.data(), file.size()), "pattern");
  ReadAhead ahead(bytes, 0, file.size(), 1000, 64);
  ReadAhead::Window w = ahead.next({});
  CHECK_THROWS(ahead.next(Bytes(w.data, 65)));
}
