#include "unwind/wanderer_stepper.h"

namespace swprof {

namespace {

// The 7 bytes before `ret` in `m` (b[6] just before it), when code.
bool bytes_before(const Mapping& m, uint64_t ret, std::array<uint8_t, 7>& b) {
  if (!m.binary || !m.executable) return false;
  const uint64_t vaddr = m.to_vaddr(ret);
  return vaddr >= b.size() && m.binary->read_code(vaddr - b.size(), b.data(), b.size());
}

}  // namespace

// b[6] is the byte just before the return address; an instruction of n bytes
// begins at b[7 - n].
bool WandererStepper::ends_with_indirect_call(const std::array<uint8_t, 7>& b) {
  const auto reg_direct = [](uint8_t modrm) { return (modrm & 0xf8) == 0xd0; };  // mod 11, reg 010 (/2)
  const auto no_disp = [](uint8_t modrm) {  // mod 00, /2, neither SIB (rm 100) nor rip (rm 101)
    return (modrm & 0xf8) == 0x10 && (modrm & 7) != 4 && (modrm & 7) != 5;
  };
  if (b[5] == 0xff && (reg_direct(b[6]) || no_disp(b[6]))) return true;                   // call *%reg, *(%reg)
  if ((b[4] & 0xf0) == 0x40 && b[5] == 0xff && (reg_direct(b[6]) || no_disp(b[6]))) return true;  // with REX
  // ModRM mod|reg|rm = 01|010|rm (disp8) or 10|010|rm (disp32); rm 100 means a SIB byte follows.
  if (b[4] == 0xff && (b[5] & 0xf8) == 0x50 && (b[5] & 7) != 4) return true;  // call *disp8(%reg)
  if (b[1] == 0xff && (b[2] & 0xf8) == 0x90 && (b[2] & 7) != 4) return true;  // call *disp32(%reg)
  if (b[1] == 0xff && b[2] == 0x15) return true;                  // call *rel32(%rip)
  if (b[3] == 0xff && b[4] == 0x54) return true;                  // call *disp8(%reg,%idx,s)
  if (b[0] == 0xff && b[1] == 0x94) return true;                  // call *disp32(%reg,%idx,s)
  return false;
}

bool WandererStepper::follows_call(const Mapping& m, uint64_t ret) {
  std::array<uint8_t, 7> b;
  if (!bytes_before(m, ret, b)) return false;
  return b[2] == 0xe8 || ends_with_indirect_call(b);  // call rel32, or through a register or memory
}

bool WandererStepper::follows_indirect_call(const Mapping& m, uint64_t ret) {
  std::array<uint8_t, 7> b;
  return bytes_before(m, ret, b) && ends_with_indirect_call(b);
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
