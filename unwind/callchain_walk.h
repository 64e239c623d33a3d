#pragma once
// A walk made of a call chain the kernel recorded (perf.data from `perf
// record -g`: the kernel followed the frame pointers at sample time), for
// samples that have no stack copy to unwind. The first address is the
// sampled pc, the rest are return addresses; the walk is complete where a
// frame is the program's or a thread's entry, as the BottomStepper decides
// for unwound walks.

#include <cstddef>

#include "common/byte_reader.h"
#include "unwind/bottom_stepper.h"
#include "unwind/frame.h"

namespace swprof {

class CallchainWalk {
 public:
  explicit CallchainWalk(size_t max_depth) : max_depth_(max_depth) {}

  // `chain`: u64 little-endian addresses, leaf first. Frames after the first
  // one outside every mapping, or after the entry, are left out.
  void walk(Bytes chain, const ProcessMaps& maps, WalkResult& out);

 private:
  BottomStepper bottom_;
  size_t max_depth_;
};

}  // namespace swprof
