#include "unwind/frame.h"

namespace swprof {

const char* stepper_name(StepperKind kind) {
  switch (kind) {
    case StepperKind::kSample: return "sample";
    case StepperKind::kBottom: return "bottom";
    case StepperKind::kSignal: return "signal";
    case StepperKind::kCfi: return "cfi";
    case StepperKind::kFramePointer: return "fp";
    case StepperKind::kAnalysis: return "analysis";
    case StepperKind::kWanderer: return "scan";
    case StepperKind::kLibunwind: return "libunwind";
    case StepperKind::kGo: return "go";
  }
  return "?";
}

const char* walk_end_name(WalkEnd end) {
  switch (end) {
    case WalkEnd::kBottom: return "complete";
    case WalkEnd::kStackExhausted: return "stack copy exhausted";
    case WalkEnd::kNoUnwindInfo: return "no unwind info";
    case WalkEnd::kUnmappedPc: return "pc not in any mapping";
    case WalkEnd::kBadFramePointer: return "bad frame pointer";
    case WalkEnd::kNoProgress: return "no progress";
    case WalkEnd::kMaxDepth: return "maximum depth";
    case WalkEnd::kNoRegisters: return "no user registers";
    case WalkEnd::kStackSwitch: return "switched stacks (Go system stack or cgo)";
    case WalkEnd::kNoStackCopied: return "no stack copied";
    case WalkEnd::kNoMappingsYet: return "in execve (no mappings yet)";
  }
  return "?";
}

}  // namespace swprof
