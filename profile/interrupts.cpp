#include "profile/interrupts.h"

#include <vector>

namespace swprof {

bool is_interrupt_entry(std::string_view f) {
  // Linux 5.8 and later (idtentry): asm_sysvec_<vector>, asm_common_interrupt,
  // asm_spurious_interrupt, and NMIs.
  if (f.starts_with("asm_sysvec_")) return true;
  if (f == "asm_common_interrupt" || f == "asm_spurious_interrupt" || f == "asm_exc_nmi") return true;
  // Older kernels: apic_timer_interrupt, reschedule_interrupt, ...
  if (f.starts_with("asm_")) return false;
  return f.ends_with("_interrupt") || f == "common_interrupt" || f == "ret_from_intr" || f == "irq_entries_start";
}

uint64_t charge_interrupts_to_interrupted(Profile& profile) {
  const CallTree& old = profile.tree;
  std::vector<bool> entry(old.frames().size());
  bool any = false;
  for (size_t f = 0; f < entry.size(); ++f) {
    const CctFrame& frame = old.frame(static_cast<uint32_t>(f));
    entry[f] = (frame.flags & kCctKernel) && is_interrupt_entry(frame.function);
    any = any || entry[f];
  }
  if (!any) return 0;

  CallTree tree;
  std::vector<uint32_t> frame_map(old.frames().size(), CallTree::kNoFrame);
  std::vector<uint32_t> stack;
  uint64_t moved = 0;
  for (uint32_t i = 1; i < old.nodes().size(); ++i) {
    const CctNode& n = old.node(i);
    if (n.self == 0 && n.self_weight == 0) continue;
    stack.clear();
    bool cut = false;
    for (uint32_t f : old.path(i)) {
      if (entry[f]) {
        cut = true;
        break;
      }
      if (frame_map[f] == CallTree::kNoFrame) frame_map[f] = tree.intern(old.frame(f));
      stack.push_back(frame_map[f]);
    }
    if (cut) moved += n.self;
    tree.add(stack, n.self, n.self_weight, n.self_off_weight);
  }
  // Samples of the root itself (no frames at all) stay there.
  const CctNode& root = old.node(CallTree::kRoot);
  if (root.self || root.self_weight) tree.add({}, root.self, root.self_weight, root.self_off_weight);
  tree.sort_children();
  profile.tree = std::move(tree);
  return moved;
}

}  // namespace swprof
