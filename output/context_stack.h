#pragma once
// Decoding a calling-context id back to its stack with a profile
// (`swprof report --context-id ID`). An id is computed from the names along
// its path (profile/call_tree.h), so only a profile that has the context can
// name its frames.

#include <cstdint>
#include <ostream>
#include <string>

#include "profile/profile.h"

namespace swprof {

// 1 to 16 hex digits, with or without a leading 0x; throws Error otherwise.
uint64_t parse_context_id(const std::string& text);

// The context's samples and its stack root first, one frame a line with the
// frame's own context id. Throws Error when `profile` has no such context.
void write_context_stack(const Profile& profile, uint64_t id, std::ostream& out);

}  // namespace swprof
