#pragma once
// The calling-context tree (CCT) over all samples, root first, and the frame
// table its nodes point into. Each node carries a calling-context id in the
// style of probabilistic calling context:
//   id(root) = 0,  id(child) = 3 * id(parent) + hash(module + "\0" + function)  (mod 2^64)
// built from names only (never addresses or lines), so the same code path has
// the same id across runs and small rebuilds.

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/flat_index.h"

namespace swprof {

enum CctFrameFlags : uint8_t {
  kCctInline = 1,  // inlined into its parent frame's function
  kCctGuess = 2,   // found by scanning the stack: may be wrong
  kCctKernel = 4,  // a kernel frame
  kCctThread = 8,  // a synthetic "comm tid" frame (--per-thread)
};

struct CctFrame {
  std::string function;  // display name ("[unknown] module+0x12" when unknown)
  std::string module;    // basename, "[vdso]", "[kernel]", ...
  std::string file;      // source file, may be empty
  uint32_t line = 0;     // line of the function (declaration), else of the first address seen
  uint8_t flags = 0;
};

struct CctNode {
  uint32_t parent = 0;   // the root is its own parent
  uint32_t frame = 0;    // index into frames(); kNoFrame for the root
  uint64_t context_id = 0;
  uint64_t self = 0;     // samples whose leaf is this node
  uint64_t total = 0;    // samples through this node
  uint64_t self_weight = 0;   // sum of the selected weight (periods, ns for cpu-clock; see WeightKind)
  uint64_t total_weight = 0;
  uint64_t self_off_weight = 0;   // of self_weight, off-CPU nanoseconds
  uint64_t total_off_weight = 0;  // of total_weight, off-CPU nanoseconds
  std::vector<uint32_t> children;
};

class CallTree {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNoFrame = UINT32_MAX;

  CallTree();

  // The frame's index, adding it on first sight. Frames are the same when
  // function, module and flags are; file and line are kept from the first.
  uint32_t intern(const CctFrame& frame);
  // Adds `count` samples of weight `weight` for a stack given root first;
  // `off_weight` of that weight is off-CPU time. Returns the stack's leaf
  // node (the root for an empty stack).
  uint32_t add(std::span<const uint32_t> stack_root_first, uint64_t count, uint64_t weight, uint64_t off_weight = 0);
  // Adds `count` samples of weight `weight` (`off_weight` of it off-CPU)
  // whose leaf is the existing `node`.
  void add_self(uint32_t node, uint64_t count, uint64_t weight, uint64_t off_weight = 0);
  // The child of `parent` for `frame`, created if missing (counts zero).
  uint32_t child(uint32_t parent, uint32_t frame);
  // The node of a stack given root first (the root for an empty one),
  // created with its missing ancestors (counts zero).
  uint32_t node_at(std::span<const uint32_t> stack_root_first);
  // Whether `node`'s stack, root first, is `stack_root_first`.
  bool is_path(uint32_t node, std::span<const uint32_t> stack_root_first) const;
  // Adds every sample of `from` at the same stack here (frames matched by
  // function, module and flags).
  void add_tree(const CallTree& from);

  const CctNode& node(uint32_t id) const { return nodes_[id]; }
  const std::vector<CctNode>& nodes() const { return nodes_; }
  const CctFrame& frame(uint32_t id) const { return frames_[id]; }
  const std::vector<CctFrame>& frames() const { return frames_; }
  uint64_t total() const { return nodes_[kRoot].total; }
  uint64_t total_weight() const { return nodes_[kRoot].total_weight; }
  uint64_t total_off_weight() const { return nodes_[kRoot].total_off_weight; }

  // Orders every node's children by (function, module, flags), so every
  // output is deterministic.
  void sort_children();
  // Stack of a node, root first (without the root).
  std::vector<uint32_t> path(uint32_t node) const;

  // Per distinct frame: samples where it is the leaf (self) and samples with
  // it anywhere on the stack, counted once per sample even under recursion.
  struct FrameTotals {
    uint64_t self = 0, total = 0, self_weight = 0, total_weight = 0;
  };
  std::vector<FrameTotals> frame_totals() const;

 private:
  std::vector<CctFrame> frames_;
  std::unordered_map<std::string, uint32_t> frame_index_;
  std::vector<CctNode> nodes_;
  FlatIndex<uint64_t> child_index_;  // (parent << 32 | frame) -> node
};

// How text outputs show a frame's module: "[libc.so.6]", and "[kernel]" or
// "[vdso]" without doubled brackets.
std::string module_label(const std::string& module);
// " (inlined)", " (guessed)", both, or "" for a frame's flags.
std::string frame_marks(const CctFrame& frame);

// The frame part of a context id: FNV-1a 64 over module, a NUL, and function.
uint64_t context_hash(const std::string& module, const std::string& function);
// Context id of a child of a node with id `parent`.
inline uint64_t child_context_id(uint64_t parent, uint64_t frame_hash) { return 3 * parent + frame_hash; }

}  // namespace swprof
