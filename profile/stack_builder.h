#pragma once
// Turns the symbolized samples of the pipeline into stacks of CallTree frame
// ids: user frames root first (under "[in execve]" for a sample inside
// execve), then the kernel frames; "[unknown]" for a sample without any;
// then, when asked, leaf first and under a thread root.
// Each distinct address is interned once (FrameInterner); the stack vector
// is reused, so a sample costs no allocation once its addresses are known.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profile/call_tree.h"
#include "profile/frame_interner.h"
#include "profile/pipeline.h"

namespace swprof {

// The synthetic frame above the samples taken inside execve (walks that
// ended WalkEnd::kNoMappingsYet): the old program's registers, the new
// program's address space, no stack to unwind.
inline constexpr const char* kInExecveFrame = "[in execve]";
inline constexpr const char* kExecModule = "[exec]";
// The synthetic leaf of an off-CPU sample whose switch-out was involuntary
// (the thread was runnable, another took the CPU): not a wait.
inline constexpr const char* kPreemptedFrame = "[preempted]";

// Which synthetic frame, if any, roots each sample's stack.
enum class ThreadRoots {
  kNone,
  kComm,    // the thread's name: threads of the same name merge
  kThread,  // "name [tid]": one subtree per thread (--per-thread)
};

// Name of the thread root frame for `comm` and `tid` under `mode`.
std::string thread_root_name(ThreadRoots mode, const std::string& comm, uint32_t tid);
// The thread a root frame's name gives back: ("name", tid) for "name [tid]"
// (kThread); nullopt for a name without a trailing " [digits]" (kComm).
std::optional<std::pair<std::string, uint32_t>> parse_thread_root_name(const std::string& name);

class StackBuilder {
 public:
  StackBuilder(CallTree& tree, ThreadRoots roots, bool reverse);

  // The sample's frames, root first (the outermost function first, then what
  // was inlined into it). The vector is reused by the next call.
  std::vector<uint32_t>& frames(const PipelineSample& sample);
  // Turns `stack` (from frames()) leaf first when reversing, and puts the
  // thread root of (tid, comm) on top when there are thread roots.
  void arrange(std::vector<uint32_t>& stack, uint32_t tid, const std::string& comm);

 private:
  void add(const SymbolizedAddress& where, uint8_t flags, bool guess);
  void add_inside_execve(const PipelineSample& sample);
  uint32_t named(std::optional<uint32_t>& frame, const char* function, const char* module, uint8_t flags);
  uint32_t thread_root(uint32_t tid, const std::string& comm);

  struct ThreadRoot {
    std::string comm;  // the name it was made for: a new name gets its own root
    uint32_t frame = 0;
  };

  FrameInterner frames_;
  ThreadRoots roots_;
  bool reverse_;
  std::unordered_map<uint32_t, ThreadRoot> thread_roots_;  // by tid
  std::optional<uint32_t> in_execve_;                      // the "[in execve]" frame, once made
  std::optional<uint32_t> preempted_;                      // the "[preempted]" frame, once made
  std::optional<uint32_t> unknown_;                        // the "[unknown]" frame, once made
  std::vector<uint32_t> stack_;
};

}  // namespace swprof
