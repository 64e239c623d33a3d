#pragma once
// `swprof report --format text`.

#include <cstddef>
#include <ostream>

#include "profile/profile.h"

namespace swprof {

struct TextReportOptions {
  double min_percent = 0.5;  // tree nodes below this share of samples are not shown
  size_t top = 25;           // rows of the top-functions table
};
// A header (command, duration, samples, lost, unwind quality), a table of the
// functions with the most self samples, and the calling-context tree.
void write_text_report(const Profile& profile, const TextReportOptions& options, std::ostream& out);

}  // namespace swprof
