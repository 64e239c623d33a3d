#pragma once
// `swprof report --format pprof`: the profile.proto format of pprof
// (output/proto/profile.proto), gzipped, as `go tool pprof`, Pyroscope,
// Parca and Grafana read it.
//
// From a recording (a profile with AddressDetail::kStacks), a location is
// one sampled instruction address at its binary's own (ELF) addresses, its
// lines the functions there, innermost first, each at its line; a mapping
// is the executable mapping of a binary the samples were in, placed at the
// binary's own addresses (docs/pprof-format.md says why). A profile without
// addresses (read from JSON) is written from the calling-context tree: a
// location stands for one distinct frame of the tree (a function with the
// functions inlined into it), its address 0, its lines the line each frame
// has in the tree; mappings are named by module only, or from the
// recording's mapping records when it has them.

#include <ostream>

#include "profile/profile.h"

namespace swprof {

// Writes `profile` to `out` as a gzipped profile.proto message. Throws Error
// when the message cannot be written.
void write_pprof(const Profile& profile, std::ostream& out);

}  // namespace swprof
