#pragma once
// What the walks of a real program's recording show (x264, ffmpeg, clang++:
// programs without a known stack), against the targets for them: at most
// 0.5 % of frames guessed, and every walk complete but those that end where
// the copied stack ends. Those depend on how soon the recorder read past cut
// copies (the machine's load: the thread may have moved on by then), so
// they are counted apart and bounded loosely.

#include <cstdint>
#include <map>
#include <string>

namespace swprof::testing {

struct RealWalks {
  uint64_t samples = 0, complete = 0, frames = 0, guessed = 0;
  uint64_t at_copy_end = 0;  // walks that ended "stack copy exhausted"
  uint64_t beyond = 0;       // walks with frames past the kernel's copy
  std::map<std::string, uint64_t> ends;

  std::string summary() const;
};

RealWalks real_walks(const std::string& recording);

// >= 200 samples, <= 0.5 % of frames guessed, at most `at_copy_end_percent`
// % of walks ending at the copy's end, >= 99 % of the others complete.
void require_real_targets(const RealWalks& w, uint64_t at_copy_end_percent);

}  // namespace swprof::testing
