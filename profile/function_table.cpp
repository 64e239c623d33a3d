// The functions of a profile (profile/function_table.h).

#include "profile/function_table.h"

#include <unordered_map>

#include "common/enum_names.h"
#include "common/error.h"

namespace swprof {
namespace {

constexpr uint32_t kNoRow = UINT32_MAX;

constexpr InlineRows kInlineRows[] = {InlineRows::kMerge, InlineRows::kCaller, InlineRows::kSeparate};

// The rows of a tree's frames: frames of one function share a row (under
// kSeparate, only frames with the same flags do). Under kCaller an inlined
// frame is `transparent`: its samples belong to the function around it.
class RowIndex {
 public:
  RowIndex(const CallTree& tree, InlineRows mode) : row_of_(tree.frames().size(), kNoRow) {
    std::unordered_map<std::string, uint32_t> by_key;
    for (uint32_t f = 0; f < tree.frames().size(); ++f) {
      const CctFrame& frame = tree.frame(f);
      std::string key = function_key(frame, mode);
      if (key.empty()) continue;
      const bool inlined = frame.flags & kCctInline;
      auto [it, added] = by_key.try_emplace(std::move(key), static_cast<uint32_t>(rows_.size()));
      if (added) rows_.push_back(FunctionRow{f});
      else if (!inlined && (tree.frame(rows_[it->second].frame).flags & kCctInline)) rows_[it->second].frame = f;
      row_of_[f] = it->second;
    }
    if (mode == InlineRows::kCaller)
      for (uint32_t f = 0; f < tree.frames().size(); ++f) transparent_.push_back(tree.frame(f).flags & kCctInline);
    else transparent_.assign(tree.frames().size(), false);
  }

  uint32_t row(uint32_t frame) const { return row_of_[frame]; }
  bool transparent(uint32_t frame) const { return transparent_[frame]; }
  std::vector<FunctionRow>& rows() { return rows_; }

 private:
  std::vector<uint32_t> row_of_;
  std::vector<bool> transparent_;
  std::vector<FunctionRow> rows_;
};

void add_self(FunctionRow& row, uint64_t self, uint64_t weight, bool inlined) {
  row.self += self;
  row.self_weight += weight;
  if (inlined) {
    row.inlined_self += self;
    row.inlined_self_weight += weight;
  }
}

// Totals of every row, and self counts of a root-first tree. Depth-first with
// a count of how often each row is on the current path: a node adds its total
// only where its row is not already above it. `charge` is the row of the
// nearest frame above that is no transparent one: a transparent frame's self
// samples go there (to its own row when there is none).
void add_along_paths(const CallTree& tree, RowIndex& index, bool count_self, InlineRows mode) {
  std::vector<FunctionRow>& rows = index.rows();
  std::vector<uint32_t> on_path(rows.size(), 0);
  struct Item {
    uint32_t node;
    uint32_t charge;
    bool leaving;
  };
  std::vector<Item> stack{{CallTree::kRoot, kNoRow, false}};
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(item.node);
    uint32_t row = item.node == CallTree::kRoot ? kNoRow : index.row(n.frame);
    if (item.leaving) {
      --on_path[row];
      continue;
    }
    if (row != kNoRow && index.transparent(n.frame) && item.charge != kNoRow) {
      if (count_self) add_self(rows[item.charge], n.self, n.self_weight, false);
      row = kNoRow;  // counted in the total of the function around it
    } else if (row != kNoRow) {
      const bool inlined = mode == InlineRows::kMerge && (tree.frame(n.frame).flags & kCctInline);
      if (count_self) add_self(rows[row], n.self, n.self_weight, inlined);
      if (on_path[row]++ == 0) {
        rows[row].total += n.total;
        rows[row].total_weight += n.total_weight;
      }
      stack.push_back({item.node, row, true});
    }
    for (uint32_t c : n.children) stack.push_back({c, row != kNoRow ? row : item.charge, false});
  }
}

// Self samples of a leaf-first tree (--reverse): a sample's leaf is the first
// frame below the root (or below its thread root), so its self samples are
// that node's total. A transparent leaf charges the first frame further down
// that is none.
void add_leaf_first_self(const CallTree& tree, RowIndex& index, InlineRows mode) {
  std::vector<FunctionRow>& rows = index.rows();
  std::vector<uint32_t> pending;
  auto charge = [&](uint32_t node) {
    pending.push_back(node);
    while (!pending.empty()) {
      const CctNode& n = tree.node(pending.back());
      pending.pop_back();
      const bool inlined = tree.frame(n.frame).flags & kCctInline;
      if (!index.transparent(n.frame)) {
        add_self(rows[index.row(n.frame)], n.total, n.total_weight, inlined && mode == InlineRows::kMerge);
        continue;
      }
      add_self(rows[index.row(n.frame)], n.self, n.self_weight, false);  // stacks that end inlined
      for (uint32_t c : n.children) pending.push_back(c);
    }
  };
  auto add_leaves = [&](uint32_t parent) {
    for (uint32_t c : tree.node(parent).children)
      if (index.row(tree.node(c).frame) != kNoRow) charge(c);
  };
  bool thread_roots = false;
  for (uint32_t c : tree.node(CallTree::kRoot).children)
    if (tree.frame(tree.node(c).frame).flags & kCctThread) {
      thread_roots = true;
      add_leaves(c);
    }
  if (!thread_roots) add_leaves(CallTree::kRoot);
}

}  // namespace

const char* inline_rows_name(InlineRows rows) {
  switch (rows) {
    case InlineRows::kMerge: return "merge";
    case InlineRows::kCaller: return "caller";
    case InlineRows::kSeparate: return "separate";
  }
  return "merge";
}

InlineRows parse_inline_rows(const std::string& name) {
  return parse_enum_name<InlineRows>(name, kInlineRows, inline_rows_name, "--inlined");
}

std::vector<std::string> inline_rows_names() { return enum_names<InlineRows>(kInlineRows, inline_rows_name); }

std::string function_key(const CctFrame& frame, InlineRows rows) {
  if (frame.flags & kCctThread) return {};
  const uint8_t flags = rows == InlineRows::kSeparate ? frame.flags : frame.flags & ~kCctInline;
  std::string key = frame.function;
  key.push_back('\0');
  key.append(frame.module).push_back(static_cast<char>(flags));
  return key;
}

std::vector<FunctionRow> function_table(const Profile& profile, InlineRows mode) {
  const CallTree& tree = profile.tree;
  RowIndex index(tree, mode);
  add_along_paths(tree, index, !profile.reversed, mode);
  if (profile.reversed) add_leaf_first_self(tree, index, mode);
  std::vector<FunctionRow> rows;
  for (FunctionRow& r : index.rows())
    if (r.total || r.self) rows.push_back(r);
  return rows;
}

std::vector<uint32_t> row_frames(const CallTree& tree, uint32_t frame, InlineRows rows) {
  const std::string key = function_key(tree.frame(frame), rows);
  if (key.empty()) return {frame};  // a thread root: no function's row
  std::vector<uint32_t> frames;
  for (uint32_t f = 0; f < tree.frames().size(); ++f)
    if (function_key(tree.frame(f), rows) == key) frames.push_back(f);
  return frames;
}

}  // namespace swprof
