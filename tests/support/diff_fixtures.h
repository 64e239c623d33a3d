#pragma once
// Profiles with known counts for the diff tests.

#include <string>
#include <vector>

#include "support/profile_fixture.h"

namespace swprof::testing {

inline Profile profile_of(const std::vector<StackSpec>& stacks, const std::string& source = "p.json",
                          const std::string& command = "./bench") {
  Profile p;
  p.source = source;
  p.header.command = {command};
  p.header.event = "cpu-clock";
  for (const auto& s : stacks) add_stack(p.tree, s.frames, s.count);
  p.tree.sort_children();
  p.samples_read = p.samples_kept = p.tree.total();
  return p;
}

// main -> parse (400), main -> compute -> hot (300 * hot_factor), main ->
// compute -> steady (100), main -> write (200): the diff_target benchmark.
inline Profile bench(uint64_t hot, const std::string& source = "p.json") {
  return profile_of({{{fn("main"), fn("parse")}, 400},
                     {{fn("main"), fn("compute"), fn("hot")}, hot},
                     {{fn("main"), fn("compute"), fn("steady")}, 100},
                     {{fn("main"), fn("write")}, 200}},
                    source);
}

}  // namespace swprof::testing
