#include "profile/timeline.h"

#include <algorithm>

namespace swprof {

void order_timeline(std::vector<TimelineSample>& samples) {
  auto earlier = [](const TimelineSample& a, const TimelineSample& b) { return a.time < b.time; };
  if (!std::is_sorted(samples.begin(), samples.end(), earlier))
    std::stable_sort(samples.begin(), samples.end(), earlier);
}

}  // namespace swprof
