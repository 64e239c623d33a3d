#include "profile/pipeline.h"

#include <linux/perf_event.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <future>
#include <set>

#include "binary/elf_binary.h"
#include "common/error.h"
#include "recording/build_id.h"
#include "support/cli_harness.h"
#include "support/off_cpu_recording.h"
#include "support/perf_data_image.h"
#include "support/recording_layout.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"
#include "support/thread_recording.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

struct SeenSample {
  uint32_t tid;
  uint64_t time;
  std::string comm;
  bool named;
  size_t user_frames;
  std::vector<std::string> kernel_functions;  // leaf first
};

// Keeps what the pipeline hands over, and checks the symbols line up with the frames.
class CollectingSink : public SampleSink {
 public:
  void begin(const RecordingHeader& header) override { event = header.event; }
  void add(const PipelineSample& s) override {
    CHECK(s.user_symbols.size() == s.unwound.walk.frames.size());
    SeenSample seen{s.unwound.tid, s.unwound.time, s.comm, s.named_by_record, s.user_symbols.size(), {}};
    for (const SymbolizedAddress* k : s.kernel_symbols) seen.kernel_functions.push_back(k->frames.back().function);
    kernel_ips_read += s.unwound.kernel_ips.size();
    samples.push_back(seen);
  }
  std::string event;
  std::vector<SeenSample> samples;
  size_t kernel_ips_read = 0;
};

struct Fixture {
  TempDir dir;
  std::string recording = dir.file("threads.swprof");
  PipelineOptions options;
  Fixture() {
    write_thread_recording(recording);
    std::ofstream(dir.file("kallsyms")) << kallsyms_text();
    options.symbols.kallsyms_path = dir.file("kallsyms");
    options.symbols.perf_map_dir = dir.path();
    options.unwind.threads = 1;
  }
};

}  // namespace

TEST_CASE("pipeline: every sample in recording order, with its thread's name as of then", "[pipeline]") {
  Fixture f;
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
  CHECK(sink.event == "cpu-clock");
  REQUIRE(sink.samples.size() == 4);
  CHECK(sink.samples[0].tid == 100);
  CHECK(sink.samples[0].comm == "main");
  CHECK(sink.samples[0].named);
  CHECK(sink.samples[0].user_frames >= 1);
  CHECK(sink.samples[0].kernel_functions == std::vector<std::string>{"k_leaf", "k_caller"});
  // Forked from "main" before any COMM record of its own: inherited.
  CHECK(sink.samples[1].tid == 101);
  CHECK(sink.samples[1].comm == "main");
  CHECK_FALSE(sink.samples[1].named);
  CHECK(sink.samples[2].comm == "worker");
  CHECK(sink.samples[2].named);
  CHECK(sink.samples[3].tid == 102);
  CHECK(sink.samples[3].comm.empty());
  CHECK_FALSE(sink.samples[3].named);

  CHECK(pass.header.command == std::vector<std::string>{"./threads"});
  CHECK(pass.status.ok());
  CHECK(pass.samples_read == 4);
  CHECK(pass.unwind.samples == 4);
  CHECK(pass.lost == 5);
  CHECK(pass.first_time == at_seconds(0.2));
  CHECK(pass.last_time == at_seconds(1.6));
}

TEST_CASE("pipeline: thread and time filters keep samples, all samples are counted as read", "[pipeline]") {
  Fixture f;
  SECTION("by thread id and time window (from inclusive, to exclusive)") {
    f.options.filter.tids = {101};
    f.options.filter.from_seconds = 0.3;
    f.options.filter.to_seconds = 1.5;
    CollectingSink sink;
    const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
    REQUIRE(sink.samples.size() == 1);
    CHECK(sink.samples[0].time == at_seconds(0.3));
    CHECK(pass.samples_read == 4);
    CHECK(pass.unwind.samples == 4);
    CHECK(pass.first_time == at_seconds(0.2));
  }
  SECTION("by thread name, inherited names included") {
    f.options.filter.comms = {"main"};
    CollectingSink sink;
    run_pipeline(f.recording, f.options, sink);
    REQUIRE(sink.samples.size() == 2);
    CHECK(sink.samples[0].tid == 100);
    CHECK(sink.samples[1].tid == 101);
  }
}

TEST_CASE("pipeline: without kernel frames the kernel call chain is not symbolized", "[pipeline]") {
  Fixture f;
  f.options.filter.kernel_frames = false;
  CollectingSink sink;
  run_pipeline(f.recording, f.options, sink);
  REQUIRE(sink.samples.size() == 4);
  CHECK(sink.samples[0].kernel_functions.empty());
  CHECK(sink.kernel_ips_read == 2);
}

namespace {

// The warnings about reading `path` (the kallsyms file).
size_t warnings_naming(const PipelineResult& pass, const std::string& path) {
  size_t n = 0;
  for (const std::string& w : pass.warnings) n += w.find(path) != std::string::npos;
  return n;
}

// The thread recording with the kernel symbols a recorder keeps at its end.
void write_thread_recording_with_kernel_symbols(const std::string& path) {
  RecordingWriter w(path, RecordingHeader{});
  const std::vector<uint8_t> stack(64, 0);
  w.write(make_sample(100, 1000, 0x7ff000, stack, {kKernelLeaf, kKernelCaller}).view);
  w.flush();
  const std::string text = kallsyms_text();
  w.write(ImageRecord{kKallsymsImageName, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size())});
  w.finish(EndRecord{"{}"});
}

}  // namespace

TEST_CASE("pipeline: kallsyms is read only when a kept sample has kernel frames the recording does not name",
          "[pipeline]") {
  Fixture f;
  const std::string kallsyms = f.dir.file("missing-kallsyms");  // reading it gives a warning naming it
  f.options.symbols.kallsyms_path = kallsyms;
  CollectingSink sink;
  SECTION("kernel frames to name: read once") {
    const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
    CHECK(warnings_naming(pass, kallsyms) == 1);
    REQUIRE(sink.samples.size() == 4);
    CHECK(sink.samples[0].kernel_functions == std::vector<std::string>{"", ""});
  }
  SECTION("kernel frames left out: never read") {
    f.options.filter.kernel_frames = false;
    CHECK(warnings_naming(run_pipeline(f.recording, f.options, sink), kallsyms) == 0);
  }
  SECTION("only samples without kernel frames kept: never read") {
    f.options.filter.tids = {101, 102};
    const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
    CHECK(sink.samples.size() == 3);
    CHECK(warnings_naming(pass, kallsyms) == 0);
  }
  SECTION("the recording names them: never read") {
    const std::string recording = f.dir.file("named.swprof");
    write_thread_recording_with_kernel_symbols(recording);
    const PipelineResult pass = run_pipeline(recording, f.options, sink);
    CHECK(warnings_naming(pass, kallsyms) == 0);
    REQUIRE(sink.samples.size() == 1);
    CHECK(sink.samples[0].kernel_functions == std::vector<std::string>{"k_leaf", "k_caller"});
  }
}

TEST_CASE("pipeline: files of mappings no sample reaches are never opened, nor warned about when missing",
          "[pipeline]") {
  TempDir dir;
  const std::string path = dir.file("maps.swprof");
  {
    RecordingWriter w(path, RecordingHeader{});
    auto map = [&](uint64_t start, const std::string& file, uint32_t prot) {
      MappingRecord m = make_mapping(1, file, false);
      m.start = start;
      m.length = 0x10000;
      m.file_offset = 0;
      m.prot = prot;
      w.write(m);
    };
    map(0x400000, "/nonexistent/sampled.so", 5);
    map(0x600000, "/nonexistent/unsampled.so", 5);
    map(0x700000, "/nonexistent/unsampled-data", 3);
    OwnedSample s = make_sample(100, 10, 0x7ff000, std::vector<uint8_t>(64, 0));
    s.view.regs[8] = 0x401234;  // IP in perf order: in sampled.so
    w.write(s.view);
    w.finish(EndRecord{"{}"});
  }
  PipelineOptions options;
  options.unwind.threads = 1;
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(path, options, sink);
  REQUIRE(sink.samples.size() == 1);
  size_t sampled = 0;
  for (const std::string& w : pass.warnings) {
    CHECK(w.find("unsampled") == std::string::npos);
    sampled += w.find("/nonexistent/sampled.so") != std::string::npos;
  }
  CHECK(sampled == 1);
}

TEST_CASE("pipeline: both symbolizing orders give the same symbols", "[pipeline]") {
  Fixture f;
  CollectingSink root_first, leaf_first;
  run_pipeline(f.recording, f.options, root_first);
  f.options.symbolize_order = FrameOrder::kLeafFirst;
  run_pipeline(f.recording, f.options, leaf_first);
  REQUIRE(root_first.samples.size() == leaf_first.samples.size());
  for (size_t i = 0; i < root_first.samples.size(); ++i) {
    CHECK(root_first.samples[i].user_frames == leaf_first.samples[i].user_frames);
    CHECK(root_first.samples[i].kernel_functions == leaf_first.samples[i].kernel_functions);
  }
}

TEST_CASE("pipeline: progress every 4096 samples read", "[pipeline]") {
  TempDir dir;
  const std::string path = dir.file("many.swprof");
  {
    RecordingWriter w(path, RecordingHeader{});
    const std::vector<uint8_t> stack(16, 0);
    for (uint64_t i = 0; i < 8200; ++i) w.write(make_sample(7, 1000 + i, 0x7ff000, stack).view);
    w.finish(EndRecord{"{}"});
  }
  PipelineOptions options;
  options.unwind.threads = 1;
  options.filter.tids = {8};  // none kept: progress counts samples read
  std::vector<uint64_t> shown;
  options.progress = [&](const ProfileProgress& p) {
    shown.push_back(p.samples);
    CHECK(p.bytes <= p.file_bytes);
  };
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(path, options, sink);
  CHECK(shown == std::vector<uint64_t>{4096, 8192});
  CHECK(sink.samples.empty());
  CHECK(pass.samples_read == 8200);
}

TEST_CASE("pipeline: a cut recording ends the pass at the cut, with its status", "[pipeline]") {
  Fixture f;
  // Two samples in a chunk of their own before the thread recording's.
  RecordingHeader header;
  header.mode = "record";
  header.event = "cpu-clock";
  header.start_monotonic_ns = kThreadRecordingStart;
  RecordingWriter w(f.recording, header);
  const std::vector<uint8_t> stack(64, 0);
  for (double t : {0.1, 0.2}) w.write(make_sample(100, at_seconds(t), 0x7ff000, stack, {}).view);
  w.flush();
  for (double t : {0.3, 0.4}) w.write(make_sample(100, at_seconds(t), 0x7ff000, stack, {}).view);
  w.finish(EndRecord{"{}"});
  std::filesystem::resize_file(f.recording, chunks_end(f.recording) - 3);  // inside the last chunk
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
  CHECK_FALSE(pass.status.ok());
  CHECK(pass.samples_read == 2);
  CHECK(pass.samples_read == sink.samples.size());
}

TEST_CASE("pipeline: a file that is no recording throws", "[pipeline]") {
  TempDir dir;
  std::ofstream(dir.file("not.swprof")) << "main;a 1\n";
  CollectingSink sink;
  CHECK_THROWS_AS(run_pipeline(dir.file("not.swprof"), PipelineOptions{}, sink), Error);
}

namespace {

void write_perf_data_samples(const std::string& path, size_t damaged, size_t good) {
  const ByteVector bytes = perf_data_with_damaged_samples(damaged, good);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string pipeline_error(const std::string& path, const PipelineOptions& options) {
  CollectingSink sink;
  try {
    run_pipeline(path, options, sink);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("pipeline: a perf.data file whose samples are all damaged is one clear error, one without samples is not",
          "[pipeline]") {
  TempDir dir;
  PipelineOptions options;
  options.unwind.threads = 1;
  const std::string damaged = dir.file("damaged.data");
  write_perf_data_samples(damaged, 50, 0);
  CHECK(pipeline_error(damaged, options) ==
        "perf.data file '" + damaged + "': none of its 50 samples could be read (damaged records); nothing to report");

  const std::string some = dir.file("some.data");
  write_perf_data_samples(some, 50, 1);
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(some, options, sink);
  CHECK(pass.samples_read == 1);
  CHECK(pass.status.damaged_samples == 50);

  const std::string none = dir.file("none.data");
  write_perf_data_samples(none, 0, 0);
  CollectingSink empty;
  CHECK(run_pipeline(none, options, empty).samples_read == 0);
}

TEST_CASE("pipeline: a recording damaged before its first sample is one clear error", "[pipeline]") {
  Fixture f;
  damage_first_chunk(f.recording);
  const std::string error = pipeline_error(f.recording, f.options);
  CHECK_THAT(error, Catch::StartsWith("recording '" + f.recording + "': damaged before its first sample (") &&
                        Catch::EndsWith("); nothing to report"));
}

namespace {

// Compares each kernel frame's name with what the running kernel's
// /proc/kallsyms gives for the same address.
class KernelNameSink : public SampleSink {
 public:
  void add(const PipelineSample& s) override {
    for (size_t i = 0; i < s.kernel_symbols.size(); ++i) {
      const SourceFrame& kept = s.kernel_symbols[i]->frames.back();
      const SourceFrame& live = live_.symbolize_kernel(s.unwound.kernel_ips[i]).frames.back();
      named += !kept.function.empty();
      same += kept.function == live.function && kept.module == live.module &&
              kept.function_offset == live.function_offset;
      ++frames;
    }
  }
  Symbolizer live_;  // reads /proc/kallsyms
  size_t frames = 0, named = 0, same = 0;
};

}  // namespace

TEST_CASE("pipeline: kernel frames are named from the recording's kernel symbols as /proc/kallsyms names them",
          "[pipeline][integration]") {
  TempDir dir;
  const std::string out = dir.file("sys.swprof");
  // On-CPU samples in system calls, and off-CPU samples taken in the scheduler.
  const bool off_cpu = GENERATE(false, true);
  const std::vector<std::string> args =
      off_cpu ? std::vector<std::string>{swprof_bin(), "record", "--wall", "-o", out,
                                         std::string(KNOWN_STACK_DIR) + "/known_waits"}
              : std::vector<std::string>{swprof_bin(), "record", "-o", out, workload_bin(), "syscalls", "0.4"};
  auto r = run(args, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  PipelineOptions options;
  options.symbols.kallsyms_path = dir.file("unreadable");  // as after a reboot, or on another machine
  KernelNameSink sink;
  const PipelineResult pass = run_pipeline(out, options, sink);
  REQUIRE(sink.frames >= 100);
  if (sink.live_.warnings().size() > 0) {
    WARN("/proc/kallsyms is not readable here: names not compared");
    return;
  }
  CHECK(sink.named >= sink.frames * 9 / 10);
  CHECK(sink.same == sink.frames);
  for (const std::string& w : pass.warnings) CHECK(w.find("unreadable") == std::string::npos);
}

TEST_CASE("pipeline: the executable files mapped, once each, in the order first mapped", "[pipeline]") {
  TempDir dir;
  const std::string path = dir.file("maps.swprof");
  {
    RecordingHeader header;
    header.mode = "record";
    header.event = "cpu-clock";
    RecordingWriter w(path, header);
    MappingRecord app = make_mapping(1, "/opt/app", true);
    MappingRecord data = make_mapping(2, "/opt/app.data", false);
    data.prot = 3;  // read and write, not executable
    MappingRecord anon = make_mapping(3, "//anon", false);
    MappingRecord vdso = make_mapping(4, "[vdso]", false);
    MappingRecord again = make_mapping(5, "/opt/app", false);
    again.start = 0x900000;
    MappingRecord lib = make_mapping(6, "/lib/libc.so.6", false);
    lib.start = 0x7f0000;
    lib.length = 0x100;
    lib.file_offset = 0;
    for (const MappingRecord* m : {&app, &data, &anon, &vdso, &again, &lib}) w.write(*m);
    w.finish(EndRecord{"{}"});
  }
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(path, PipelineOptions{}, sink);
  REQUIRE(pass.mapped_files.size() == 3);
  const ExecutableMapping& app = pass.mapped_files[0];
  CHECK(app.path == "/opt/app");
  CHECK(app.build_id == make_mapping(1, "/opt/app", true).build_id_hex());
  CHECK(app.build_id.size() == 40);
  CHECK(app.start == 0x400000);
  CHECK(app.limit == 0x402000);
  CHECK(app.file_offset == 0x1000);
  CHECK(pass.mapped_files[1].path == "[vdso]");
  CHECK(pass.mapped_files[2].path == "/lib/libc.so.6");
  CHECK(pass.mapped_files[2].build_id.empty());
  CHECK(pass.mapped_files[2].limit == 0x7f0100);
}

namespace {

constexpr uint64_t kRecordedText = 0xffffffff9a000000;  // _text of the recorded boot

// The start of a perf.data file (`perf record -g`) recorded on the kernel
// with build-id `kernel`, whose _text was at kRecordedText: its mapping,
// then thread 42's name "app".
PerfDataImage kernel_image(const BuildId& kernel) {
  PerfDataImage img;
  PerfImageEvent e;
  e.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  e.ids = {1};
  img.add_event(e);
  img.add_build_id("[kernel.kallsyms]", kernel);
  img.add_record(img.mmap(0xffffffffu, kRecordedText, 0x1200000, kRecordedText, "[kernel.kallsyms]_text", 1));
  img.add_record(img.comm(42, 42, "app", 2));
  return img;
}

// A perf.data file (`perf record -g`) of one sample in the kernel, recorded
// on the kernel with build-id `kernel`, whose _text was at kRecordedText.
void write_perf_data_with_kernel(const std::string& path, const BuildId& kernel) {
  PerfDataImage img = kernel_image(kernel);
  PerfImageSample s;
  s.misc = 1;  // PERF_RECORD_MISC_KERNEL
  s.pid = s.tid = 42;
  s.ip = kRecordedText + 0x104;
  s.time = 3;
  s.period = 1000;
  s.callchain = {static_cast<uint64_t>(PERF_CONTEXT_KERNEL), kRecordedText + 0x104,
                 static_cast<uint64_t>(PERF_CONTEXT_USER), 0x401000};
  img.add_record(img.sample(s));
  const auto bytes = img.build();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string kallsyms_with_text_at(uint64_t text, const std::string& prefix) {
  char lines[256];
  std::snprintf(lines, sizeof lines, "%016llx T _text\n%016llx T %sfunction\n", static_cast<unsigned long long>(text),
                static_cast<unsigned long long>(text + 0x100), prefix.c_str());
  return lines;
}

struct PerfDataFixture {
  TempDir dir;
  std::string recording = dir.file("perf.data");
  std::string cache_dir = dir.file("debug");
  ScopedEnv buildid_dir{"PERF_BUILDID_DIR", cache_dir};  // perf's build-id cache, as perf finds it
  PipelineOptions options;
  PerfDataFixture() {
    options.symbols.kallsyms_path = dir.file("kallsyms");
    options.symbols.perf_map_dir = dir.path();
    options.unwind.threads = 1;
    std::ofstream(options.symbols.kallsyms_path) << kallsyms_with_text_at(kRecordedText, "running_");
  }
  void write_cache(const BuildId& id, const std::string& text) const {
    const std::string file = perf_kallsyms_cache_path(cache_dir, id);
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file) << text;
  }
  std::vector<std::string> kernel_functions(PipelineResult& pass) {
    CollectingSink sink;
    pass = run_pipeline(recording, options, sink);
    REQUIRE(sink.samples.size() == 1);
    return sink.samples[0].kernel_functions;
  }
};

bool any_warning_has(const PipelineResult& pass, const std::string& text) {
  return std::any_of(pass.warnings.begin(), pass.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("pipeline: a perf.data recording's kernel frames are named by perf's build-id cache, never another kernel's",
          "[pipeline][kernel]") {
  PerfDataFixture f;
  const BuildId recorded(20, 0x6b);  // no kernel's that runs anywhere
  write_perf_data_with_kernel(f.recording, recorded);
  PipelineResult pass;
  SECTION("the cache's copy agrees with the recording: named from it, kallsyms not read") {
    f.write_cache(recorded, kallsyms_with_text_at(kRecordedText, "cached_"));
    CHECK(f.kernel_functions(pass) == std::vector<std::string>{"cached_function"});
    CHECK(pass.warnings.empty());
  }
  SECTION("the cache's copy is of another boot: not named, one warning") {
    f.write_cache(recorded, kallsyms_with_text_at(kRecordedText + 0x200000, "cached_"));
    CHECK(f.kernel_functions(pass) == std::vector<std::string>{""});
    REQUIRE(pass.warnings.size() == 1);
    CHECK(any_warning_has(pass, "another boot"));
  }
  SECTION("no copy, another kernel runs: not named, one warning saying how to get names") {
    CHECK(f.kernel_functions(pass) == std::vector<std::string>{""});
    REQUIRE(pass.warnings.size() == 1);
    CHECK(any_warning_has(pass, "not the running one"));
    CHECK(any_warning_has(pass, to_hex(recorded)));
  }
}

TEST_CASE("pipeline: a perf.data recording's kernel symbols read ahead warn only when a kept sample uses them",
          "[pipeline][kernel]") {
  PerfDataFixture f;
  write_perf_data_with_kernel(f.recording, BuildId(20, 0x6c));  // no copy, not the running kernel: a warning if used
  CollectingSink sink;
  SECTION("kernel frames left out") { f.options.filter.kernel_frames = false; }
  SECTION("no sample kept") { f.options.filter.tids = {43}; }
  const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
  CHECK(pass.warnings.empty());
}

TEST_CASE("pipeline: a perf.data recording of the running kernel without a cached copy reads kallsyms",
          "[pipeline][kernel]") {
  const std::optional<BuildId> running = running_kernel_build_id();
  if (!running) {
    WARN("the running kernel's build-id is not readable here: not checked");
    return;
  }
  PerfDataFixture f;
  write_perf_data_with_kernel(f.recording, *running);
  PipelineResult pass;
  CHECK(f.kernel_functions(pass) == std::vector<std::string>{"running_function"});
  CHECK(pass.warnings.empty());
}

TEST_CASE("pipeline: samples kept while the kernel's symbols are read go on in recording order, named as of then",
          "[pipeline][kernel]") {
  // perf's copy of a large kallsyms, read on its own thread while the
  // first samples are unwound: samples with kernel frames, and those after
  // them, wait for it; their thread names are the names when they were taken.
  PerfDataFixture f;
  const BuildId recorded(20, 0x6d);
  std::string big = kallsyms_with_text_at(kRecordedText, "cached_");
  char line[96];
  for (int i = 0; i < 200000; ++i) {
    std::snprintf(line, sizeof line, "%016llx t filler_%d\n",
                  static_cast<unsigned long long>(kRecordedText + 0x1000 + 16ull * static_cast<unsigned>(i)), i);
    big += line;
  }
  f.write_cache(recorded, big);
  PerfDataImage img = kernel_image(recorded);
  constexpr int kSamples = 3000;
  for (int i = 0; i < kSamples; ++i) {
    if (i == kSamples / 2) img.add_record(img.comm(42, 42, "renamed", 10 + 2 * static_cast<uint64_t>(i)));
    PerfImageSample s;
    s.pid = s.tid = 42;
    s.time = 11 + 2 * static_cast<uint64_t>(i);
    s.period = 1000;
    if (i % 2 == 0) {  // in the kernel
      s.misc = 1;
      s.ip = kRecordedText + 0x104;
      s.callchain = {static_cast<uint64_t>(PERF_CONTEXT_KERNEL), kRecordedText + 0x104,
                     static_cast<uint64_t>(PERF_CONTEXT_USER), 0x401000};
    } else {
      s.ip = 0x401000;
      s.callchain = {static_cast<uint64_t>(PERF_CONTEXT_USER), 0x401000};
    }
    img.add_record(img.sample(s));
  }
  const auto bytes = img.build();
  std::ofstream(f.recording, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  CollectingSink sink;
  const PipelineResult pass = run_pipeline(f.recording, f.options, sink);
  CHECK(pass.warnings.empty());
  REQUIRE(sink.samples.size() == kSamples);
  for (int i = 0; i < kSamples; ++i) {
    const SeenSample& s = sink.samples[static_cast<size_t>(i)];
    INFO("sample " << i);
    CHECK(s.time == 11 + 2 * static_cast<uint64_t>(i));
    CHECK(s.comm == (i < kSamples / 2 ? "app" : "renamed"));
    CHECK(s.kernel_functions == (i % 2 == 0 ? std::vector<std::string>{"cached_function"} : std::vector<std::string>{}));
  }
}

namespace {

// Checks that every user frame handed over is named.
class NamedFramesSink : public SampleSink {
 public:
  void add(const PipelineSample& s) override {
    times.push_back(s.unwound.time);
    for (const SymbolizedAddress* a : s.user_symbols) {
      unnamed += a == nullptr;
      if (a) functions.insert(a->frames.back().function);
    }
  }
  std::vector<uint64_t> times;
  size_t unnamed = 0;
  std::set<std::string> functions;
};

}  // namespace

TEST_CASE("pipeline: samples are read on while a binary's debuginfo is read, and come out in order, named",
          "[pipeline]") {
  // The test program itself, mapped as a process would map it, its .text
  // sampled by 5,000 samples.
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto binary = ElfBinary::open(exe);
  REQUIRE(binary);
  const auto text = binary->section(".text");
  REQUIRE(text);
  constexpr uint64_t kStart = 0x555555554000;
  TempDir dir;
  const std::string path = dir.file("deferred.swprof");
  constexpr size_t kSamples = 5000;
  {
    RecordingWriter w(path, RecordingHeader{});
    MappingRecord m = make_mapping(1, exe, false);
    m.start = kStart;
    m.length = (std::filesystem::file_size(exe) + 0xfff) & ~uint64_t{0xfff};
    m.file_offset = 0;
    w.write(m);
    for (uint64_t i = 0; i < kSamples; ++i) {
      OwnedSample s = make_sample(100, 10 + i, 0x7ff000, std::vector<uint8_t>(64, 0));
      s.view.regs[8] = kStart + text->addr + (i * 64) % text->data.size();  // IP in perf order
      w.write(s.view);
    }
    w.finish(EndRecord{"{}"});
  }
  // The prefetch thread reading the binary is held until 4,096 samples are
  // read, or 30 s: a pass that waited for it would read none meanwhile.
  std::promise<void> read_on;
  std::shared_future<void> gate = read_on.get_future().share();
  std::atomic<bool> held{false};
  std::atomic<bool> released_by_reading{false};
  PipelineOptions options;
  options.unwind.threads = 1;
  options.symbols.debug_roots = {dir.file("debug")};
  options.symbols.before_prefetch = [&] {
    held = true;
    released_by_reading = gate.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  };
  options.progress = [&](const ProfileProgress& p) {
    if (p.samples == 4096) read_on.set_value();
  };
  NamedFramesSink sink;
  const PipelineResult pass = run_pipeline(path, options, sink);
  CHECK(held);
  CHECK(released_by_reading);
  CHECK(pass.samples_read == kSamples);
  REQUIRE(sink.times.size() == kSamples);
  CHECK(std::is_sorted(sink.times.begin(), sink.times.end()));
  CHECK(sink.unnamed == 0);
  CHECK(sink.functions.size() > 10);
  CHECK(sink.functions.count("") == 0);
}

namespace {

// What reaches the sink of an off-CPU recording, one line per sample.
class WeighedSink : public SampleSink {
 public:
  void add(const PipelineSample& s) override {
    std::string line = std::string(s.kind == SampleKind::kOffCpu ? "off " : "on ") + std::to_string(s.unwound.tid) +
                       " t=" + std::to_string(s.unwound.time) + " w=" + std::to_string(s.weight);
    if (s.off_cpu) line += " preempted_ns=" + std::to_string(s.off_cpu->preempted_ns) + " open=" + std::to_string(s.off_cpu->open);
    for (const SymbolizedAddress* k : s.kernel_symbols) line += " " + k->frames.back().function;
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

}  // namespace

TEST_CASE("pipeline: a finished recording is read once, every byte, and weighs as the layout of version 3",
          "[pipeline]") {
  TempDir dir;
  const std::string v4 = dir.file("wall.swprof"), v3 = dir.file("wall-v3.swprof");
  // Kernel symbols of some size, as a recorder's are: the files are larger than the head a file keeps.
  std::string kallsyms = off_cpu_kallsyms_text();
  char line[64];
  for (uint64_t i = 0; i < 4000; ++i) {
    std::snprintf(line, sizeof line, "%llx T filler_%llu\n", 0xffffffff82000000ull + i * 0x1a0,
                  static_cast<unsigned long long>(i * 7919 % 4001));
    kallsyms += line;
  }
  write_off_cpu_recording<RecordingWriter>(v4, {}, off_cpu_header(), kallsyms);
  write_off_cpu_recording<RecordingV3Writer>(v3, {}, off_cpu_header(), kallsyms);
  REQUIRE(std::filesystem::file_size(v4) > 4 * RecordingBytes::kHeadBytes);
  PipelineOptions options;
  options.unwind.threads = 1;
  options.symbols.kallsyms_path = dir.file("no-kallsyms");  // the recordings name the kernel frames
  options.symbols.perf_map_dir = dir.path();

  const auto file = RecordingBytes::open(v4, "recording");
  WeighedSink now;
  const PipelineResult pass = run_pipeline(file, options, now);
  CHECK(pass.status.ok());
  CHECK(file->bytes_read() == std::filesystem::file_size(v4));

  const auto old_file = RecordingBytes::open(v3, "recording");
  WeighedSink old;
  run_pipeline(old_file, options, old);
  CHECK(old_file->bytes_read() > std::filesystem::file_size(v3));  // read again for the off-CPU records
  CHECK(now.lines == old.lines);
  REQUIRE(now.lines.size() == 8);
  CHECK(now.lines[3] == "off 101 t=" + std::to_string(off_cpu_at_ms(10)) + " w=5000000 preempted_ns=0 open=0 schedule do_nanosleep");
}
