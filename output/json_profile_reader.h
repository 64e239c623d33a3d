#pragma once
// Reading back a profile written by write_json_profile (docs/json-format.md),
// for reports, diffs and merges of JSON profiles.

#include <istream>
#include <string>

#include "profile/profile.h"

namespace swprof {

// Throws Error (one line) for anything else, another version, or damage.
Profile read_json_profile(const std::string& path);
// The same from a stream; `path` names the source in messages and is the
// profile's source when its metadata gives none.
Profile read_json_profile(std::istream& in, const std::string& path);

}  // namespace swprof
