#include "unwind/wanderer_stepper.h"

namespace swprof {

bool WandererStepper::follows_call(const Mapping& m, uint64_t ret) {
  if (!m.binary || !m.executable) return false;
  uint8_t b[7];
  const uint64_t vaddr = m.to_vaddr(ret);
  if (vaddr < sizeof b || !m.binary->read_code(vaddr - sizeof b, b, sizeof b)) return false;
  // b[6] is the byte just before the return address.
  if (b[2] == 0xe8) return true;                                  // call rel32
  if (b[4] == 0xff && (b[5] & 0x38) == 0x10 && (b[5] >> 6) == 3) return true;  // call *%reg
  if (b[3] == 0xff && (b[4] & 0x38) == 0x10 && (b[4] >> 6) == 3 && (b[2] & 0xf0) == 0x40) return true;  // REX call *%r8-15
  // ModRM mod|reg|rm = 01|010|rm (disp8) or 10|010|rm (disp32); rm 100 means a SIB byte follows.
  if (b[4] == 0xff && (b[5] & 0xf8) == 0x50 && (b[5] & 7) != 4) return true;  // call *disp8(%reg)
  if (b[1] == 0xff && (b[2] & 0xf8) == 0x90 && (b[2] & 7) != 4) return true;  // call *disp32(%reg)
  if (b[1] == 0xff && b[2] == 0x15) return true;                  // call *rel32(%rip)
  if (b[3] == 0xff && b[4] == 0x54) return true;                  // call *disp8(%reg,%idx,s)
  if (b[0] == 0xff && b[1] == 0x94) return true;                  // call *disp32(%reg,%idx,s)
  return false;
}

StepAnswer WandererStepper::step(const StepInput& in, Registers& caller) {
  // Start above the current frame's own return slot for return-address frames
  // is not known here; scan from sp.
  const uint64_t sp = in.regs.sp();
  for (size_t i = 0; i < max_words_; ++i) {
    const uint64_t at = sp + 8 * i;
    auto word = in.stack.read_u64(at);
    if (!word) return StepAnswer::failed(WalkEnd::kStackExhausted);
    const Mapping* m = in.maps.find(*word - 1);
    if (!m || !follows_call(*m, *word)) continue;
    caller = Registers();
    caller.set(kRip, *word);
    caller.set(kRsp, at + 8);
    return StepAnswer::caller(kFrameGuess);
  }
  return StepAnswer::failed(WalkEnd::kNoUnwindInfo);
}

}  // namespace swprof
