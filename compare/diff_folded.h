#pragma once
// `swprof diff --folded`: FlameGraph's two-column folded format, as
// difffolded.pl writes it.

#include <ostream>

#include "profile/call_tree.h"

namespace swprof {

// "stack base_count new_count", one line per distinct stack of either side
// (matched by context id), sorted; counts are raw samples, as difffolded.pl
// writes them without -n.
void write_diff_folded(const CallTree& base, const CallTree& current, std::ostream& out);

}  // namespace swprof
