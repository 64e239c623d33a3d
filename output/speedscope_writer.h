#pragma once
// `swprof report --format speedscope`: https://www.speedscope.app/file-format-schema.json

#include <ostream>

#include "profile/profile.h"

namespace swprof {

// The speedscope file format: one sampled profile per thread root (one for
// all without thread roots). With a timeline (ProfileOptions::timeline: a
// profile built from a recording), each profile's samples are its stacks in
// time order, consecutive samples of one stack as one, weighing their time
// (ns of the profile's weight, or 1 per sample when the event is no time);
// startValue is the first sample's time after the recording started and
// endValue startValue plus the weights. Without one (a JSON profile), each
// distinct stack once, weighing its total.
void write_speedscope(const Profile& profile, std::ostream& out);

}  // namespace swprof
