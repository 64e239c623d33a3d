#include "profile/sample_filter.h"

#include <algorithm>

namespace swprof {

SampleFilter::SampleFilter(const ProfileFilter& filter, uint64_t start_ns) : filter_(filter), start_ns_(start_ns) {}

bool SampleFilter::in_window(uint64_t time_ns) const {
  const double t = time_ns >= start_ns_ ? static_cast<double>(time_ns - start_ns_) / 1e9 : 0.0;
  if (filter_.from_seconds >= 0 && t < filter_.from_seconds) return false;
  if (filter_.to_seconds >= 0 && t >= filter_.to_seconds) return false;
  return true;
}

bool SampleFilter::keeps_thread(uint32_t tid) const {
  return filter_.tids.empty() || std::find(filter_.tids.begin(), filter_.tids.end(), tid) != filter_.tids.end();
}

bool SampleFilter::keeps_name(const std::string& comm) const {
  return filter_.comms.empty() || std::find(filter_.comms.begin(), filter_.comms.end(), comm) != filter_.comms.end();
}

}  // namespace swprof
