#include "unwind/callchain_walk.h"

#include <cstring>

#include "unwind/memory.h"

namespace swprof {

void CallchainWalk::walk(Bytes chain, const ProcessMaps& maps, WalkResult& out) {
  out.frames.clear();
  const size_t n = chain.size() / 8;
  const SampleStackMemory no_stack(0, Bytes());
  Registers regs;
  Registers unused;
  for (size_t i = 0; i < n; ++i) {
    if (i == max_depth_) {
      out.end = WalkEnd::kMaxDepth;
      return;
    }
    uint64_t pc;
    std::memcpy(&pc, chain.data() + i * 8, 8);
    const FrameAddress at = i == 0 ? FrameAddress::exact_pc(pc) : FrameAddress::return_address(pc);
    const Mapping* mapping = maps.find(at.lookup_pc());
    if (!mapping) {
      out.end = WalkEnd::kUnmappedPc;
      return;
    }
    out.frames.push_back(Frame{pc, 0, i == 0 ? StepperKind::kSample : StepperKind::kFramePointer,
                               static_cast<uint8_t>(i == 0 ? kFrameExactPc : 0)});
    regs.set(kRip, pc);
    const StepInput in{regs, no_stack, mapping, maps, at, static_cast<int>(i)};
    if (bottom_.step(in, unused).kind == StepKind::kBottom) {
      out.end = WalkEnd::kBottom;
      return;
    }
  }
  // The kernel's frame-pointer walk stopped short of the entry.
  out.end = n ? WalkEnd::kBadFramePointer : WalkEnd::kNoRegisters;
}

}  // namespace swprof
