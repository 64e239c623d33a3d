#include "compare/differential_flamegraph.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/diff_fixtures.h"
#include "support/flamegraph_page.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("differential flame graph: NEW's widths, BASE's totals, both sides named") {
  const Profile base = bench(300, "base.json");
  const Profile current = bench(600, "new.json");
  const ProfileDiff d = diff_profiles(base, current, {});
  std::ostringstream out;
  write_differential_flamegraph(d, base, current, out);
  const std::string page = out.str();
  CHECK_THAT(page, Catch::Contains("swprof diff: base.json -&gt; new.json"));
  CHECK_THAT(page, Catch::Contains("widths: new (1300 samples); red: a larger share than in base (1000 samples), "
                                   "blue: a smaller one"));
  const auto data = nlohmann::json::parse(data_text(page));
  CHECK(data["baseTotal"] == 1000);
  CHECK(data["nodes"]["total"][0] == 1300);
  CHECK(data["nodes"]["base"][0] == 1000);
}
