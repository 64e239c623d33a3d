#pragma once
// The known-stack checks of the unwinding tests (tests/programs/known_stack.c
// and its siblings): unwind a recording (swprof's or perf.data) and count
// the samples in the leaf that show exactly the known path, and the samples
// showing a caller that is not one of a function's known callers.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "unwind/recording_unwinder.h"

namespace swprof::testing {

// The function of a frame, "?" when it has no name.
std::string frame_name(const UnwoundSample& s, const Frame& f);

using FrameNamer = std::function<std::string(const UnwoundSample&, const Frame&)>;

// Every sample's walk, in recording order.
std::vector<WalkResult> unwind_all(const std::string& recording, const UnwindOptions& options);
// The same frames (pc, sp, stepper, flags) and the same end.
bool same_walk(const WalkResult& a, const WalkResult& b);

struct UnwindCheck {
  uint64_t samples = 0;
  // Samples whose walk differs, frame for frame, from the walk without the
  // rule cache, every frame asking the steppers.
  uint64_t differ_without_rule_cache = 0;
  uint64_t complete = 0;
  uint64_t in_leaf = 0;
  uint64_t leaf_exact = 0;
  uint64_t leaf_path = 0;  // in the leaf and showing the known path, complete or not
  uint64_t wrong = 0;
  uint64_t frames = 0, guessed = 0;  // every sample's frames, and those the scan guessed
  std::string first_wrong;
  std::string first_inexact;  // the names of the first leaf sample that is not exact
  std::map<std::string, uint64_t> ends;
};

// Unwinds `recording`; a sample is "in the leaf" when frame 0 is `leaf_name`
// and then must show exactly `path` (frame 0 first) and be complete.
UnwindCheck check_recording(const std::string& recording, const std::string& leaf_name,
                            const std::vector<std::string>& path, UnwinderChoice unwinder = UnwinderChoice::kChain,
                            const FrameNamer& namer = frame_name);

// >= 100 samples in the leaf, >= 99 % of them exact, none wrong, the same
// walks with and without the rule cache.
void require_exact(const UnwindCheck& c);

}  // namespace swprof::testing
