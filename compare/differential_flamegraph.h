#pragma once
// `swprof diff --html`: the differential flame graph of two profiles.

#include <ostream>

#include "compare/diff.h"

namespace swprof {

// NEW's tree with BASE's total for every context, as the flame graph page
// colours it (compare/differential_tree.h); the title and subtitle name both
// sides from `diff`.
void write_differential_flamegraph(const ProfileDiff& diff, const Profile& base, const Profile& current,
                                   std::ostream& out);

}  // namespace swprof
