#pragma once
// Call trees for the flame graph tests and benchmark.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profile/call_tree.h"
#include "profile/profile.h"

namespace swprof::testing {

inline const std::string kImgName = "<img src=x onerror=alert(1)>";
inline const std::string kScriptName = "</script><script>alert(2)</script>";

// A small profile with every kind of frame: a recursion (compute -> helper ->
// compute), kernel, inlined, guessed and JIT frames, a thread frame, and two
// functions whose names are markup. 200 samples.
CallTree small_tree();

// Adds a stack given as frames, root first.
void add_stack(CallTree& tree, const std::vector<CctFrame>& stack, uint64_t count);
// Adds one sample of a stack (root first) by `tid` at `time` (monotonic ns)
// to the profile's tree and timeline, as build_profile with a timeline does.
void add_timed_stack(Profile& profile, const std::vector<CctFrame>& stack, uint32_t tid, uint64_t time, uint64_t weight);

// `frames` distinct frames, each in exactly one node, in a random tree
// (fixed seed) a few dozen levels deep with some wide fan-outs, names as long
// as real C++ ones.
CallTree synthetic_tree(uint32_t frames, uint32_t seed = 1);

// A recording's profile of `samples` samples with a timeline, for the time
// order of the flame graph page: `threads` threads (tids 1001...,
// "worker-N"), each sampled every millisecond (cpu-clock, weight 1 ms) with a
// pause of 5-20 ms now and then, staying on one stack for a few samples at a
// time (runs of 1 to 8), its stacks the nodes of a synthetic_tree of
// samples / 10 frames (at least 1,000, at most 30,000). Fixed seed.
Profile synthetic_timed_profile(uint32_t samples, uint32_t threads = 8, uint32_t seed = 1);

// Samples through a node whose function matches, each sample counted once:
// a match below a match adds nothing (what the page's "Matched:" reports).
uint64_t matched_samples(const CallTree& tree, const std::function<bool(const std::string&)>& match);

}  // namespace swprof::testing
