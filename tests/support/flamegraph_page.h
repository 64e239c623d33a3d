#pragma once
// The flame graph page as text, and the profile data embedded in it, for the
// tests of the page and of what feeds it.

#include <string>

#include "output/flamegraph.h"

namespace swprof::testing {

std::string page_of(const CallTree& tree, const FlamegraphOptions& options = {});

// The text of <script type="application/json" id="swprof-data">; the test
// fails when the page has none.
std::string data_text(const std::string& page);

}  // namespace swprof::testing
