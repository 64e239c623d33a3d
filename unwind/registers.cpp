#include "unwind/registers.h"

#include <algorithm>

#include "recording/records.h"

namespace swprof {

Registers Registers::from_sample(const SampleView& s) {
  return from_perf(std::span(s.regs).first(std::min<size_t>(s.nregs, s.regs.size())), s.ip_sp_only);
}

Registers Registers::from_perf(std::span<const uint64_t> regs, bool ip_sp_only) {
  // perf order for kX86_64RegsMask: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15
  static constexpr int kPerfToDwarf[] = {kRax, kRbx, kRcx, kRdx, kRsi, kRdi, kRbp, kRsp, kRip,
                                         -1,   -1,   -1,   kR8,  kR9,  kR10, kR11, kR12, kR13,
                                         kR14, kR15};
  Registers r;
  if (regs.size() != sizeof kPerfToDwarf / sizeof kPerfToDwarf[0]) return r;
  for (size_t i = 0; i < regs.size(); ++i)
    if (kPerfToDwarf[i] >= 0) r.set(kPerfToDwarf[i], regs[i]);
  if (ip_sp_only) r.keep_only((1u << kRip) | (1u << kRsp));
  return r;
}

}  // namespace swprof
