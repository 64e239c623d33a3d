#pragma once
// One unwound frame and why a walk ended.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace swprof {

// Which stepper produced a frame (the Dyninst FrameStepper that handled it).
enum class StepperKind : uint8_t {
  kSample = 0,   // frame 0: the sampled registers themselves
  kBottom,
  kSignal,
  kCfi,
  kFramePointer,
  kAnalysis,
  kWanderer,
  kLibunwind,    // the reference unwinder
  kGo,           // Go functions, by the pclntab's stack-pointer deltas
};
const char* stepper_name(StepperKind kind);

enum FrameFlags : uint8_t {
  kFrameGuess = 1,        // found by scanning the stack: may be wrong
  kFrameSignal = 2,       // the interrupted context of a signal handler
  kFrameExactPc = 4,      // pc is an exact instruction (frame 0, after a signal), not a return address
  // Walked from stack bytes the kernel did not copy: the recorder read them
  // from the live thread after the sample and kept them only where they
  // agreed with the copy (SampleView::stack_beyond).
  kFrameBeyondCopy = 8,
};

struct Frame {
  uint64_t pc = 0;
  uint64_t sp = 0;
  StepperKind stepper = StepperKind::kSample;  // the stepper that produced this frame
  uint8_t flags = 0;

  // Where its unwind info and symbol are: the pc itself when exact, else
  // the call before the return address (which may sit past the function).
  uint64_t lookup_pc() const { return (flags & kFrameExactPc) ? pc : pc - 1; }
};

// The deepest walk by default (--max-depth): a bound for safety, not for
// real stacks. A frame's sp lies at least 8 bytes above its callee's (but
// for signal frames), so the kernel's largest copy (65,528 bytes) holds at
// most 8,191 frames, and real recursions thousands deep walk whole. A
// hostile stack costs at most this many steps (24 bytes of frame each).
inline constexpr size_t kDefaultMaxDepth = 16384;

// Why a walk stopped.
enum class WalkEnd : uint8_t {
  kBottom,            // reached the outermost frame (_start, thread entry): complete
  kStackExhausted,    // the next read was past the copied stack (raise --stack-size)
  kNoUnwindInfo,      // no stepper could handle the pc
  kUnmappedPc,        // the pc is in no known mapping
  kBadFramePointer,   // the frame pointer chain led nowhere sensible
  kNoProgress,        // pc and sp did not change, or sp went down
  kMaxDepth,
  kNoRegisters,       // the sample has no user registers (kernel thread)
  // A Go function that switches stacks (the system stack, cgo, morestack):
  // the callers are on a stack that was not copied. Not a failure.
  kStackSwitch,
  // Nothing was copied at the sampled sp, so no caller could be read: the
  // kernel copies no stack when the page at sp is not present (a sample in
  // the fault that grows the stack). Not cured by a larger --stack-size.
  kNoStackCopied,
  // The sampled pc is in no known mapping and no stack was copied at sp: a
  // sample inside execve, whose registers are the old program's while the
  // address space is the new one, not yet mapped. Keep this one last.
  kNoMappingsYet,
};
const char* walk_end_name(WalkEnd end);

struct WalkResult {
  std::vector<Frame> frames;
  WalkEnd end = WalkEnd::kNoUnwindInfo;
  bool complete() const { return end == WalkEnd::kBottom; }
};

// Flags kFrameBeyondCopy on the frames whose step read stack at or past
// `copy_end` (the end of the kernel's copy): a caller's frame is read from
// below its sp (the return address at sp - 8, saved registers under it),
// so a frame whose sp lies past copy_end came from bytes past it.
inline void mark_beyond_copy(WalkResult& walk, uint64_t copy_end) {
  for (size_t i = 1; i < walk.frames.size(); ++i)
    if (walk.frames[i].sp > copy_end) walk.frames[i].flags |= kFrameBeyondCopy;
}

}  // namespace swprof
