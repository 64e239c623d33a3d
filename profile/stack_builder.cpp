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
    : frames_(tree), roots_(roots), reverse_(reverse) {
  stack_.reserve(512);
}

std::vector<uint32_t>& StackBuilder::frames(const PipelineSample& sample) {
  stack_.clear();
  const std::vector<Frame>& user = sample.unwound.walk.frames;
  if (sample.unwound.walk.end == WalkEnd::kNoMappingsYet) {
    add_inside_execve(sample);
  } else {
    for (size_t i = user.size(); i-- > 0;) add(*sample.user_symbols[i], 0, user[i].flags & kFrameGuess);
  }
  for (size_t i = sample.kernel_symbols.size(); i-- > 0;) add(*sample.kernel_symbols[i], kCctKernel, false);
  if (sample.off_cpu && sample.off_cpu->preempted)
    stack_.push_back(named(preempted_, kPreemptedFrame, "[kernel]", kCctKernel));
  if (stack_.empty()) stack_.push_back(named(unknown_, "[unknown]", "[unknown]", 0));
  return stack_;
}

// A sample inside execve: the old program's registers, no stack. Its one
// user frame (execve in the old program's libc, when the replaced maps name
// it) under the synthetic frame "[in execve]", or that frame alone.
void StackBuilder::add_inside_execve(const PipelineSample& sample) {
  stack_.push_back(named(in_execve_, kInExecveFrame, kExecModule, 0));
  const std::vector<const SymbolizedAddress*>& user = sample.user_symbols;
  if (!user.empty() && !user[0]->frames.back().function.empty()) add(*user[0], 0, false);
}

void StackBuilder::arrange(std::vector<uint32_t>& stack, uint32_t tid, const std::string& comm) {
  if (reverse_) std::reverse(stack.begin(), stack.end());
  if (roots_ != ThreadRoots::kNone) stack.insert(stack.begin(), thread_root(tid, comm));
}

// A guessed user frame is interned apart from an exact one at the same
// address (its frames carry kCctGuess).
void StackBuilder::add(const SymbolizedAddress& where, uint8_t flags, bool guess) {
  const std::span<const uint32_t> ids = frames_.frames(where, static_cast<uint8_t>(flags | (guess ? kCctGuess : 0)));
  stack_.insert(stack_.end(), ids.begin(), ids.end());
}

// A synthetic frame, made on first use into `frame`.
uint32_t StackBuilder::named(std::optional<uint32_t>& frame, const char* function, const char* module, uint8_t flags) {
  if (!frame) frame = frames_.named(function, module, flags);
  return *frame;
}

uint32_t StackBuilder::thread_root(uint32_t tid, const std::string& comm) {
  auto [it, inserted] = thread_roots_.try_emplace(tid);
  if (inserted || it->second.comm != comm) {
    it->second.comm = comm;
    it->second.frame = frames_.named(thread_root_name(roots_, comm, tid), "[thread]", kCctThread);
  }
  return it->second.frame;
}

}  // namespace swprof
