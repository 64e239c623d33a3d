#include "compare/diff_markdown.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "support/diff_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string markdown_of(const ProfileDiff& d) {
  std::ostringstream out;
  write_diff_markdown(d, {}, out);
  return out.str();
}

}  // namespace

TEST_CASE("diff markdown: a summary line, tables with the gate column, contexts folded away") {
  const std::string md = markdown_of(diff_profiles(bench(300, "base.json"), bench(600, "new.json"), {}));
  CHECK(md.rfind("**swprof diff: performance regression.** 2 functions fail the gate: `hot`, `compute`. "
                 "1 function improved. Base `base.json`: 1000 samples; new `new.json`: 1300 samples.\n",
                 0) == 0);
  CHECK_THAT(md, Catch::Contains("\n#### Regressions\n\n| Gate | Function | Module | Metric |"));
  CHECK_THAT(md, Catch::Contains("\n|  | `hot` | `app` | self | 30.00 | 46.15 | +16.15 | 1.54 | +"));
  CHECK_THAT(md, Catch::Contains("\n| fails | `hot` | `app` | total | 30.00 | 46.15 | +16.15 | 1.54 | +"));
  CHECK_THAT(md, Catch::Contains("\n#### Improvements\n\n| Function | Module | Metric |"));
  CHECK_THAT(md, Catch::Contains("<details><summary>Calling contexts whose total share changed ("));
  CHECK_THAT(md, Catch::EndsWith(". Improvements never fail.</sub>\n"));
}

TEST_CASE("diff markdown: the same profile twice") {
  const std::string md = markdown_of(diff_profiles(bench(300), bench(300), {}));
  CHECK(md.rfind("**swprof diff: no significant regression.** 0 functions improved.", 0) == 0);
  CHECK_THAT(md, Catch::Contains("#### Regressions\n\nNone.\n\n#### Improvements\n\nNone.\n"));
  CHECK_THAT(md, !Catch::Contains("<details>"));
}
