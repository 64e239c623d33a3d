#pragma once
// A profile's samples in the order they were taken, kept only when an output
// asks for it (ProfileOptions::timeline, for speedscope's time-ordered view):
// the tree holds the stacks, so a sample is its time, thread, leaf node and
// weight (24 bytes).

#include <cstdint>
#include <vector>

namespace swprof {

struct TimelineSample {
  uint64_t time = 0;    // monotonic ns, as recorded
  uint64_t weight = 0;  // the selected weight (WeightKind), as added to the tree
  uint32_t tid = 0;
  uint32_t node = 0;    // the sample's leaf node in the profile's CallTree
};

// Puts `samples` in time order, keeping the order of samples of equal time.
// The pipeline hands samples over in recording order, which is time order
// only within the unwinder's reorder window (UnwindOptions::reorder_*): a
// CPU's buffer later than the window, or a window overflowing, can leave a
// thread's samples out of order. Sorts only when they are.
void order_timeline(std::vector<TimelineSample>& samples);

}  // namespace swprof
