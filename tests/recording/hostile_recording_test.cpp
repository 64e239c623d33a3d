// Recordings with one field set to a hostile value: each is refused as
// damage (the records before it are kept), without allocating what the field
// claims. The files are built here: records encoded by the library, one field
// patched in the raw chunk, then compressed into a chunk like the writer's.

#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>

#include "common/error.h"
#include "recording/recording_reader.h"
#include "support/record_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Offset of a sample record's u32 stack_size (docs/recording-format.md):
// record header 8, time..ip 40, nregs + nkernel 4, then the registers.
constexpr size_t kSampleRegsAt = 52;
size_t stack_size_at(const SampleView& s) { return kSampleRegsAt + 8 * s.nregs + 8 * s.kernel_depth(); }

struct RawChunk {
  std::vector<uint8_t> bytes;
  uint32_t records = 0;
  std::vector<size_t> starts;  // where each record begins
};

RawChunk encode(const std::vector<Record>& records) {
  RawChunk chunk;
  RecordEncoder encoder;
  for (const Record& r : records) {
    chunk.starts.push_back(chunk.bytes.size());
    encoder.encode(r, chunk.bytes);
    ++chunk.records;
  }
  return chunk;
}

template <typename T>
void patch(std::vector<uint8_t>& bytes, size_t at, T value) {
  REQUIRE(at + sizeof value <= bytes.size());
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

std::string header_text(uint32_t stack_size) {
  RecordingHeader h;
  h.mode = "record";
  h.event = "cpu-clock";
  h.stack_size = stack_size;
  return h.to_json();
}

// magic, version, header, then one chunk of `chunk` (or no chunk when empty).
std::vector<uint8_t> file_bytes(const std::string& header, const RawChunk& chunk) {
  std::vector<uint8_t> out(kRecordingMagic, kRecordingMagic + sizeof kRecordingMagic);
  ByteWriter w(out);
  w.put(kRecordingVersion);
  w.put(static_cast<uint32_t>(header.size()));
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(header.data()), header.size()));
  if (chunk.bytes.empty()) return out;
  std::vector<uint8_t> z(ZSTD_compressBound(chunk.bytes.size()));
  const size_t n = ZSTD_compress(z.data(), z.size(), chunk.bytes.data(), chunk.bytes.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  w.put(kChunkMagic);
  w.put(static_cast<uint32_t>(chunk.bytes.size()));
  w.put(static_cast<uint32_t>(n));
  w.put(chunk.records);
  w.put_bytes(Bytes(z.data(), n));
  return out;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct ReadBack {
  size_t records = 0;
  ReadStatus status;
};

ReadBack read_back(const std::string& path) {
  RecordingReader reader(path);
  ReadBack out;
  while (reader.next()) ++out.records;
  out.status = reader.status();
  return out;
}

// Three samples of one thread with 256-byte stacks.
struct ThreeSamples {
  std::vector<OwnedSample> owned;
  RawChunk chunk;
  ThreeSamples() {
    for (uint64_t i = 0; i < 3; ++i) owned.push_back(make_sample(7, 10 + i, 0x7ff000000000, std::vector<uint8_t>(256, 0x42)));
    std::vector<Record> records;
    for (const auto& o : owned) records.push_back(o.view);
    chunk = encode(records);
  }
  size_t third_stack_size_at() const { return chunk.starts[2] + stack_size_at(owned[2].view); }
};

}  // namespace

TEST_CASE("a sample's stack_size beyond the recording's stack size is a damaged record", "[recording][hostile]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  ThreeSamples s;
  SECTION("as read by the writer: every sample") {
    write_file(path, file_bytes(header_text(4096), s.chunk));
    const ReadBack got = read_back(path);
    CHECK(got.records == 3);
    CHECK(got.status.state == ReadStatus::State::kComplete);
  }
  SECTION("0xFFFFFFFF: the samples before it, then damage") {
    patch<uint32_t>(s.chunk.bytes, s.third_stack_size_at(), 0xFFFFFFFFu);
    write_file(path, file_bytes(header_text(4096), s.chunk));
    const ReadBack got = read_back(path);
    CHECK(got.records == 2);
    CHECK(got.status.state == ReadStatus::State::kCorrupt);
    CHECK(got.status.problem.find("damaged record") != std::string::npos);
  }
  SECTION("the header's stack size is allowed, one word more is not") {
    patch<uint32_t>(s.chunk.bytes, s.third_stack_size_at(), 4096);
    write_file(path, file_bytes(header_text(4096), s.chunk));
    CHECK(read_back(path).records == 3);
    patch<uint32_t>(s.chunk.bytes, s.third_stack_size_at(), 4104);
    write_file(path, file_bytes(header_text(4096), s.chunk));
    CHECK(read_back(path).status.state == ReadStatus::State::kCorrupt);
  }
  SECTION("a header without a stack size: the kernel's largest, 65528") {
    patch<uint32_t>(s.chunk.bytes, s.third_stack_size_at(), kMaxStackSize);
    write_file(path, file_bytes(header_text(0), s.chunk));
    CHECK(read_back(path).records == 3);
    patch<uint32_t>(s.chunk.bytes, s.third_stack_size_at(), kMaxStackSize + 8);
    write_file(path, file_bytes(header_text(0), s.chunk));
    CHECK(read_back(path).records == 2);
  }
}

TEST_CASE("a kernel chain or register count beyond the record is a damaged record", "[recording][hostile]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  ThreeSamples s;
  const size_t counts_at = s.chunk.starts[1] + kSampleRegsAt - 4;
  SECTION("nregs") { patch<uint16_t>(s.chunk.bytes, counts_at, 0xFFFF); }
  SECTION("nkernel") { patch<uint16_t>(s.chunk.bytes, counts_at + 2, 0xFFFF); }
  SECTION("stored_size") { patch<uint32_t>(s.chunk.bytes, s.chunk.starts[1] + stack_size_at(s.owned[1].view) + 4, 0xFFFFFFF0u); }
  write_file(path, file_bytes(header_text(4096), s.chunk));
  const ReadBack got = read_back(path);
  CHECK(got.records == 1);
  CHECK(got.status.state == ReadStatus::State::kCorrupt);
}

TEST_CASE("sizes in the file header and chunk headers are checked against the file before allocating",
          "[recording][hostile]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  ThreeSamples s;
  std::vector<uint8_t> file = file_bytes(header_text(4096), s.chunk);
  const size_t header_len_at = 12;
  uint32_t header_len = 0;
  std::memcpy(&header_len, file.data() + header_len_at, 4);
  const size_t chunk_at = 16 + header_len;
  SECTION("header length beyond the file") {
    patch<uint32_t>(file, header_len_at, 15u << 20);
    write_file(path, file);
    CHECK_THROWS_WITH(RecordingReader(path), Catch::Contains("truncated inside its header"));
  }
  SECTION("compressed size beyond the file") {
    patch<uint32_t>(file, chunk_at + 4, kMaxChunkRawSize);
    patch<uint32_t>(file, chunk_at + 8, kMaxChunkRawSize);
    write_file(path, file);
    const ReadBack got = read_back(path);
    CHECK(got.records == 0);
    CHECK(got.status.state == ReadStatus::State::kTruncated);
  }
  SECTION("raw size beyond the limit") {
    patch<uint32_t>(file, chunk_at + 4, kMaxChunkRawSize + 1);
    write_file(path, file);
    CHECK(read_back(path).status.state == ReadStatus::State::kCorrupt);
  }
}

TEST_CASE("the recording header's numbers are checked, and its nesting limited", "[recording][hostile]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  auto refused = [&](const std::string& header, const std::string& expect) {
    write_file(path, file_bytes(header, RawChunk{}));
    try {
      RecordingReader reader(path);
      FAIL("accepted: " << header.substr(0, 80));
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains(expect));
      CHECK(msg.find('\n') == std::string::npos);
    }
  };
  refused(R"({"stack_size": 70000})", "field stack_size: expected an integer from 0 to 65528, got 70000");
  refused(R"({"frequency": 18446744073709551621})", "field frequency: expected an integer from 0 to 4294967295");
  refused(R"({"frequency": -1})", "field frequency");
  refused(R"({"period": 1.5})", "field period");
  refused(R"({"target_pid": "12"})", "field target_pid");
  refused(std::string(100000, '[') + std::string(100000, ']'), "nested deeper than 64 levels");
  refused(R"({"command": )" + std::string(300000, '[') + std::string(300000, ']') + "}", "nested deeper");
  // Well-formed values are read.
  write_file(path, file_bytes(R"({"mode":"record","stack_size":65528,"frequency":4294967295,"target_pid":-1})", RawChunk{}));
  RecordingReader reader(path);
  CHECK(reader.header().stack_size == 65528);
  CHECK(reader.header().frequency == 4294967295u);
  CHECK(reader.header().target_pid == -1);
}

TEST_CASE("the stacks kept for delta decoding have a budget per chunk", "[recording][hostile]") {
  // Each sample of a new thread stores nothing (its stack is zeros) but
  // claims the largest stack: the budget stops it after kMaxHeldBytes.
  const uint32_t size = kMaxStackSize;
  const size_t fit = StackDeltaCoder::kMaxHeldBytes / size;
  StackDeltaCoder dec;
  size_t decoded = 0;
  for (uint32_t tid = 1; tid <= fit + 10; ++tid)
    if (dec.decode(tid, 0x7ff000000000, size, Bytes()).has_value()) ++decoded;
    else break;
  CHECK(decoded == fit);
  // Samples of threads already held still decode; reset starts afresh.
  CHECK(dec.decode(1, 0x7ff000000000, size, Bytes()).has_value());
  CHECK_FALSE(dec.decode(static_cast<uint32_t>(fit + 100), 0x7ff000000000, size, Bytes()).has_value());
  dec.reset();
  CHECK(dec.decode(static_cast<uint32_t>(fit + 100), 0x7ff000000000, size, Bytes()).has_value());
}

TEST_CASE("a chunk of tiny samples claiming large stacks for many threads is damaged past the budget",
          "[recording][hostile]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  const size_t fit = StackDeltaCoder::kMaxHeldBytes / kMaxStackSize;
  std::vector<Record> records;
  OwnedSample sample = make_sample(1, 1, 0x7ff000000000, {});
  for (uint32_t tid = 1; tid <= fit + 5; ++tid) {
    sample.view.tid = tid;
    records.push_back(sample.view);
  }
  RawChunk chunk = encode(records);
  // Each sample stores no bytes; make each claim the largest stack.
  for (size_t i = 0; i < records.size(); ++i) patch<uint32_t>(chunk.bytes, chunk.starts[i] + stack_size_at(sample.view), kMaxStackSize);
  const auto file = file_bytes(header_text(kMaxStackSize), chunk);
  CHECK(file.size() < 64 * 1024);  // a small file
  write_file(path, file);
  const ReadBack got = read_back(path);
  CHECK(got.records == fit);
  CHECK(got.status.state == ReadStatus::State::kCorrupt);
}
