#include "profile/stack_builder.h"

#include <algorithm>

namespace swprof {

std::string thread_root_name(ThreadRoots mode, const std::string& comm, uint32_t tid) {
  const std::string name = comm.empty() ? "[unknown]" : comm;
  if (mode == ThreadRoots::kThread) return name + " [" + std::to_string(tid) + "]";
  return name;
}

std::optional<std::pair<std::string, uint32_t>> parse_thread_root_name(const std::string& name) {
  const size_t open = name.rfind(" [");
  if (open == std::string::npos || name.back() != ']') return std::nullopt;
  const std::string digits = name.substr(open + 2, name.size() - open - 3);
  if (digits.empty() || digits.size() > 10 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const uint64_t tid = std::stoull(digits);
  if (tid > UINT32_MAX) return std::nullopt;
  return std::make_pair(name.substr(0, open), static_cast<uint32_t>(tid));
}

StackBuilder::StackBuilder(CallTree& tree, ThreadRoots roots, bool reverse)
    : tree_(tree), roots_(roots), reverse_(reverse) {
  stack_.reserve(512);
}

std::vector<uint32_t>& StackBuilder::frames(const PipelineSample& sample) {
  stack_.clear();
  const std::vector<Frame>& user = sample.unwound.walk.frames;
  if (sample.unwound.walk.end == WalkEnd::kNoMappingsYet) {
    add_inside_execve(sample);
  } else {
    for (size_t i = user.size(); i-- > 0;)
      add(*sample.user_symbols[i], 0, user[i].flags & kFrameGuess, stack_);
  }
  for (size_t i = sample.kernel_symbols.size(); i-- > 0;) add(*sample.kernel_symbols[i], kCctKernel, false, stack_);
  if (sample.off_cpu && sample.off_cpu->preempted) {
    if (!preempted_) preempted_ = named(kPreemptedFrame, "[kernel]", kCctKernel);
    stack_.push_back(*preempted_);
  }
  if (stack_.empty()) stack_.push_back(named("[unknown]", "[unknown]", 0));
  return stack_;
}

// A sample inside execve: the old program's registers, no stack. Its one
// user frame (execve in the old program's libc, when the replaced maps name
// it) under the synthetic frame "[in execve]", or that frame alone.
void StackBuilder::add_inside_execve(const PipelineSample& sample) {
  if (!in_execve_) in_execve_ = named(kInExecveFrame, kExecModule, 0);
  stack_.push_back(*in_execve_);
  const std::vector<const SymbolizedAddress*>& user = sample.user_symbols;
  if (!user.empty() && !user[0]->frames.back().function.empty()) add(*user[0], 0, false, stack_);
}

void StackBuilder::arrange(std::vector<uint32_t>& stack, uint32_t tid, const std::string& comm) {
  if (reverse_) std::reverse(stack.begin(), stack.end());
  if (roots_ != ThreadRoots::kNone) stack.insert(stack.begin(), thread_root(tid, comm));
}

// A guessed user frame is interned apart from an exact one at the same
// address (its frames carry kCctGuess).
void StackBuilder::add(const SymbolizedAddress& where, uint8_t flags, bool guess, std::vector<uint32_t>& out) {
  const auto key = reinterpret_cast<uintptr_t>(&where) | (guess ? 1u : 0u);
  auto [it, inserted] = by_address_.try_emplace(key);
  if (inserted) it->second = intern(where, static_cast<uint8_t>(flags | (guess ? kCctGuess : 0)));
  out.insert(out.end(), it->second.begin(), it->second.end());
}

// The address's frames root first (outermost function, then what was inlined into it).
std::vector<uint32_t> StackBuilder::intern(const SymbolizedAddress& where, uint8_t flags) {
  std::vector<uint32_t> ids;
  for (auto it = where.frames.rbegin(); it != where.frames.rend(); ++it) {
    CctFrame f;
    f.function = display_name(*it);
    f.module = it->module;
    f.file = it->file;
    f.line = it->decl_line ? it->decl_line : it->line;
    f.flags = static_cast<uint8_t>(flags | (it->inlined ? kCctInline : 0));
    ids.push_back(tree_.intern(f));
  }
  return ids;
}

uint32_t StackBuilder::named(const std::string& function, const std::string& module, uint8_t flags) {
  CctFrame f;
  f.function = function;
  f.module = module;
  f.flags = flags;
  return tree_.intern(f);
}

uint32_t StackBuilder::thread_root(uint32_t tid, const std::string& comm) {
  auto [it, inserted] = thread_roots_.try_emplace(tid);
  if (inserted || it->second.comm != comm) {
    it->second.comm = comm;
    it->second.frame = named(thread_root_name(roots_, comm, tid), "[thread]", kCctThread);
  }
  return it->second.frame;
}

}  // namespace swprof
