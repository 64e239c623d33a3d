// Fuzz target: the JSON profile reader (output/json_profile_reader.cpp), which
// `swprof diff`, `merge` and `flamegraph` use on files the user names. A
// profile it accepts must survive being written and read again unchanged in
// its totals.

#include <sstream>
#include <string>

#include "common/error.h"
#include "fuzz/fuzz_target.h"
#include "output/json_profile_reader.h"
#include "output/json_profile_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  swprof::Profile profile;
  try {
    profile = swprof::read_json_profile(in, "fuzz.json");
  } catch (const swprof::Error&) {
    return 0;  // rejected with a message, as it should be
  }
  std::ostringstream out;
  swprof::write_json_profile(profile, out);
  std::istringstream written(out.str());
  const swprof::Profile again = swprof::read_json_profile(written, "written.json");
  SWPROF_FUZZ_CHECK(again.tree.total() == profile.tree.total());
  SWPROF_FUZZ_CHECK(again.tree.nodes().size() == profile.tree.nodes().size());
  return 0;
}
