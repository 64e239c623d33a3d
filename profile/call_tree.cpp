#include "profile/call_tree.h"

#include <algorithm>
#include <tuple>

namespace swprof {

std::string module_label(const std::string& module) {
  return !module.empty() && module.front() == '[' ? module : "[" + module + "]";
}

std::string frame_marks(const CctFrame& frame) {
  std::string m;
  if (frame.flags & kCctInline) m += " (inlined)";
  if (frame.flags & kCctGuess) m += " (guessed)";
  return m;
}

uint64_t context_hash(const std::string& module, const std::string& function) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (unsigned char c : module) mix(c);
  mix(0);
  for (unsigned char c : function) mix(c);
  return h;
}

CallTree::CallTree() {
  CctNode root;
  root.frame = kNoFrame;
  nodes_.push_back(std::move(root));
}

uint32_t CallTree::intern(const CctFrame& frame) {
  std::string key;
  key.reserve(frame.function.size() + frame.module.size() + 2);
  key.append(frame.function).push_back('\0');
  key.append(frame.module).push_back(static_cast<char>(frame.flags));
  auto [it, inserted] = frame_index_.try_emplace(std::move(key), static_cast<uint32_t>(frames_.size()));
  if (inserted) frames_.push_back(frame);
  return it->second;
}

uint32_t CallTree::child(uint32_t parent, uint32_t frame) {
  const uint64_t key = (static_cast<uint64_t>(parent) << 32) | frame;
  const auto [id, added] = child_index_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
  if (added) {
    CctNode n;
    n.parent = parent;
    n.frame = frame;
    const CctFrame& f = frames_[frame];
    n.context_id = child_context_id(nodes_[parent].context_id, context_hash(f.module, f.function));
    nodes_.push_back(std::move(n));
    nodes_[parent].children.push_back(id);
  }
  return id;
}

uint32_t CallTree::node_at(std::span<const uint32_t> stack_root_first) {
  uint32_t at = kRoot;
  for (uint32_t frame : stack_root_first) at = child(at, frame);
  return at;
}

bool CallTree::is_path(uint32_t node, std::span<const uint32_t> stack_root_first) const {
  uint32_t at = node;
  for (size_t i = stack_root_first.size(); i-- > 0; at = nodes_[at].parent)
    if (at == kRoot || nodes_[at].frame != stack_root_first[i]) return false;
  return at == kRoot;
}

uint32_t CallTree::add(std::span<const uint32_t> stack_root_first, uint64_t count, uint64_t weight, uint64_t off_weight) {
  const uint32_t leaf = node_at(stack_root_first);
  add_self(leaf, count, weight, off_weight);
  return leaf;
}

void CallTree::add_self(uint32_t node, uint64_t count, uint64_t weight, uint64_t off_weight) {
  nodes_[node].self += count;
  nodes_[node].self_weight += weight;
  nodes_[node].self_off_weight += off_weight;
  for (uint32_t at = node;; at = nodes_[at].parent) {
    nodes_[at].total += count;
    nodes_[at].total_weight += weight;
    nodes_[at].total_off_weight += off_weight;
    if (at == kRoot) break;
  }
}

void CallTree::add_tree(const CallTree& from) {
  std::vector<uint32_t> frame_here(from.frames().size());
  for (size_t f = 0; f < frame_here.size(); ++f) frame_here[f] = intern(from.frame(static_cast<uint32_t>(f)));
  // A parent's index is always below its children's: each parent's
  // counterpart exists when its children are added.
  std::vector<uint32_t> node_here(from.nodes().size(), kRoot);
  for (uint32_t id = 0; id < from.nodes().size(); ++id) {
    const CctNode& n = from.node(id);
    if (id != kRoot) node_here[id] = child(node_here[n.parent], frame_here[n.frame]);
    if (n.self || n.self_weight) add_self(node_here[id], n.self, n.self_weight, n.self_off_weight);
  }
}

void CallTree::sort_children() {
  auto key = [this](uint32_t node) {
    const CctFrame& f = frames_[nodes_[node].frame];
    return std::tie(f.function, f.module, f.flags);
  };
  for (auto& n : nodes_)
    std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
}

std::vector<uint32_t> CallTree::path(uint32_t node) const {
  std::vector<uint32_t> out;
  for (uint32_t at = node; at != kRoot; at = nodes_[at].parent) out.push_back(nodes_[at].frame);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<CallTree::FrameTotals> CallTree::frame_totals() const {
  std::vector<FrameTotals> totals(frames_.size());
  // Depth-first with a count of how often each frame is on the current path:
  // a node adds its total only where its frame is not already above it.
  std::vector<uint32_t> on_path(frames_.size(), 0);
  struct Item {
    uint32_t node;
    bool leaving;
  };
  std::vector<Item> stack{{kRoot, false}};
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const CctNode& n = nodes_[item.node];
    if (item.leaving) {
      --on_path[n.frame];
      continue;
    }
    if (item.node != kRoot) {
      FrameTotals& t = totals[n.frame];
      t.self += n.self;
      t.self_weight += n.self_weight;
      if (on_path[n.frame]++ == 0) {
        t.total += n.total;
        t.total_weight += n.total_weight;
      }
      stack.push_back({item.node, true});
    }
    for (uint32_t c : n.children) stack.push_back({c, false});
  }
  return totals;
}

}  // namespace swprof
