#pragma once
// The time order of a flame graph page: a profile's timeline (every kept
// sample, in time order) as one lane per thread, each a row of blocks. A
// block is a run of the thread's samples on one stack, taken one after the
// other without a pause:
//
//   sample i covers [t_i, t_i + d_i), d_i its weight when the weight is time
//   (ns), else the sampling period (1 s / frequency), else up to the
//   thread's next sample; cut at the next sample t_{i+1}, and reaching it
//   when the gap left is at most d_i / 2 (timer jitter): then the two
//   samples touch. Touching samples on the same stack are one block.
//
// Bounded: a page holds at most `max_blocks` blocks. When a profile has more,
// the page keeps the blocks that start before a time `cut` (the same for
// every thread), the latest time that keeps at most max_blocks of them.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace swprof {

// Blocks a page holds at most (about 16 bytes each in the page).
inline constexpr size_t kMaxTimeBlocks = 200000;

struct TimeBlock {
  uint32_t node = 0;      // the stack's leaf, a page node (see time_order)
  uint64_t start_us = 0;  // µs after the recording started
  uint64_t end_us = 0;    // start_us <= end_us; a touching next block starts here
  uint32_t samples = 0;
};

struct ThreadLane {
  uint32_t tid = 0;
  std::string name;               // "comm [tid]"
  std::vector<TimeBlock> blocks;  // in time order, none overlapping
};

struct TimeOrder {
  std::vector<ThreadLane> lanes;  // in the order of their first block (then by tid); none empty
  uint64_t blocks = 0;            // in lanes
  uint64_t all_blocks = 0;        // before the bound
  uint64_t cut_us = 0;            // when cut: no block starts at or after it
  bool cut() const { return all_blocks > blocks; }
};

// The time order of `profile`'s timeline (empty without one). page_node[n]
// is the page node that stands for tree node n: its own, or that of its
// nearest ancestor on the page; samples on the page's root are left out.
TimeOrder time_order(const Profile& profile, std::span<const uint32_t> page_node, size_t max_blocks = kMaxTimeBlocks);

}  // namespace swprof
