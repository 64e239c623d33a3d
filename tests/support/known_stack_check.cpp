#include "support/known_stack_check.h"

#include <catch2/catch.hpp>
#include <set>

#include "recording/record_source.h"
#include "symbolize/frame_location.h"

namespace swprof::testing {
namespace {

// The known callers of the program's own functions ("libc": anything outside
// the program, such as __libc_start_call_main or start_thread).
const std::map<std::string, std::set<std::string>> kCallers = {
    {"leaf", {"c", "recurse", "deep"}},
    {"vdso_leaf", {"c"}},
    {"c_spin", {"c"}},
    {"lib_leaf", {"lib_work"}},
    {"lib_work", {"c", "lib_init"}},
    {"lib_init", {"libc"}},  // the dynamic loader's _dl_init
    {"c", {"b"}},
    {"b", {"a"}},
    {"recurse", {"recurse", "a"}},
    {"deep", {"deep", "a"}},
    {"a", {"main", "thread_main", "applet_spin"}},  // applet_spin: known_applets only
    {"applet_spin", {"main"}},
    {"handler_leaf", {"on_signal"}},
    {"main", {"libc"}},
    {"thread_main", {"libc"}},
    {"on_signal", {"libc"}},  // the sigreturn trampoline
    {"thrower", {"b"}},
    // tests/programs/known_asm.asm
    {"asm_leaf", {"b"}},
    {"asm_push_sub", {"b"}},
    {"asm_helper", {"asm_push_sub"}},
    {"asm_align_reg", {"b"}},
    {"asm_align_stack", {"b"}},
    {"asm_deep_helper", {"asm_align_stack"}},
    {"asm_tail", {"b"}},
    {"asm_tail_target", {"b"}},
};

}  // namespace

bool same_walk(const WalkResult& a, const WalkResult& b) {
  if (a.end != b.end || a.frames.size() != b.frames.size()) return false;
  for (size_t i = 0; i < a.frames.size(); ++i) {
    const Frame &x = a.frames[i], &y = b.frames[i];
    if (x.pc != y.pc || x.sp != y.sp || x.stepper != y.stepper || x.flags != y.flags) return false;
  }
  return true;
}

std::string frame_name(const UnwoundSample& s, const Frame& f) {
  std::string name = locate_frame(*s.maps, f).function;
  return name.empty() ? "?" : name;
}

// Every sample's walk, in recording order.
std::vector<WalkResult> unwind_all(const std::string& recording, const UnwindOptions& options) {
  const std::unique_ptr<RecordSource> reader = open_record_source(recording);
  RecordingUnwinder unwinder(options);
  std::vector<WalkResult> walks;
  unwinder.run(*reader, [&](const UnwoundSample& s) { walks.push_back(s.walk); });
  return walks;
}

// Unwinds `recording`; a sample is "in the leaf" when frame 0 is `leaf_name`
// and then must show exactly `path` (frame 0 first) and be complete.
UnwindCheck check_recording(const std::string& recording, const std::string& leaf_name,
                            const std::vector<std::string>& path, UnwinderChoice unwinder, const FrameNamer& namer) {
  const std::unique_ptr<RecordSource> reader = open_record_source(recording);
  UnwindOptions options;
  options.unwinder = unwinder;
  RecordingUnwinder unwinder_run(options);
  UnwindOptions asking = options;
  asking.rule_cache = false;
  const std::vector<WalkResult> asked = unwind_all(recording, asking);
  UnwindCheck c;
  unwinder_run.run(*reader, [&](const UnwoundSample& s) {
    c.differ_without_rule_cache += c.samples >= asked.size() || !same_walk(s.walk, asked[c.samples]);
    ++c.samples;
    c.complete += s.walk.complete();
    ++c.ends[walk_end_name(s.walk.end)];
    std::vector<std::string> names;
    for (const Frame& f : s.walk.frames) names.push_back(namer(s, f));
    c.frames += s.walk.frames.size();
    for (const Frame& f : s.walk.frames) c.guessed += (f.flags & kFrameGuess) != 0;
    for (size_t i = 0; i + 1 < names.size(); ++i) {
      auto known = kCallers.find(names[i]);
      if (known == kCallers.end()) continue;
      std::string caller = kCallers.count(names[i + 1]) ? names[i + 1] : "libc";
      if (!known->second.count(caller)) {
        if (c.wrong++ == 0) {
          c.first_wrong = "";
          for (const auto& n : names) c.first_wrong += n + " ";
        }
      }
    }
    if (!names.empty() && names[0] == leaf_name) {
      ++c.in_leaf;
      const bool on_path = names.size() >= path.size() && std::equal(path.begin(), path.end(), names.begin());
      c.leaf_path += on_path;
      bool exact = s.walk.complete() && on_path;
      // The known path must be unwound, not guessed.
      for (size_t i = 0; exact && i < path.size(); ++i) exact = !(s.walk.frames[i].flags & kFrameGuess);
      c.leaf_exact += exact;
      if (!exact && c.first_inexact.empty())
        for (const auto& n : names) c.first_inexact += n + " ";
    }
  });
  return c;
}

void require_exact(const UnwindCheck& c) {
  std::string ends;
  for (const auto& [why, n] : c.ends) ends += why + "=" + std::to_string(n) + " ";
  INFO("samples " << c.samples << ", complete " << c.complete << ", in leaf " << c.in_leaf << ", exact "
                  << c.leaf_exact << ", ends: " << ends << "; first wrong: " << c.first_wrong
                  << "; first inexact: " << c.first_inexact);
  // On a loaded machine cpu-clock delivers fewer samples than CPU time times
  // the rate (136 leaf samples were seen where ~400 are due); 100 still
  // leave room for at most one inexact one.
  REQUIRE(c.in_leaf >= 100);
  CHECK(c.leaf_exact * 100 >= c.in_leaf * 99);
  CHECK(c.wrong == 0);
  CHECK(c.differ_without_rule_cache == 0);
}

}  // namespace swprof::testing
