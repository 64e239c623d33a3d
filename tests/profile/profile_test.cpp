// build_profile (profile/profile.h) on recordings written by the test: the
// samples taken inside execve, weights, the timeline.

#include "profile/profile.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "common/error.h"
#include "recording/recording_writer.h"
#include "support/off_cpu_recording.h"
#include "support/record_fixtures.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kLibcBase = 0x7f0000000000;
constexpr uint64_t kStackTop = 0x7ffd0000;
const char* const kLibc = kLibcPath;

void write_comm(RecordingWriter& w, uint64_t time, const std::string& name, bool exec) {
  CommRecord c;
  c.time = time;
  c.pid = c.tid = 100;
  c.exec = exec;
  c.comm = name;
  w.write(c);
}

// A sample of thread 100 at pc with nothing copied at sp (inside execve).
void write_sample_without_stack(RecordingWriter& w, uint64_t time, uint64_t pc) {
  OwnedSample s = make_sample(100, time, kStackTop, {});
  s.view.ip = pc;
  s.view.regs[8] = pc;  // perf's register order: ... sp (7), ip (8)
  w.write(s.view);
}

std::string stack_text(const CallTree& tree, uint32_t id) {
  std::string text;
  for (uint32_t frame : tree.path(id)) text += (text.empty() ? "" : ";") + tree.frame(frame).function;
  return text;
}

// Each sampled stack as "frame;frame;..." (root first) -> samples.
std::map<std::string, uint64_t> stacks(const CallTree& tree) {
  std::map<std::string, uint64_t> out;
  for (uint32_t id = 1; id < tree.nodes().size(); ++id)
    if (tree.node(id).self) out[stack_text(tree, id)] += tree.node(id).self;
  return out;
}

// The same with the stacks' weights in ms, and their off-CPU part.
struct Weighed {
  double ms = 0, off_ms = 0;
  bool operator==(const Weighed&) const = default;
};
std::map<std::string, Weighed> weighed_stacks(const CallTree& tree) {
  std::map<std::string, Weighed> out;
  for (uint32_t id = 1; id < tree.nodes().size(); ++id) {
    const CctNode& n = tree.node(id);
    if (!n.self) continue;
    Weighed& w = out[stack_text(tree, id)];
    w.ms += static_cast<double>(n.self_weight) / 1e6;
    w.off_ms += static_cast<double>(n.self_off_weight) / 1e6;
  }
  return out;
}

// The off-CPU fixture (support/off_cpu_recording.h) under `weight`.
struct OffCpuProfile {
  TempDir dir;
  std::string recording = dir.file("wall.swprof");
  ProfileOptions options;
  explicit OffCpuProfile(std::optional<WeightKind> weight, const RecordingHeader& header = off_cpu_header()) {
    write_off_cpu_recording(recording, {}, header);
    write_file(dir.file("kallsyms"), off_cpu_kallsyms_text());
    options.symbols.kallsyms_path = dir.file("kallsyms");
    options.symbols.perf_map_dir = dir.path();
    options.unwind.threads = 1;
    options.weight = weight;
  }
  Profile build() const { return build_profile(recording, options); }
};

// Unknown user frames (no mappings) are named by their address; the tests
// look at the kernel part of the stacks (root first: the blocking function,
// then schedule) and [preempted].
std::map<std::string, Weighed> kernel_part(const std::map<std::string, Weighed>& in) {
  std::map<std::string, Weighed> out;
  for (const auto& [stack, w] : in) {
    const size_t k = std::min({stack.find("do_nanosleep"), stack.find("pipe_read"), stack.find("schedule")});
    const std::string key = k == std::string::npos ? "(user)" : stack.substr(k);
    out[key].ms += w.ms;
    out[key].off_ms += w.off_ms;
  }
  return out;
}

std::string error_of(const OffCpuProfile& f) {
  try {
    f.build();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// The kernel's order inside execve: the new (empty) address space, then the
// exec COMM record, then the new program's mappings. Samples in between have
// the old program's registers and no stack copy.
TEST_CASE("build_profile: samples inside execve are execve of the old program under [in execve], or that alone",
          "[profile]") {
  TempDir dir;
  const std::string recording = dir.file("exec.swprof");
  BinaryCache binaries;
  const ProcessMaps libc = load_like_loader(binaries, kLibc, kLibcBase);
  const uint64_t in_execve = kLibcBase + after_execve_syscall(*libc.mappings().front().binary);
  {
    RecordingHeader header;
    header.mode = "record";
    header.event = "cpu-clock";
    RecordingWriter w(recording, header);
    write_comm(w, 1000, "old", false);
    for (const Mapping& m : libc.mappings()) {
      MappingRecord r = make_mapping(1100, kLibc, false);
      r.start = m.start;
      r.length = m.end - m.start;
      r.file_offset = m.file_offset;
      r.prot = m.executable ? 5 : 1;
      w.write(r);
    }
    write_sample_without_stack(w, 2000, in_execve);      // the old maps are still current
    write_comm(w, 3000, "new", true);
    write_sample_without_stack(w, 4000, in_execve);      // named from the maps execve replaced
    write_sample_without_stack(w, 5000, 0x7e0000001000);  // in no maps at all
    w.finish(EndRecord{"{}"});
  }
  ProfileOptions options;
  options.unwind.threads = 1;
  const Profile p = build_profile(recording, options);
  CHECK(stacks(p.tree) == std::map<std::string, uint64_t>{{"[in execve];execve", 2}, {"[in execve]", 1}});
  CHECK(p.unwind.inside_execve() == 3);
  CHECK(p.unwind.unwindable() == 0);
}

TEST_CASE("build_profile: --weight wall holds on-CPU and off-CPU time, preempted waits end in [preempted]",
          "[profile][off_cpu]") {
  const OffCpuProfile f(WeightKind::kWall);
  const Profile p = f.build();
  CHECK(p.weight_kind == WeightKind::kWall);
  CHECK(p.weight_unit == "nanoseconds");
  CHECK(p.tree.total_weight() == 24'000'000);
  CHECK(p.tree.total_off_weight() == 20'000'000);
  CHECK(p.tree.total() == 4 + 4);  // 4 on-CPU samples, 4 off-CPU samples (the repeat adds time, not a sample)
  const std::map<std::string, Weighed> expected{
      {"(user)", {4, 0}},
      {"do_nanosleep;schedule", {5 + 10, 5 + 10}},
      {"pipe_read;schedule", {3, 3}},
      {"schedule;[preempted]", {2, 2}},
  };
  const auto stacks = kernel_part(weighed_stacks(p.tree));
  for (const auto& [stack, w] : stacks) UNSCOPED_INFO(stack << " " << w.ms << " " << w.off_ms);
  CHECK(stacks == expected);
  CHECK(p.threads.at(101).samples == 3 + 3);
}

TEST_CASE("build_profile: --weight off-cpu leaves on-CPU samples out, cpu leaves off-CPU samples out",
          "[profile][off_cpu]") {
  const Profile off = OffCpuProfile(WeightKind::kOffCpu).build();
  CHECK(off.weight_kind == WeightKind::kOffCpu);
  CHECK(off.tree.total_weight() == 20'000'000);
  CHECK(off.tree.total_off_weight() == 20'000'000);
  CHECK(off.tree.total() == 4);
  CHECK(kernel_part(weighed_stacks(off.tree)).count("(user)") == 0);

  const Profile cpu = OffCpuProfile(WeightKind::kCpu).build();
  CHECK(cpu.weight_kind == WeightKind::kCpu);
  CHECK(cpu.tree.total() == 4);
  CHECK(cpu.tree.total_weight() == 4'000'000);
  CHECK(cpu.tree.total_off_weight() == 0);
  CHECK(cpu.samples_read == 8);  // every sample was read
}

TEST_CASE("build_profile: the default weight is the recording's, old recordings weigh cpu", "[profile][off_cpu]") {
  CHECK(OffCpuProfile(std::nullopt).build().weight_kind == WeightKind::kWall);
  RecordingHeader off_cpu_only = off_cpu_header();
  off_cpu_only.default_weight = "off-cpu";
  CHECK(OffCpuProfile(std::nullopt, off_cpu_only).build().weight_kind == WeightKind::kOffCpu);
  CHECK(OffCpuProfile(std::nullopt, off_cpu_header(false)).build().weight_kind == WeightKind::kCpu);
}

TEST_CASE("build_profile: off-cpu or wall weight on a recording without off-CPU data is one clear error",
          "[profile][off_cpu]") {
  const RecordingHeader plain = off_cpu_header(false);
  CHECK(error_of(OffCpuProfile(WeightKind::kOffCpu, plain)) ==
        "this recording has no off-CPU data: record with --off-cpu or --wall");
  CHECK(error_of(OffCpuProfile(WeightKind::kWall, plain)) ==
        "this recording has no off-CPU data: record with --off-cpu or --wall");
  CHECK(error_of(OffCpuProfile(WeightKind::kCpu, plain)) == "(no error)");
}

TEST_CASE("build_profile: wall weight needs a time-based event, off-CPU time alone does not", "[profile][off_cpu]") {
  const RecordingHeader faults = off_cpu_header(true, "page-faults");
  const std::string error = error_of(OffCpuProfile(WeightKind::kWall, faults));
  CHECK(error.find("page-faults") != std::string::npos);
  CHECK(error.find("not time-based") != std::string::npos);
  const Profile off = OffCpuProfile(WeightKind::kOffCpu, faults).build();
  CHECK(off.weight_unit == "nanoseconds");
  CHECK(off.tree.total_weight() == 20'000'000);
}

TEST_CASE("weight kinds: the listed names are every kind, each parsed back", "[profile][off_cpu]") {
  CHECK(weight_kind_names() == std::vector<std::string>{"cpu", "off-cpu", "wall"});
  for (const auto& name : weight_kind_names()) CHECK(weight_kind_name(parse_weight_kind(name)) == name);
}

TEST_CASE("weight kinds: names round trip, an unknown name lists the choices", "[profile][off_cpu]") {
  for (WeightKind k : {WeightKind::kCpu, WeightKind::kOffCpu, WeightKind::kWall})
    CHECK(parse_weight_kind(weight_kind_name(k)) == k);
  CHECK_THROWS_WITH(parse_weight_kind("foo"), "unknown weight 'foo': choose cpu, off-cpu or wall");
  CHECK_THROWS_AS(parse_weight_kind("CPU"), Error);
}

TEST_CASE("build_profile: the timeline is kept only when asked, every kept sample in time order", "[profile][timeline]") {
  CHECK(OffCpuProfile(WeightKind::kWall).build().timeline.empty());

  OffCpuProfile f(WeightKind::kWall);
  f.options.timeline = true;
  const Profile p = f.build();
  REQUIRE(p.timeline.size() == p.samples_kept);
  uint64_t weight = 0;
  std::map<uint32_t, uint64_t> self;  // node -> samples
  for (size_t i = 0; i < p.timeline.size(); ++i) {
    const TimelineSample& s = p.timeline[i];
    if (i) CHECK(s.time >= p.timeline[i - 1].time);
    weight += s.weight;
    ++self[s.node];
  }
  CHECK(weight == p.tree.total_weight());
  for (const auto& [node, n] : self) CHECK(p.tree.node(node).self == n);
  // The worker's first on-CPU sample (1 ms, 1 ms of weight), then its sleep.
  CHECK(p.timeline[0].time == off_cpu_at_ms(1));
  CHECK(p.timeline[0].tid == 101);
  CHECK(p.timeline[0].weight == 1'000'000);
  CHECK(p.timeline[3].time == off_cpu_at_ms(10));
  CHECK(p.timeline[3].weight == 5'000'000);  // the sleep and its repeat at 30
  CHECK(p.timeline.back().time == off_cpu_at_ms(60));
  CHECK(p.timeline.back().tid == 100);
}

TEST_CASE("build_profile: a timeline delivered out of time order (past the reorder window) is sorted",
          "[profile][timeline]") {
  TempDir dir;
  const std::string recording = dir.file("late.swprof");
  {
    RecordingHeader header;
    header.mode = "record";
    header.event = "cpu-clock";
    RecordingWriter w(recording, header);
    write_comm(w, 1000, "late", false);
    for (uint64_t t : {5000, 3000, 4000, 2000}) write_sample_without_stack(w, t, 0x7e0000001000 + t);
    w.finish(EndRecord{"{}"});
  }
  ProfileOptions options;
  options.unwind.threads = 1;
  options.unwind.reorder_max_records = 0;  // every record leaves the window at once: file order
  options.timeline = true;
  const Profile p = build_profile(recording, options);
  std::vector<uint64_t> times;
  for (const TimelineSample& s : p.timeline) times.push_back(s.time);
  CHECK(times == std::vector<uint64_t>{2000, 3000, 4000, 5000});
  CHECK(p.timeline[0].node == p.timeline[3].node);  // the same stack: [in execve]
}
