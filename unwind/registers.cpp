#include "unwind/registers.h"

#include "recording/records.h"

namespace swprof {

Registers Registers::from_sample(const SampleView& s) { return from_perf(s.regs.data(), s.nregs, s.ip_sp_only); }

Registers Registers::from_perf(const uint64_t* regs, uint32_t nregs, bool ip_sp_only) {
  // perf order for kX86_64RegsMask: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15
  static constexpr int kPerfToDwarf[] = {kRax, kRbx, kRcx, kRdx, kRsi, kRdi, kRbp, kRsp, kRip,
                                         -1,   -1,   -1,   kR8,  kR9,  kR10, kR11, kR12, kR13,
                                         kR14, kR15};
  Registers r;
  if (nregs != sizeof kPerfToDwarf / sizeof kPerfToDwarf[0]) return r;
  for (uint32_t i = 0; i < nregs; ++i)
    if (kPerfToDwarf[i] >= 0) r.set(kPerfToDwarf[i], regs[i]);
  if (ip_sp_only) r.keep_only((1u << kRip) | (1u << kRsp));
  return r;
}

}  // namespace swprof
