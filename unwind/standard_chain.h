#pragma once
// The standard stepper chain and the reference unwinder behind one interface,
// so the recording pipeline, tests and benchmarks can use either.

#include <memory>

#include "unwind/frame.h"
#include "unwind/memory.h"
#include "unwind/recording_unwinder.h"
#include "unwind/registers.h"

namespace swprof {

// State shared by all unwinding threads (compiled CFI tables).
struct SharedUnwindState;

class SampleWalker {
 public:
  virtual ~SampleWalker() = default;
  // Unwinds one sample into `out`, reusing the storage of its frames.
  virtual void walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps, WalkResult& out) = 0;
  WalkResult walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps) {
    WalkResult result;
    walk(regs, stack, maps, result);
    return result;
  }
};

std::shared_ptr<SharedUnwindState> make_shared_unwind_state();

std::unique_ptr<SampleWalker> make_sample_walker(const UnwindOptions& options,
                                                 std::shared_ptr<SharedUnwindState> shared);

}  // namespace swprof
