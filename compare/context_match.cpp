#include "compare/context_match.h"

namespace swprof {

const std::string& matching_module(const CctFrame& frame, bool ignore_modules) {
  static const std::string kNone;
  if (!ignore_modules || (!frame.module.empty() && frame.module.front() == '[')) return frame.module;
  return kNone;
}

std::vector<uint64_t> matching_context_ids(const CallTree& tree, bool ignore_modules) {
  std::vector<uint64_t> ids(tree.nodes().size());
  // A parent's index is always below its children's.
  for (uint32_t i = 0; i < ids.size(); ++i) {
    const CctNode& n = tree.node(i);
    if (!ignore_modules || i == CallTree::kRoot) {
      ids[i] = n.context_id;
      continue;
    }
    const CctFrame& f = tree.frame(n.frame);
    ids[i] = child_context_id(ids[n.parent], context_hash(matching_module(f, true), f.function));
  }
  return ids;
}

}  // namespace swprof
