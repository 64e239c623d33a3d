#include "output/context_stack.h"

#include <algorithm>
#include <cstdio>

#include "common/error.h"
#include "common/text_escape.h"
#include "profile/info.h"

namespace swprof {

void write_context_stack(const Profile& profile, uint64_t id, std::ostream& out) {
  const CallTree& tree = profile.tree;
  // Siblings that differ only in flags (inlined or not, guessed or not)
  // share an id: their samples are summed, the first one's stack is shown.
  uint32_t found = 0;
  uint64_t self = 0, total = 0;
  for (uint32_t i = 1; i < tree.nodes().size(); ++i)
    if (tree.node(i).context_id == id) {
      if (!found) found = i;
      self += tree.node(i).self;
      total += tree.node(i).total;
    }
  if (!found)
    throw Error("context id " + format_context_id(id) + " is not in '" + profile.source +
                "' (a context id can only be decoded with a profile that has samples in that context)");
  char line[128];
  const double share = percent(total, tree.total());
  snprintf(line, sizeof line, ": %llu samples (%.2f%%), %llu self\n", static_cast<unsigned long long>(total), share,
           static_cast<unsigned long long>(self));
  out << "context " << format_context_id(id) << " in " << terminal_safe(profile.source) << line;
  std::vector<uint32_t> nodes;  // root first
  for (uint32_t at = found; at != CallTree::kRoot; at = tree.node(at).parent) nodes.push_back(at);
  std::reverse(nodes.begin(), nodes.end());
  for (uint32_t n : nodes) {
    const CctFrame& f = tree.frame(tree.node(n).frame);
    out << "  " << format_context_id(tree.node(n).context_id) << "  " << terminal_safe(f.function) << "  "
        << terminal_safe(module_label(f.module));
    if (!f.file.empty()) out << "  " << terminal_safe(f.file) << (f.line ? ":" + std::to_string(f.line) : "");
    out << frame_marks(f) << "\n";
  }
}

}  // namespace swprof
