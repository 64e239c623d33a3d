#pragma once
// Registers and maps for walker tests that need no real binary.

#include "unwind/address_space.h"
#include "unwind/registers.h"

namespace swprof::testing {

inline Registers regs_at(uint64_t pc, uint64_t sp) {
  Registers r;
  r.set(kRip, pc);
  r.set(kRsp, sp);
  return r;
}

// One executable mapping, [0x400000, 0x500000) of "/bin/fake", with no file behind it.
inline ProcessMaps fake_code_maps() {
  ProcessMaps maps;
  Mapping m;
  m.start = 0x400000;
  m.end = 0x500000;
  m.executable = true;
  m.path = "/bin/fake";
  maps.add(m);
  return maps;
}

}  // namespace swprof::testing
