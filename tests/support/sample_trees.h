#pragma once
// Call trees for the flame graph tests and benchmark.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profile/call_tree.h"

namespace swprof::testing {

inline const std::string kImgName = "<img src=x onerror=alert(1)>";
inline const std::string kScriptName = "</script><script>alert(2)</script>";

// A small profile with every kind of frame: a recursion (compute -> helper ->
// compute), kernel, inlined, guessed and JIT frames, a thread frame, and two
// functions whose names are markup. 200 samples.
CallTree small_tree();

// Adds a stack given as frames, root first.
void add_stack(CallTree& tree, const std::vector<CctFrame>& stack, uint64_t count);

// `frames` distinct frames, each in exactly one node, in a random tree
// (fixed seed) a few dozen levels deep with some wide fan-outs, names as long
// as real C++ ones.
CallTree synthetic_tree(uint32_t frames, uint32_t seed = 1);

// Samples through a node whose function matches, each sample counted once:
// a match below a match adds nothing (what the page's "Matched:" reports).
uint64_t matched_samples(const CallTree& tree, const std::function<bool(const std::string&)>& match);

}  // namespace swprof::testing
