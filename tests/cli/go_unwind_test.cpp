// Unwinding real recordings of the Go test program (tests/programs/go/
// known_go.go), stripped with -ldflags='-s -w': goroutines whose stacks are
// known, a frameless leaf, a 201-deep recursion and a cgo call. Go frames are
// named by the stripped binary's own pclntab, cgo's C functions by the
// unstripped twin's symbols. >= 99 % of the leaf samples must show exactly
// the known path, no sample a wrong caller, and walks with and without the
// rule cache must agree. Skipped when golang-go is not installed.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "binary/elf_binary.h"
#include "binary/go_pclntab.h"
#include "recording/recording_reader.h"
#include "support/cli_harness.h"
#include "support/temp_dir.h"
#include "unwind/recording_unwinder.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string go_program(const std::string& name) { return std::string(SWPROF_GO_DIR) + "/" + name; }
bool have_go() { return std::string(SWPROF_GO_DIR).size() && std::filesystem::exists(go_program("known_go.stripped")); }

// A frame's function: from the pclntab of its binary (Go), else the
// unstripped twin's symbols (cgo's C code) with the hash of cgo's wrapper
// names taken out, else "?".
class FrameNamer {
 public:
  FrameNamer() : twin_(ElfBinary::open(go_program("known_go"))) { REQUIRE(twin_); }
  std::string name(const ProcessMaps& maps, const Frame& f, bool* from_pclntab = nullptr) const {
    const uint64_t pc = (f.flags & kFrameExactPc) ? f.pc : f.pc - 1;
    const Mapping* m = maps.find(pc);
    if (!m || !m->binary) return "?";
    const uint64_t vaddr = m->to_vaddr(pc);
    if (const GoPclntab* t = m->binary->go_pclntab())
      if (auto fn = t->func_at(vaddr)) {
        if (from_pclntab) *from_pclntab = true;
        return std::string(t->name(*fn));
      }
    if (m->path.find("known_go") == std::string::npos) return "lib";
    const FunctionSymbol* sym = twin_->function_at(vaddr);
    if (!sym) return "?";
    if (sym->name.starts_with("_cgo_") && sym->name.ends_with("_Cfunc_c_work")) return "_cgo_Cfunc_c_work";
    return sym->name;
  }

 private:
  std::shared_ptr<ElfBinary> twin_;
};

const std::map<std::string, std::set<std::string>> kGoCallers = {
    {"main.leaf", {"main.c", "main.recurse"}},
    {"main.c", {"main.b"}},
    {"main.b", {"main.a"}},
    {"main.a", {"main.worker"}},
    {"main.recurse", {"main.recurse", "main.worker"}},
    {"main.worker", {"runtime.goexit"}},
    {"c_spin", {"c_work"}},
    {"c_work", {"_cgo_Cfunc_c_work"}},
    {"_cgo_Cfunc_c_work", {"runtime.asmcgocall"}},
};

bool same_walk(const WalkResult& a, const WalkResult& b) {
  if (a.end != b.end || a.frames.size() != b.frames.size()) return false;
  for (size_t i = 0; i < a.frames.size(); ++i)
    if (a.frames[i].pc != b.frames[i].pc || a.frames[i].sp != b.frames[i].sp) return false;
  return true;
}

struct GoCheck {
  uint64_t samples = 0, in_leaf = 0, leaf_exact = 0, wrong = 0, go_no_unwind_info = 0, guessed = 0;
  uint64_t differ_without_rule_cache = 0, named_by_pclntab = 0;
  std::string first_wrong, first_inexact;
  std::map<std::string, uint64_t> ends;
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + " ";
  return out;
}

GoCheck check_go_recording(const std::string& recording, const std::string& leaf, const std::vector<std::string>& path,
                           WalkEnd end) {
  FrameNamer namer;
  UnwindOptions asking;
  asking.rule_cache = false;
  std::vector<WalkResult> asked;
  {
    RecordingReader reader(recording);
    RecordingUnwinder(asking).run(reader, [&](const UnwoundSample& s) { asked.push_back(s.walk); });
  }
  RecordingReader reader(recording);
  GoCheck c;
  RecordingUnwinder(UnwindOptions{}).run(reader, [&](const UnwoundSample& s) {
    c.differ_without_rule_cache += c.samples >= asked.size() || !same_walk(s.walk, asked[c.samples]);
    ++c.samples;
    ++c.ends[walk_end_name(s.walk.end)];
    std::vector<std::string> names;
    bool any_go = false;
    for (const Frame& f : s.walk.frames) {
      bool go = false;
      names.push_back(namer.name(*s.maps, f, &go));
      any_go = any_go || go;
      // In the program's own code (Go and cgo's C); libc's clone3 in the
      // parent, while Go starts a thread, has CFI only for the child.
      c.guessed += (f.flags & kFrameGuess) && names.back() != "lib";
    }
    c.go_no_unwind_info += any_go && s.walk.end == WalkEnd::kNoUnwindInfo;
    for (size_t i = 0; i + 1 < names.size(); ++i) {
      auto known = kGoCallers.find(names[i]);
      if (known != kGoCallers.end() && !known->second.count(names[i + 1]) && c.wrong++ == 0)
        c.first_wrong = joined(names);
    }
    if (names.empty() || names[0] != leaf) return;
    ++c.in_leaf;
    bool exact = s.walk.end == end && names == path;
    for (size_t i = 0; exact && i < s.walk.frames.size(); ++i) exact = !(s.walk.frames[i].flags & kFrameGuess);
    c.leaf_exact += exact;
    if (!exact && c.first_inexact.empty()) c.first_inexact = joined(names) + "(" + walk_end_name(s.walk.end) + ")";
  });
  return c;
}

std::string record_go(const TempDir& dir, const std::string& program, const std::string& mode) {
  const std::string out = dir.file(mode + ".swprof");
  auto r = run({swprof_bin(), "record", "-F", "999", "-o", out, "--", go_program(program), mode, "1"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

void require_exact(const GoCheck& c) {
  std::string ends;
  for (const auto& [why, n] : c.ends) ends += why + "=" + std::to_string(n) + " ";
  INFO("samples " << c.samples << ", in leaf " << c.in_leaf << ", exact " << c.leaf_exact << ", ends: " << ends
                  << "; first wrong: " << c.first_wrong << "; first inexact: " << c.first_inexact);
  REQUIRE(c.in_leaf >= 100);
  CHECK(c.leaf_exact * 100 >= c.in_leaf * 99);
  CHECK(c.wrong == 0);
  CHECK(c.guessed == 0);
  CHECK(c.go_no_unwind_info == 0);
  CHECK(c.differ_without_rule_cache == 0);
}

const std::vector<std::string> kLeafPath = {"main.leaf", "main.c", "main.b", "main.a", "main.worker", "runtime.goexit"};

}  // namespace

TEST_CASE("unwind: Go goroutines through a frameless leaf, stripped and not", "[integration][unwind][go]") {
  if (!have_go()) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  TempDir dir;
  SECTION("stripped (-s -w)") {
    const std::string rec = record_go(dir, "known_go.stripped", "leaf");
    require_exact(check_go_recording(rec, "main.leaf", kLeafPath, WalkEnd::kBottom));
    // The report names the frames from the pclntab alone.
    auto r = run({swprof_bin(), "report", "-f", "folded", rec}, dir.path());
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("runtime.goexit;main.worker;main.a;main.b;main.c;main.leaf "));
  }
  SECTION("unstripped: the same stacks") {
    require_exact(check_go_recording(record_go(dir, "known_go", "leaf"), "main.leaf", kLeafPath, WalkEnd::kBottom));
  }
}

TEST_CASE("unwind: Go recursion 201 deep", "[integration][unwind][go]") {
  if (!have_go()) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  TempDir dir;
  std::vector<std::string> path = {"main.leaf"};
  path.insert(path.end(), 201, "main.recurse");
  path.push_back("main.worker");
  path.push_back("runtime.goexit");
  require_exact(check_go_recording(record_go(dir, "known_go.stripped", "recurse"), "main.leaf", path, WalkEnd::kBottom));
}

TEST_CASE("unwind: cgo: C frames by CFI up to asmcgocall, where the stack switches", "[integration][unwind][go]") {
  if (!have_go()) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  TempDir dir;
  require_exact(check_go_recording(record_go(dir, "known_go.stripped", "cgo"), "c_spin",
                                   {"c_spin", "c_work", "_cgo_Cfunc_c_work", "runtime.asmcgocall"},
                                   WalkEnd::kStackSwitch));
}
