// build_profile (profile/profile.h) on recordings written by the test: the
// samples taken inside execve.

#include "profile/profile.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "recording/recording_writer.h"
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

// Each sampled stack as "frame;frame;..." (root first) -> samples.
std::map<std::string, uint64_t> stacks(const CallTree& tree) {
  std::map<std::string, uint64_t> out;
  for (uint32_t id = 1; id < tree.nodes().size(); ++id) {
    if (!tree.node(id).self) continue;
    std::string text;
    for (uint32_t frame : tree.path(id)) text += (text.empty() ? "" : ";") + tree.frame(frame).function;
    out[text] += tree.node(id).self;
  }
  return out;
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
