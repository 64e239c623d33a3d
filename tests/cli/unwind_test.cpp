// Unwinding real recordings of programs whose stacks are known
// (tests/programs/known_stack.c), under the flag matrix. For each program:
// >= 99 % of the samples in the leaf unwind to exactly the known path, and
// no sample shows a wrong frame: every caller of one of the program's own
// functions is one of its known callers.

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "binary/elf_binary.h"
#include "profile/pipeline.h"
#include "recording/recording_reader.h"
#include "support/cli_harness.h"
#include "support/recording_layout.h"
#include "support/known_stack_check.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"
#include "symbolize/frame_location.h"
#include "unwind/recording_unwinder.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string known_bin(const std::string& variant) { return std::string(KNOWN_STACK_DIR) + "/known_stack_" + variant; }

// For a frame in a stripped program (NAME.stripped), the name its unstripped
// twin NAME has at the same address; other frames as frame_name().
std::string twin_frame_name(const UnwoundSample& s, const Frame& f) {
  static std::map<std::string, std::shared_ptr<ElfBinary>> twins;
  const uint64_t lookup = (f.flags & kFrameExactPc) ? f.pc : f.pc - 1;
  const Mapping* m = s.maps->find(lookup);
  const std::string suffix = ".stripped";
  if (!m || !m->binary || !m->path.ends_with(suffix)) return frame_name(s, f);
  auto& twin = twins[m->path];
  if (!twin) twin = ElfBinary::open(m->path.substr(0, m->path.size() - suffix.size()));
  const FunctionSymbol* fn = twin ? twin->function_at(m->to_vaddr(lookup)) : nullptr;
  return fn ? fn->name : "?";
}

// Records `command` into `dir` (swprof record -F 999 `extra`); the recording's path.
std::string record_into(const TempDir& dir, const std::vector<std::string>& command,
                        const std::vector<std::string>& extra = {}) {
  const std::string out = dir.file("k.swprof");
  std::vector<std::string> options = {"-F", "999"};
  options.insert(options.end(), extra.begin(), extra.end());
  const ProcessResult r = run_record(dir.path(), out, options, command);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

UnwindCheck record_and_check(const std::vector<std::string>& command, const std::string& leaf_name,
                             const std::vector<std::string>& path, const std::vector<std::string>& extra = {},
                             const FrameNamer& namer = frame_name) {
  TempDir dir;
  return check_recording(record_into(dir, command, extra), leaf_name, path, UnwinderChoice::kChain, namer);
}

const std::vector<std::string> kLeafPath = {"leaf", "c", "b", "a", "main"};

}  // namespace

TEST_CASE("unwind: known stacks under every flag set", "[integration][unwind]") {
  for (const char* variant : {"O0_fp", "O2_fp", "O2_nofp", "O2_nofp_debugframe", "O2_fp_nocfi", "O2_nofp_nocfi"}) {
    SECTION(variant) { require_exact(record_and_check({known_bin(variant), "leaf", "0.5"}, "leaf", kLeafPath)); }
  }
}

// A sample in a leaf's epilogue, after `pop %rbp`: the CFI still says rbp
// is saved at CFA-16, below rsp and so outside the copied stack, and the
// callers' CFA is rbp-based in frame-pointer builds.
TEST_CASE("unwind: samples in an epilogue after rbp is popped", "[integration][unwind]") {
  for (const char* variant : {"O0_fp", "O2_fp"}) {
    SECTION(variant) {
      require_exact(record_and_check({known_bin(variant), "epilogue", "0.5"}, "tiny",
                                     {"tiny", "call_tiny", "c", "b", "a", "main"}));
    }
  }
}

TEST_CASE("unwind: a shared library called through the PLT", "[integration][unwind]") {
  require_exact(record_and_check({known_bin("O2_nofp"), "plt", "0.5"}, "lib_leaf",
                                 {"lib_leaf", "lib_work", "c", "b", "a", "main"}));
}

TEST_CASE("unwind: a library constructor run by the dynamic loader before main", "[integration][unwind]") {
  // Complete means the walk ended in ld.so's entry code, which has no symbols.
  require_exact(record_and_check({"/usr/bin/env", "KNOWN_LIB_INIT_SECONDS=0.5", known_bin("O2_nofp"), "leaf", "0"},
                                 "lib_leaf", {"lib_leaf", "lib_work", "lib_init"}));
}

TEST_CASE("unwind: a leaf in the vDSO", "[integration][unwind]") {
  // Samples inside the vDSO's clock_gettime (named by the vDSO image kept in
  // the recording), called through libc's clock_gettime.
  require_exact(record_and_check({known_bin("O2_nofp"), "vdso", "0.5"}, "__vdso_clock_gettime",
                                 {"__vdso_clock_gettime", "clock_gettime", "vdso_leaf", "c", "b", "a", "main"}));
}

TEST_CASE("unwind: a signal handler interrupting deep code", "[integration][unwind]") {
  auto c = record_and_check({known_bin("O2_nofp"), "signal", "1.0"}, "handler_leaf", {"handler_leaf", "on_signal"});
  require_exact(c);
}

TEST_CASE("unwind: threads", "[integration][unwind]") {
  require_exact(record_and_check({known_bin("O2_nofp"), "threads", "0.3"}, "leaf",
                                 {"leaf", "c", "b", "a", "thread_main"}));
}

TEST_CASE("unwind: recursion deeper than the default stack copy", "[integration][unwind]") {
  std::vector<std::string> path = {"leaf"};
  for (int i = 0; i <= 150; ++i) path.push_back("recurse");
  path.push_back("a");
  path.push_back("main");
  SECTION("with --stack-size 65528 the whole stack is there") {
    require_exact(record_and_check({known_bin("O2_nofp"), "recurse", "0.5"}, "leaf", path, {"--stack-size", "65528"}));
  }
  SECTION("with the default the rest is read past the copy: the whole stack is there") {
    require_exact(record_and_check({known_bin("O2_nofp"), "recurse", "0.5"}, "leaf", path));
  }
  SECTION("with --stack-beyond 0 the walk ends at the end of the copy, without wrong frames") {
    auto c = record_and_check({known_bin("O2_nofp"), "recurse", "0.5"}, "leaf", path, {"--stack-beyond", "0"});
    CHECK(c.wrong == 0);
    CHECK(c.differ_without_rule_cache == 0);
    CHECK(c.ends["stack copy exhausted"] * 100 >= c.samples * 90);
  }
}

// ~160 KB of stack in 155 frames (1 KiB a frame): more than the kernel
// copies at any --stack-size. The recorder reads the rest of each truncated
// copy from the live thread (--stack-beyond); the frames walked from those
// bytes say so (kFrameBeyondCopy).
TEST_CASE("unwind: a stack deeper than the kernel copies, read on past the copy", "[integration][unwind]") {
  auto deep_path = [](const std::string& root) {
    std::vector<std::string> path = {"leaf"};
    for (int i = 0; i <= 150; ++i) path.push_back("deep");
    path.push_back("a");
    path.push_back(root);
    return path;
  };
  auto beyond_frames = [](const std::string& recording) {
    uint64_t frames = 0;
    for (const WalkResult& w : unwind_all(recording, UnwindOptions{}))
      for (const Frame& f : w.frames) frames += (f.flags & kFrameBeyondCopy) != 0;
    return frames;
  };
  for (const char* variant : {"O2_nofp", "O2_fp"}) {
    SECTION(variant) {
      TempDir dir;
      const std::string out = record_into(dir, {known_bin(variant), "deep", "0.5"});
      require_exact(check_recording(out, "leaf", deep_path("main")));
      CHECK(beyond_frames(out) > 0);
      // script marks those frames; info counts them.
      auto script = run({swprof_bin(), "script", out}, dir.path());
      REQUIRE(script.exit_code == 0);
      CHECK(script.out.find("[cfi, beyond copy]") != std::string::npos);
      CHECK(script.out.find("main+") != std::string::npos);
      auto info = run({swprof_bin(), "info", out}, dir.path());
      REQUIRE(info.exit_code == 0);
      CHECK(info.out.find("  beyond the copy  ") != std::string::npos);
    }
  }
  SECTION("threads") {
    TempDir dir;
    const std::string out = record_into(dir, {known_bin("O2_nofp"), "deepthreads", "0.3"});
    const UnwindCheck c = check_recording(out, "leaf", deep_path("thread_main"));
    if (!kSanitizedBuild) {
      require_exact(c);
    } else {
      // Two threads at 999 Hz, every sample's stack read on past its copy:
      // the unoptimized sanitizer build's recorder falls seconds behind on a
      // loaded machine (fewer than half of the walks were whole with two
      // other processes busy), and reads that come after the program has
      // exited find nothing. Those walks end at the copy; none may be
      // wrong, and the first samples' reads come in time.
      INFO("samples " << c.samples << ", in leaf " << c.in_leaf << ", exact " << c.leaf_exact);
      REQUIRE(c.in_leaf >= 100);
      CHECK(c.leaf_exact > 0);
      CHECK(c.wrong == 0);
      CHECK(c.differ_without_rule_cache == 0);
    }
  }
  SECTION("at --stack-size 65528 with --stack-beyond 0 the walk ends at the copy's end, without wrong frames") {
    TempDir dir;
    const std::string out = record_into(dir, {known_bin("O2_nofp"), "deep", "0.5"}, {"--stack-size", "65528", "--stack-beyond", "0"});
    auto c = check_recording(out, "leaf", deep_path("main"));
    CHECK(c.wrong == 0);
    CHECK(c.ends["stack copy exhausted"] * 100 >= c.samples * 90);
    CHECK(beyond_frames(out) == 0);
  }
}

TEST_CASE("unwind: C++ exceptions in flight", "[integration][unwind]") {
  TempDir dir;
  const std::string out = dir.file("x.swprof");
  auto r = run({swprof_bin(), "record", "-F", "999", "-o", out, "--", std::string(KNOWN_STACK_DIR) + "/known_exceptions", "1.0"},
               dir.path());
  REQUIRE(r.exit_code == 0);
  auto c = check_recording(out, "thrower", {"thrower", "b", "a", "main"});
  INFO("samples " << c.samples << " complete " << c.complete << " first wrong: " << c.first_wrong);
  CHECK(c.wrong == 0);
  CHECK(c.differ_without_rule_cache == 0);
  CHECK(c.complete * 100 >= c.samples * 99);
}

namespace {

std::vector<std::vector<uint64_t>> unwind_pcs(const std::string& recording, UnwinderChoice choice) {
  UnwindOptions options;
  options.unwinder = choice;
  std::vector<std::vector<uint64_t>> out;
  for (const WalkResult& w : unwind_all(recording, options)) {
    std::vector<uint64_t> pcs;
    for (const Frame& f : w.frames) pcs.push_back(f.pc);
    out.push_back(std::move(pcs));
  }
  return out;
}

}  // namespace

TEST_CASE("unwind: the stepper chain agrees with libunwind frame by frame", "[integration][unwind]") {
  TempDir dir;
  struct Workload {
    std::vector<std::string> command;
  };
  const std::vector<Workload> workloads = {
      {{known_bin("O2_nofp"), "plt", "0.4"}},
      {{known_bin("O2_fp"), "threads", "0.2"}},
      {{std::string(KNOWN_STACK_DIR) + "/known_exceptions", "0.6"}},
      {{workload_bin(), "syscalls", "0.4"}},
  };
  uint64_t compared = 0, agreed = 0, samples = 0, differ = 0;
  for (const auto& w : workloads) {
    const std::string out = dir.file("agree.swprof");
    std::vector<std::string> argv = {swprof_bin(), "record", "-F", "999", "-o", out, "--"};
    argv.insert(argv.end(), w.command.begin(), w.command.end());
    REQUIRE(run(argv, dir.path()).exit_code == 0);
    auto chain = unwind_pcs(out, UnwinderChoice::kChain);
    auto reference = unwind_pcs(out, UnwinderChoice::kLibunwind);
    REQUIRE(chain.size() == reference.size());
    // The chain's rule cache changes nothing: the same walks with every frame asking the steppers.
    UnwindOptions asking;
    asking.rule_cache = false;
    const std::vector<WalkResult> with = unwind_all(out, UnwindOptions{}), without = unwind_all(out, asking);
    REQUIRE(with.size() == without.size());
    for (size_t i = 0; i < with.size(); ++i) differ += !same_walk(with[i], without[i]);
    for (size_t i = 0; i < chain.size(); ++i) {
      // Frames both unwinders produced, position by position.
      const size_t n = std::min(chain[i].size(), reference[i].size());
      for (size_t k = 0; k < n; ++k) agreed += chain[i][k] == reference[i][k];
      compared += n;
    }
    samples += chain.size();
  }
  INFO("samples " << samples << ", frames compared " << compared << ", agreed " << agreed);
  WARN("agreement: " << agreed << " of " << compared << " frames in " << samples << " samples");
  REQUIRE(samples >= 1000);
  CHECK(agreed * 100 >= compared * 99);
  CHECK(differ == 0);
}

TEST_CASE("unwind: a binary changed or removed since recording is reported once, the rest still unwinds",
          "[integration][unwind]") {
  TempDir dir;
  const std::string app = dir.file("app");
  std::filesystem::copy_file(known_bin("O2_nofp"), app);
  const std::string out = dir.file("c.swprof");
  // Without the build-id cache, which would keep the recorded build.
  REQUIRE(run({swprof_bin(), "record", "--no-cache", "-o", out, "--", app, "leaf", "0.3"}, dir.path()).exit_code == 0);
  auto before = run({swprof_bin(), "script", "--no-cache", out}, dir.path());
  REQUIRE(before.exit_code == 0);
  CHECK(before.err.empty());
  CHECK(before.out.find("leaf+") != std::string::npos);

  // Another build at the same path: its unwind info and symbols would be wrong.
  std::filesystem::copy_file(known_bin("O0_fp"), app, std::filesystem::copy_options::overwrite_existing);
  auto changed = run({swprof_bin(), "script", "--no-cache", out}, dir.path());
  INFO(changed.err);
  CHECK(changed.exit_code == 0);
  CHECK(line_count(changed.err) == 1);
  CHECK(changed.err.find("changed since it was recorded") != std::string::npos);
  CHECK(changed.out.find("leaf+") == std::string::npos);        // not named from the wrong binary
  CHECK(changed.out.find("libc.so.6") != std::string::npos);    // other binaries still unwind

  std::filesystem::remove(app);
  auto missing = run({swprof_bin(), "script", "--no-cache", out}, dir.path());
  CHECK(missing.exit_code == 0);
  CHECK(line_count(missing.err) == 1);
  CHECK(missing.err.find(app + " is missing (No such file or directory)") != std::string::npos);
  CHECK(missing.err.find("swprof archive") != std::string::npos);
}

TEST_CASE("unwind: script on a truncated recording shows what it can and fails clearly", "[integration][unwind]") {
  TempDir dir;
  const std::string out = dir.file("t.swprof");
  REQUIRE(run({swprof_bin(), "record", "-o", out, "--", known_bin("O2_nofp"), "leaf", "2.5"}, dir.path()).exit_code == 0);
  std::filesystem::resize_file(out, chunks_end(out) - 200);  // inside the last chunk
  auto r = run({swprof_bin(), "script", out}, dir.path());
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("damaged") != std::string::npos);
  CHECK(r.out.find("leaf+") != std::string::npos);
}

TEST_CASE("unwind: stripped static code without CFI or frame pointers, by discovered functions",
          "[integration][unwind]") {
  // The program's own functions have neither symbols nor CFI: discovery finds
  // them (main as _start's rdi) and analysis unwinds them; static glibc's
  // own .eh_frame takes the walk to _start. Names come from the unstripped twin.
  // __libc_start_main has an alias at its address (__libc_start_main_impl):
  // expect the name function_at gives there.
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_static";
  auto twin = ElfBinary::open(program);
  REQUIRE(twin);
  const FunctionSymbol* start_main = twin->function_named("__libc_start_main");
  REQUIRE(start_main);
  const std::vector<std::string> path = {"leaf", "c", "b", "a", "main", "__libc_start_call_main",
                                         twin->function_at(start_main->start)->name, "_start"};
  require_exact(record_and_check({program + ".stripped", "leaf", "1.0"}, "leaf", path, {}, twin_frame_name));
}

TEST_CASE("unwind: a stripped static multi-call program, its applet named only by a pointer in data",
          "[integration][unwind]") {
  // Like busybox: main calls the applet through a table of function
  // pointers, so only that pointer leads discovery to the applet and its
  // callees; its switch's jump table must not split it.
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_applets";
  auto twin = ElfBinary::open(program);
  REQUIRE(twin);
  const FunctionSymbol* start_main = twin->function_named("__libc_start_main");
  REQUIRE(start_main);
  const std::vector<std::string> path = {"leaf", "c", "b", "a", "applet_spin", "main", "__libc_start_call_main",
                                         twin->function_at(start_main->start)->name, "_start"};
  require_exact(record_and_check({program + ".stripped", "spin", "1.0"}, "leaf", path, {}, twin_frame_name));
}

TEST_CASE("unwind: stripped PIEs without CFI, by discovered functions", "[integration][unwind]") {
  // main is found through _start's `lea rdi, [rip + main]`.
  for (const char* variant : {"O2_fp_nocfi", "O2_nofp_nocfi"}) {
    SECTION(variant) {
      require_exact(record_and_check({known_bin(variant) + ".stripped", "leaf", "1.0"}, "leaf", kLeafPath, {},
                                     twin_frame_name));
    }
  }
}

namespace {

// What an exec loop's samples show: how each walk ended, and what the
// samples taken inside execve (per their kernel call chain) became.
struct ExecCheck : SampleSink {
  uint64_t samples = 0;
  uint64_t with_kernel_chain = 0;
  uint64_t in_exec_code = 0;           // a kernel frame of execve's, below the user frames
  uint64_t in_exec_code_unwound = 0;   // ... complete, or the state inside execve
  uint64_t inside_execve = 0;          // walks that ended kNoMappingsYet
  uint64_t inside_execve_named = 0;    // ... whose pc names execve in libc
  uint64_t inside_execve_elsewhere = 0;  // ... with a whole kernel chain outside execve
  uint64_t unmapped = 0;
  std::map<std::string, uint64_t> ends;

  static bool exec_function(const std::string& name) {
    return name == "begin_new_exec" || name == "load_elf_binary" || name == "bprm_execve" ||
           name.starts_with("do_execveat_common");
  }
  // The chain reaches the system call entry: it is whole, so a chain without
  // execve's functions shows another system call. (A chain can be cut short:
  // one frame in a retpoline thunk says nothing about where it was.)
  static bool syscall_entry(const std::string& name) {
    return name.starts_with("do_syscall_64") || name.starts_with("entry_SYSCALL_64");
  }
  void add(const PipelineSample& s) override {
    ++samples;
    const WalkResult& walk = s.unwound.walk;
    ++ends[walk_end_name(walk.end)];
    unmapped += walk.end == WalkEnd::kUnmappedPc;
    bool exec_code = false, whole_chain = false;
    for (const SymbolizedAddress* k : s.kernel_symbols) {
      exec_code |= exec_function(k->frames.back().function);
      whole_chain |= syscall_entry(k->frames.back().function);
    }
    with_kernel_chain += !s.kernel_symbols.empty();
    in_exec_code += exec_code;
    in_exec_code_unwound += exec_code && (walk.complete() || walk.end == WalkEnd::kNoMappingsYet);
    if (walk.end != WalkEnd::kNoMappingsYet) return;
    ++inside_execve;
    const SourceFrame& leaf = s.user_symbols[0]->frames.back();
    inside_execve_named += leaf.function == "execve" && leaf.module == "libc.so.6";
    inside_execve_elsewhere += whole_chain && !exec_code;
  }
};

}  // namespace

// The kernel replaces the address space inside execve before it reports the
// new program's mappings: those samples have the old program's registers and
// no stack. They are the state "inside execve", named from the old program's
// maps, never a pc in no mapping or an incomplete stack.
TEST_CASE("unwind: samples of a shell's exec loop inside execve and the loader", "[integration][unwind]") {
  TempDir dir;
  const std::string out = dir.file("exec.swprof");
  auto r = run({swprof_bin(), "record", "-F", "10000", "-o", out, "--", "/bin/sh", "-c",
                "i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done"},
               dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  PipelineOptions options;
  options.filter.kernel_frames = true;
  ExecCheck c;
  run_pipeline(out, options, c);
  std::string ends;
  for (const auto& [why, n] : c.ends) ends += why + "=" + std::to_string(n) + " ";
  INFO("samples " << c.samples << ", with kernel chain " << c.with_kernel_chain << ", in exec code "
                  << c.in_exec_code << " (" << c.in_exec_code_unwound << " unwound), inside execve "
                  << c.inside_execve << " (" << c.inside_execve_named << " named execve), ends: " << ends);
  // About one sample in a hundred lands inside execve; 1000 execs make
  // 20 of them certain on a loaded machine (300 gave 11 once).
  REQUIRE(c.inside_execve >= 20);
  CHECK(c.unmapped == 0);
  // Only the first exec (swprof starting the shell) has no old maps to name its pc from.
  CHECK(c.inside_execve_named * 100 >= c.inside_execve * 95);
  if (c.with_kernel_chain) {
    CHECK(c.in_exec_code_unwound == c.in_exec_code);
    CHECK(c.inside_execve_elsewhere == 0);
  }
}
