#include "compare/diff_folded.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "support/diff_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("diff folded: both counts per distinct stack of either side, sorted") {
  const Profile base = profile_of({{{fn("main"), fn("a")}, 3}, {{fn("main"), fn("gone")}, 2}});
  const Profile next = profile_of({{{fn("main"), fn("a")}, 5},
                                   {{fn("main"), fn("a"), fn("new_leaf")}, 1},
                                   {{fn("main"), fn("k", "[kernel]", kCctKernel)}, 4}});
  std::ostringstream out;
  write_diff_folded(base.tree, next.tree, out);
  CHECK(out.str() ==
        "main;a 3 5\n"
        "main;a;new_leaf 0 1\n"
        "main;gone 2 0\n"
        "main;k_[k] 0 4\n");
}
