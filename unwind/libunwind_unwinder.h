#pragma once
// The reference unwinder: libunwind's remote API run offline over a sample's
// copied stack, the way perf's unwind-libunwind-local.c does it. The same
// sample can be unwound by this and by the stepper chain (Walker), so tests
// and benchmarks can compare the two frame by frame.
//
// Frames match the Walker's conventions: frame 0 is the sampled registers
// (StepperKind::kSample, kFrameExactPc); every later frame is
// StepperKind::kLibunwind with a return address as pc, except the interrupted
// context of a signal handler (kFrameSignal | kFrameExactPc).
//
// Not thread-safe: use one instance per unwinding thread. libunwind keeps its
// rule cache in the instance's address space.

#include <cstddef>
#include <memory>

#include "unwind/address_space.h"
#include "unwind/frame.h"
#include "unwind/memory.h"
#include "unwind/registers.h"

namespace swprof {

class LibunwindUnwinder {
 public:
  LibunwindUnwinder();
  ~LibunwindUnwinder();
  LibunwindUnwinder(const LibunwindUnwinder&) = delete;
  LibunwindUnwinder& operator=(const LibunwindUnwinder&) = delete;

  // Unwinds from the sampled registers. Reads outside `stack` are served from
  // the binaries of `maps`; the walk ends with kStackExhausted when libunwind
  // failed on a read past the copied stack.
  WalkResult unwind(const Registers& regs, const Memory& stack, const ProcessMaps& maps, size_t max_depth = kDefaultMaxDepth);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace swprof
