#include "unwind/recording_unwinder.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "sampler/proc.h"
#include "support/self_snapshot.h"
#include "support/temp_dir.h"

using namespace swprof;

namespace {

struct TempFile {
  testing::TempDir dir;
  std::string path = dir.file("recording.swprof");
};

SampleView sample_at(uint32_t pid, uint64_t time, uint64_t pc, const std::vector<uint8_t>& stack) {
  SampleView s;
  s.pid = s.tid = pid;
  s.time = time;
  s.abi = 2;
  s.nregs = 20;
  s.regs[8] = pc;        // IP in perf order
  s.regs[7] = 0x7ff000;  // SP
  s.stack = Bytes(stack.data(), stack.size());
  return s;
}

MappingRecord mapping_at(uint32_t pid, uint64_t time, uint64_t start) {
  MappingRecord m;
  m.pid = m.tid = pid;
  m.time = time;
  m.start = start;
  m.length = 0x10000;
  m.prot = 5;
  m.path = "/nonexistent/app";
  return m;
}

// 1,000 frames of at least 64 bytes each, then a snapshot of the whole stack.
[[gnu::noinline]] testing::SelfSnapshot unwinder_deep_descend(int depth) {
  volatile char pad[64];
  pad[depth & 63] = static_cast<char>(depth);
  testing::SelfSnapshot s = depth > 0 ? unwinder_deep_descend(depth - 1) : testing::capture_self(size_t{8} << 20);
  pad[0] = pad[depth & 63];  // work after the call: no tail call
  return s;
}

// The snapshot as a recording of this process: its code mappings, then one
// sample whose kernel copy is the first `copied` bytes and the rest read past
// it a second later (only the return addresses count), with `changed` as the
// map of the copy.
void write_cut_snapshot(const std::string& path, const testing::SelfSnapshot& s, size_t copied,
                        const std::vector<uint8_t>& changed) {
  RecordingHeader header;
  header.stack_size = static_cast<uint32_t>(copied);
  RecordingWriter w(path, header);
  for (const MappingRecord& m : read_code_mappings(getpid(), 1)) w.write(m);
  SampleView v;
  v.pid = v.tid = static_cast<uint32_t>(getpid());
  v.time = 2;
  v.abi = 2;
  v.nregs = 20;
  const Registers& r = s.regs;
  v.regs[1] = r.get(kRbx);  // perf order: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15
  v.regs[6] = r.bp();
  v.regs[7] = r.sp();
  v.regs[8] = r.pc();
  for (int i = 0; i < 4; ++i) v.regs[16 + i] = r.get(kR12 + i);
  v.stack = Bytes(s.stack.data(), s.stack.size());
  v.stack_truncated = true;
  v.stack_beyond = static_cast<uint32_t>(s.stack.size() - copied);
  v.beyond_changed = Bytes(changed.data(), changed.size());
  v.beyond_delay_us = 1'000'000;
  w.write(v);
  w.finish(EndRecord{"{}"});
}

struct OneWalk {
  WalkResult walk;
  UnwindStats stats;
};

OneWalk unwind_one(const std::string& path) {
  OneWalk out;
  RecordingReader reader(path);
  RecordingUnwinder unwinder;
  unwinder.run(reader, [&](const UnwoundSample& s) { out.walk = s.walk; });
  out.stats = unwinder.stats();
  return out;
}

}  // namespace

TEST_CASE("records are replayed in time order, not file order", "[recording_unwinder]") {
  TempFile file;
  std::vector<uint8_t> stack(64, 0);
  {
    RecordingWriter w(file.path, RecordingHeader{});
    // As when two CPUs' ring buffers are drained one after the other: the
    // sample (CPU 1) reaches the file before the mapping it needs (CPU 0).
    w.write(sample_at(7, 2000, 0x401234, stack));
    w.write(mapping_at(7, 1000, 0x400000));
    w.write(sample_at(7, 3000, 0x401234, stack));
    w.finish(EndRecord{"{}"});
  }
  RecordingReader reader(file.path);
  RecordingUnwinder unwinder(UnwindOptions{UnwinderChoice::kChain, 1});
  std::vector<uint64_t> times;
  std::vector<bool> mapped;
  unwinder.run(reader, [&](const UnwoundSample& s) {
    times.push_back(s.time);
    mapped.push_back(s.maps->find(0x401234) != nullptr);
  });
  CHECK(times == std::vector<uint64_t>{2000, 3000});
  CHECK(mapped == std::vector<bool>{true, true});
  CHECK(unwinder.stats().samples == 2);
}

TEST_CASE("interleaved rings come out in (time, file order), as a stable sort would order them",
          "[recording_unwinder]") {
  TempFile file;
  std::vector<uint8_t> stack(64, 0);
  std::vector<std::pair<uint64_t, uint32_t>> written;  // (time, pid): pid tells equal times apart
  {
    RecordingWriter w(file.path, RecordingHeader{}, 2048);
    // Four "rings" drained in turns of 5 records, each in time order; equal
    // times across rings, and a ring that lags far behind the others.
    uint64_t next[4] = {1000, 1000, 1003, 200};
    for (int turn = 0; turn < 60; ++turn)
      for (uint32_t ring = 0; ring < 4; ++ring)
        for (int k = 0; k < 5; ++k) {
          const uint32_t pid = 10 + ring;
          w.write(sample_at(pid, next[ring], 0x401234, stack));
          written.emplace_back(next[ring], pid);
          next[ring] += ring == 1 ? 2 : 3;
        }
    w.finish(EndRecord{"{}"});
  }
  std::stable_sort(written.begin(), written.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  RecordingReader reader(file.path);
  RecordingUnwinder unwinder(UnwindOptions{UnwinderChoice::kChain, 1});
  std::vector<std::pair<uint64_t, uint32_t>> replayed;
  unwinder.run(reader, [&](const UnwoundSample& s) { replayed.emplace_back(s.time, s.pid); });
  CHECK(replayed == written);
}

TEST_CASE("a mapping after a sample in time does not apply to it", "[recording_unwinder]") {
  TempFile file;
  std::vector<uint8_t> stack(64, 0);
  {
    RecordingWriter w(file.path, RecordingHeader{});
    w.write(sample_at(9, 1000, 0x501234, stack));
    w.write(mapping_at(9, 5000, 0x500000));  // mapped later (dlopen)
    w.finish(EndRecord{"{}"});
  }
  RecordingReader reader(file.path);
  RecordingUnwinder unwinder(UnwindOptions{UnwinderChoice::kChain, 1});
  bool mapped = true;
  unwinder.run(reader, [&](const UnwoundSample& s) { mapped = s.maps->find(0x501234) != nullptr; });
  CHECK_FALSE(mapped);
}

TEST_CASE("on_ahead sees each batch's samples, unwound and in order, before on_sample sees them", "[recording_unwinder]") {
  TempFile file;
  std::vector<uint8_t> stack(64, 0);
  {
    RecordingWriter w(file.path, RecordingHeader{});
    w.write(mapping_at(7, 1, 0x400000));
    for (uint64_t t = 1; t <= 10; ++t) w.write(sample_at(7, 1000 * t, 0x401000 + t, stack));
    w.finish(EndRecord{"{}"});
  }
  RecordingReader reader(file.path);
  UnwindOptions options{UnwinderChoice::kChain, 1};
  options.batch = 4;
  RecordingUnwinder unwinder(options);
  std::vector<std::pair<char, uint64_t>> events;  // ('a'head or 's'ample, time)
  unwinder.run(
      reader, [&](const UnwoundSample& s) { events.emplace_back('s', s.time); }, {},
      [&](const UnwoundSample& s) {
        CHECK(!s.walk.frames.empty());  // unwound already
        events.emplace_back('a', s.time);
      });
  std::vector<std::pair<char, uint64_t>> want;
  for (uint64_t first : {1, 5, 9}) {  // batches of 4, 4 and 2
    const uint64_t last = std::min<uint64_t>(first + 3, 10);
    for (uint64_t t = first; t <= last; ++t) want.emplace_back('a', 1000 * t);
    for (uint64_t t = first; t <= last; ++t) want.emplace_back('s', 1000 * t);
  }
  CHECK(events == want);
}

namespace {

// A source that counts the records taken from it.
class CountingSource final : public RecordSource {
 public:
  explicit CountingSource(RecordSource& inner) : inner_(inner) {}
  const RecordingHeader& header() const override { return inner_.header(); }
  std::optional<Record> next() override {
    auto r = inner_.next();
    taken += r.has_value();
    return r;
  }
  const ReadStatus& status() const override { return inner_.status(); }
  const std::string& path() const override { return inner_.path(); }
  SourceFormat format() const override { return inner_.format(); }
  std::unique_ptr<RecordSource> reread() const override { return inner_.reread(); }
  size_t taken = 0;

 private:
  RecordSource& inner_;
};

}  // namespace

TEST_CASE("a flush record lets the samples older than it go before the window's time is up", "[recording_unwinder]") {
  for (const bool flush : {true, false}) {
    TempFile file;
    std::vector<uint8_t> stack(64, 0);
    {
      RecordingWriter w(file.path, RecordingHeader{});
      w.write(mapping_at(7, 500, 0x400000));
      w.write(sample_at(7, 1000, 0x401234, stack));
      w.write(sample_at(7, 1200, 0x401234, stack));
      if (flush) w.write(FlushRecord{1100});
      w.write(sample_at(7, 1300, 0x401234, stack));
      w.write(sample_at(7, 1050, 0x401234, stack));  // older than the flush said: still delivered
      for (uint64_t t = 2000; t < 2010; ++t) w.write(sample_at(7, t, 0x401234, stack));
      w.finish(EndRecord{"{}"});
    }
    RecordingReader file_reader(file.path);
    CountingSource reader(file_reader);
    UnwindOptions options{UnwinderChoice::kChain, 1};
    options.batch = 1;  // each sample is delivered when the next one is replayed
    RecordingUnwinder unwinder(options);
    std::vector<uint64_t> times;
    size_t taken_at_first = 0;
    bool mapped = true;
    unwinder.run(reader, [&](const UnwoundSample& s) {
      if (times.empty()) taken_at_first = reader.taken;
      times.push_back(s.time);
      mapped = mapped && s.maps->find(0x401234) != nullptr;
    });
    INFO("with a flush record: " << flush);
    CHECK(mapped);
    CHECK(unwinder.stats().samples == 14);
    CHECK(std::is_sorted(times.begin(), times.end()));
    // Without it, half a second of window holds every sample to the end.
    if (flush) CHECK(taken_at_first <= 6);
    else CHECK(taken_at_first == reader.taken);
  }
}

TEST_CASE("the first samples are looked ahead at after a few dozen, not after two whole batches",
          "[recording_unwinder]") {
  TempFile file;
  std::vector<uint8_t> stack(64, 0);
  {
    RecordingWriter w(file.path, RecordingHeader{});
    w.write(mapping_at(7, 500, 0x400000));
    for (uint64_t t = 1000; t < 1600; ++t) {
      w.write(sample_at(7, t, 0x401234, stack));
      w.write(FlushRecord{t});  // each sample leaves the window at once
    }
    w.finish(EndRecord{"{}"});
  }
  RecordingReader file_reader(file.path);
  CountingSource reader(file_reader);
  UnwindOptions options{UnwinderChoice::kChain, 2};
  REQUIRE(options.batch == 256);
  RecordingUnwinder unwinder(options);
  size_t taken_at_first_ahead = 0;
  size_t samples = 0;
  unwinder.run(
      reader, [&](const UnwoundSample&) { ++samples; }, {},
      [&](const UnwoundSample&) {
        if (!taken_at_first_ahead) taken_at_first_ahead = reader.taken;
      });
  CHECK(samples == 600);
  // Batches of 16, then 32: the first is delivered once the second is
  // collected (two records a sample). Whole batches would take 1,024.
  CHECK(taken_at_first_ahead > 0);
  CHECK(taken_at_first_ahead <= 2 * (16 + 32) + 4);
}

TEST_CASE("frames past the copy are used when the copy's outermost frames read the same, else the walk ends at the copy",
          "[recording_unwinder]") {
  const testing::SelfSnapshot s = unwinder_deep_descend(1000);
  constexpr size_t kCopied = 32768;
  REQUIRE(s.stack.size() > 64 * 1000);
  const uint64_t copy_end = s.regs.sp() + kCopied;
  testing::TempDir dir;
  const std::string path = dir.file("r.swprof");
  write_cut_snapshot(path, s, kCopied, std::vector<uint8_t>(kCopied / 64, 0));
  const OneWalk same = unwind_one(path);
  INFO(same.walk.frames.size() << " frames, ended " << walk_end_name(same.walk.end));
  REQUIRE(same.walk.end == WalkEnd::kBottom);
  CHECK(same.walk.frames.size() > 1000);
  CHECK(std::any_of(same.walk.frames.begin(), same.walk.frames.end(), [](const Frame& f) { return f.flags & kFrameBeyondCopy; }));
  CHECK(same.stats.beyond_copy_dropped == 0);

  // The outermost return address in the copy: 8 bytes below the last frame there.
  uint64_t outermost = 0;
  for (const Frame& f : same.walk.frames)
    if (f.sp <= copy_end) outermost = f.sp - 8;
  REQUIRE(copy_end - outermost < kCopied);
  std::vector<uint8_t> changed(kCopied / 64, 0);
  const uint64_t word = (copy_end - outermost) / 8 - 1;
  changed[word / 8] |= static_cast<uint8_t>(1u << (word % 8));
  write_cut_snapshot(path, s, kCopied, changed);
  const OneWalk moved = unwind_one(path);
  CHECK(moved.walk.end == WalkEnd::kStackExhausted);
  CHECK(std::none_of(moved.walk.frames.begin(), moved.walk.frames.end(), [&](const Frame& f) { return f.sp > copy_end; }));
  CHECK(moved.walk.frames.size() + 10 < same.walk.frames.size());
  CHECK(moved.stats.beyond_copy_dropped == 1);
  CHECK(moved.stats.beyond_copy_samples == 0);
}

