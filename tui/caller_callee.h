#pragma once
// The callers and the callees of one function, each merged over every place
// the function is on a stack (a "sandwich", as speedscope and hotspot show
// it): two trees, each with the function alone below its root.
//
//   callers: root -> F -> F's callers -> their callers -> ... (inverted):
//            a node's total is the samples where F was called along the
//            path from it down to F.
//   callees: root -> F -> what F called -> ... as in the calling-context
//            tree, F's subtrees added together.
//
// F is the set of frames of its function's row (row_frames: its inlined
// copies with it). Under recursion only the outermost F of a stack counts,
// so F's total in both trees is the function's total (each sample once), and
// a recursive call shows as F among F's callees. The trees' frames are their
// own; `profile_frame` gives the profile's frame of each.

#include <cstdint>
#include <vector>

#include "profile/call_tree.h"

namespace swprof::tui {

struct CallerCallee {
  uint32_t function = 0;  // the profile's frame that names F
  CallTree callers;
  CallTree callees;
  std::vector<uint32_t> callers_profile_frame;  // by frame of `callers`
  std::vector<uint32_t> callees_profile_frame;  // by frame of `callees`
};

// F is `frames` (frames of `tree`), named by `function` (one of them). In a
// tree built leaf first (--reverse), what the trees call callers are the
// callees, and the other way round.
CallerCallee caller_callee(const CallTree& tree, const std::vector<uint32_t>& frames, uint32_t function);

}  // namespace swprof::tui
