// The callers and the callees of one function (tui/caller_callee.h).

#include "tui/caller_callee.h"

#include <algorithm>

namespace swprof::tui {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Interns the profile's frames into one of the trees, remembering where
// each came from.
class FrameCopier {
 public:
  FrameCopier(const CallTree& from, CallTree& to, std::vector<uint32_t>& origin)
      : from_(from), to_(to), origin_(origin), here_(from.frames().size(), kNone) {}

  uint32_t operator()(uint32_t frame) {
    if (here_[frame] == kNone) {
      here_[frame] = to_.intern(from_.frame(frame));
      if (origin_.size() <= here_[frame]) origin_.resize(here_[frame] + 1, kNone);
      origin_[here_[frame]] = frame;
    }
    return here_[frame];
  }

 private:
  const CallTree& from_;
  CallTree& to_;
  std::vector<uint32_t>& origin_;
  std::vector<uint32_t> here_;
};

}  // namespace

CallerCallee caller_callee(const CallTree& tree, const std::vector<uint32_t>& frames, uint32_t function) {
  CallerCallee out;
  out.function = function;
  std::vector<bool> is_f(tree.frames().size(), false);
  for (uint32_t f : frames) is_f[f] = true;
  FrameCopier to_callers(tree, out.callers, out.callers_profile_frame);
  FrameCopier to_callees(tree, out.callees, out.callees_profile_frame);
  out.callers.child(CallTree::kRoot, to_callers(function));  // F shows even without samples
  const uint32_t f_in_callees = out.callees.child(CallTree::kRoot, to_callees(function));
  std::vector<uint32_t> stack;
  // A parent's index is below its children's, so one pass in index order
  // sees every node after its parent. below[n]: n's node in `callees` when
  // an F is at or above n, else kNone.
  const std::vector<CctNode>& nodes = tree.nodes();
  std::vector<uint32_t> below(nodes.size(), kNone);
  for (uint32_t n = 1; n < nodes.size(); ++n) {
    const CctNode& node = nodes[n];
    const uint32_t above = below[node.parent];
    if (above != kNone) {
      below[n] = out.callees.child(above, to_callees(node.frame));
    } else if (is_f[node.frame]) {  // an outermost F
      below[n] = f_in_callees;
      stack = {to_callers(function)};
      for (uint32_t at = node.parent; at != CallTree::kRoot; at = nodes[at].parent)
        stack.push_back(to_callers(nodes[at].frame));
      out.callers.add(stack, node.total, node.total_weight, node.total_off_weight);
    }
    if (below[n] != kNone && (node.self || node.self_weight))
      out.callees.add_self(below[n], node.self, node.self_weight, node.self_off_weight);
  }
  return out;
}

}  // namespace swprof::tui
