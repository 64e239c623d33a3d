#pragma once
// What matches a frame or a calling context of one profile to the other's.
// Normally the module and the function name, as in the context id
// (profile/call_tree.h). With `ignore_modules` (diff --ignore-modules) the
// module of user-space code is left out, so a program built or installed
// under another name or path ("./app" and "./app-new") still matches; the
// pseudo-modules in brackets ("[kernel]", "[vdso]", "[jit]") stay. The ids
// stored in a profile never change: these are computed at diff time.

#include <cstdint>
#include <string>
#include <vector>

#include "profile/call_tree.h"

namespace swprof {

// The module a frame is matched by: `frame.module`, or "" for a user-space
// module when `ignore_modules`.
const std::string& matching_module(const CctFrame& frame, bool ignore_modules);

// Per node of `tree`, the id its context is matched by: its context id, or
// with `ignore_modules` the same recurrence over matching_module.
std::vector<uint64_t> matching_context_ids(const CallTree& tree, bool ignore_modules);

}  // namespace swprof
