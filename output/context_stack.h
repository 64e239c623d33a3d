#pragma once
// Decoding a calling-context id back to its stack with a profile
// (`swprof report --context-id ID`). An id is computed from the names along
// its path (profile/call_tree.h), so only a profile that has the context can
// name its frames.

#include <cstdint>
#include <ostream>
#include <string>

#include "output/report_format.h"  // parse_context_id, format_context_id
#include "profile/profile.h"

namespace swprof {

// The context's samples and its stack root first, one frame a line with the
// frame's own context id. Throws Error when `profile` has no such context.
void write_context_stack(const Profile& profile, uint64_t id, std::ostream& out);

}  // namespace swprof
