#pragma once
// `swprof report --format json` and `swprof merge`: docs/json-format.md
// describes this format (output/json_profile_reader.h reads it back).

#include <ostream>

#include "profile/profile.h"

namespace swprof {

// The document's "format" and "version" fields.
inline constexpr const char* kJsonProfileFormat = "swprof-profile";
inline constexpr int kJsonProfileVersion = 1;

void write_json_profile(const Profile& profile, std::ostream& out);

}  // namespace swprof
