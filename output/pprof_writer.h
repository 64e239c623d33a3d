#pragma once
// `swprof report --format pprof`: the profile.proto format of pprof
// (output/proto/profile.proto), gzipped, as `go tool pprof`, Pyroscope,
// Parca and Grafana read it.
//
// The profile is written from the calling-context tree, which keeps names and
// not addresses: a location stands for one distinct frame of the tree (a
// function with the functions inlined into it, innermost first), not for one
// instruction address, and its address is 0. Its lines carry the line each
// frame has in the tree (the function's declaration when known). Mappings
// come from the recording's mapping records (path, build-id, address range
// of the first executable mapping of each file); a profile read from JSON
// names its mappings by module only.

#include <ostream>

#include "profile/profile.h"

namespace swprof {

// Writes `profile` to `out` as a gzipped profile.proto message. Throws Error
// when the message cannot be written.
void write_pprof(const Profile& profile, std::ostream& out);

}  // namespace swprof
