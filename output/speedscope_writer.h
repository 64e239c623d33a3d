#pragma once
// `swprof report --format speedscope`: https://www.speedscope.app/file-format-schema.json

#include <ostream>

#include "profile/profile.h"

namespace swprof {

// The speedscope file format: one sampled profile per thread.
void write_speedscope(const Profile& profile, std::ostream& out);

}  // namespace swprof
