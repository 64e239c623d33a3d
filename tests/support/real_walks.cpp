#include "support/real_walks.h"

#include <catch2/catch.hpp>
#include <memory>

#include "recording/record_source.h"
#include "unwind/recording_unwinder.h"

namespace swprof::testing {

std::string RealWalks::summary() const {
  std::string s = "samples " + std::to_string(samples) + ", complete " + std::to_string(complete) + ", frames " +
                  std::to_string(frames) + ", guessed " + std::to_string(guessed) + ", with frames past the copy " +
                  std::to_string(beyond) + ", ends:";
  for (const auto& [why, n] : ends) s += " " + why + "=" + std::to_string(n);
  return s;
}

RealWalks real_walks(const std::string& recording) {
  RealWalks w;
  const std::unique_ptr<RecordSource> reader = open_record_source(recording);
  RecordingUnwinder unwinder(UnwindOptions{});
  unwinder.run(*reader, [&](const UnwoundSample& s) {
    ++w.samples;
    w.complete += s.walk.complete();
    w.at_copy_end += s.walk.end == WalkEnd::kStackExhausted;
    ++w.ends[walk_end_name(s.walk.end)];
    w.frames += s.walk.frames.size();
    bool beyond = false;
    for (const Frame& f : s.walk.frames) {
      w.guessed += (f.flags & kFrameGuess) != 0;
      beyond = beyond || (f.flags & kFrameBeyondCopy);
    }
    w.beyond += beyond;
  });
  return w;
}

void require_real_targets(const RealWalks& w, uint64_t at_copy_end_percent) {
  INFO(w.summary());
  REQUIRE(w.samples >= 200);
  CHECK(w.guessed * 1000 <= w.frames * 5);
  CHECK(w.at_copy_end * 100 <= w.samples * at_copy_end_percent);
  CHECK(w.complete * 100 >= (w.samples - w.at_copy_end) * 99);
}

}  // namespace swprof::testing
