// Offline snapshot tests (libunwindstack's UnwindOfflineTest): every folder
// under tests/offline/ holds one sample of a tiny program without libc (its
// maps, registers, copied stack and the program itself) and the frames the
// standard stepper chain must find, as a dump (expected.txt). The walks do
// not depend on the host's libraries. SWPROF_UPDATE_GOLDEN=1 rewrites the
// expected dumps. tests/offline/README.md says how each case was captured;
// the hidden test "[.capture]" below is the capturing tool.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/offline_snapshot.h"
#include "support/read_file.h"
#include "unwind/memory.h"
#include "unwind/standard_chain.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string offline_dir() { return (std::filesystem::path(GOLDEN_DIR).parent_path() / "offline").string(); }

std::string walk_case(const OfflineCase& c, bool rule_cache) {
  UnwindOptions options;
  options.rule_cache = rule_cache;
  auto walker = make_sample_walker(options, make_shared_unwind_state());
  SampleStackMemory stack(c.stack_start, Bytes(c.stack.data(), c.stack.size()));
  return dump_walk(walker->walk(c.regs, stack, c.maps), c.maps);
}

void check_case(const std::string& name) {
  const std::string dir = offline_dir() + "/" + name;
  const OfflineCase c = load_offline_case(dir);
  const std::string dump = walk_case(c, true);
  INFO(name << ":\n" << dump);
  // Without the walker's rule cache the walk is the same.
  CHECK(walk_case(c, false) == dump);
  const std::string expected_path = dir + "/expected.txt";
  if (std::getenv("SWPROF_UPDATE_GOLDEN")) std::ofstream(expected_path, std::ios::binary) << dump;
  const std::string expected = read_file(expected_path);
  REQUIRE_FALSE(expected.empty());
  CHECK(dump == expected);
}

}  // namespace

TEST_CASE("offline snapshot: every case folder has an expected dump and is tested here") {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(offline_dir()))
    if (entry.is_directory()) found.push_back(entry.path().filename().string());
  std::sort(found.begin(), found.end());
  CHECK(found == std::vector<std::string>{"analysis", "bottom", "cfi", "frame_pointer", "signal", "stack_cut"});
}

TEST_CASE("offline snapshot: DWARF CFI (leaf and middle need .eh_frame)") { check_case("cfi"); }
TEST_CASE("offline snapshot: frame pointer (no unwind tables, rbp chain)") { check_case("frame_pointer"); }
TEST_CASE("offline snapshot: stack-height analysis (no unwind tables, no frame pointer)") { check_case("analysis"); }
TEST_CASE("offline snapshot: signal frame (handler on a ucontext, through __restore_rt)") { check_case("signal"); }
TEST_CASE("offline snapshot: sampled in _start, the outermost frame") { check_case("bottom"); }
TEST_CASE("offline snapshot: stack copy cut short ends the walk cleanly") { check_case("stack_cut"); }

TEST_CASE("offline snapshot: a CFI return address just past the copy ends the walk, with no guess from the words "
          "in it") {
  OfflineCase c = load_offline_case(offline_dir() + "/cfi");
  auto walker = make_sample_walker(UnwindOptions{}, make_shared_unwind_state());
  const SampleStackMemory copy(c.stack_start, Bytes(c.stack.data(), c.stack.size()));
  const WalkResult whole = walker->walk(c.regs, copy, c.maps);
  REQUIRE(whole.frames.size() == 4);
  // Cut the copy just before the slot of middle's return address (into run),
  // and leave a stale return address (_start's, which follows a call) in
  // middle's frame, where the scan would take it for the caller.
  const uint64_t ra_slot = whole.frames[2].sp - 8;
  REQUIRE(ra_slot > whole.frames[1].sp);
  c.stack.resize(ra_slot - c.stack_start);
  const uint64_t stale = whole.frames[3].pc;
  std::memcpy(c.stack.data() + (whole.frames[1].sp - c.stack_start), &stale, sizeof stale);
  for (const bool rule_cache : {true, false}) {
    UnwindOptions options;
    options.rule_cache = rule_cache;
    auto cut_walker = make_sample_walker(options, make_shared_unwind_state());
    const SampleStackMemory cut(c.stack_start, Bytes(c.stack.data(), c.stack.size()));
    // Twice: the second walk steps by the rules the first one cached.
    for (int pass = 0; pass < 2; ++pass) {
      const WalkResult r = cut_walker->walk(c.regs, cut, c.maps);
      INFO("rule cache " << rule_cache << ", pass " << pass << ":\n" << dump_walk(r, c.maps));
      CHECK(r.end == WalkEnd::kStackExhausted);
      REQUIRE(r.frames.size() == 2);
      CHECK(r.frames[1].pc == whole.frames[1].pc);
      CHECK(r.frames[1].stepper == StepperKind::kCfi);
    }
  }
}

TEST_CASE("offline snapshot: a damaged case names the bad file") {
  const std::string dir = offline_dir() + "/cfi";
  CHECK_THROWS_WITH(load_offline_case(dir + "/no-such-case"), Catch::Contains("maps.txt: missing"));
}

// Not run by ctest (hidden): writes a case folder from a recording.
//   SWPROF_CAPTURE_RECORDING=rec.swprof SWPROF_CAPTURE_CASE=tests/offline/cfi
//   SWPROF_CAPTURE_LEAF=leaf [SWPROF_CAPTURE_BINARY=prog] [SWPROF_CAPTURE_STACK_BYTES=N]
//   build/tests/swprof_unwind_tests "[.capture]"
// (one command line; tests/offline/README.md has the recipes).
TEST_CASE("capture an offline snapshot case from a recording", "[.capture]") {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  CaptureRequest request;
  request.recording = env("SWPROF_CAPTURE_RECORDING");
  request.case_dir = env("SWPROF_CAPTURE_CASE");
  request.leaf = env("SWPROF_CAPTURE_LEAF");
  REQUIRE_FALSE(request.recording.empty());
  REQUIRE_FALSE(request.case_dir.empty());
  REQUIRE_FALSE(request.leaf.empty());
  if (!env("SWPROF_CAPTURE_BINARY").empty()) request.binary = env("SWPROF_CAPTURE_BINARY");
  if (!env("SWPROF_CAPTURE_STACK_BYTES").empty()) request.stack_bytes = std::stoull(env("SWPROF_CAPTURE_STACK_BYTES"));
  capture_offline_case(request);
}
