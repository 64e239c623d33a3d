#include "compare/diff_format.h"

#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compare/diff_json.h"
#include "compare/diff_markdown.h"
#include "compare/diff_text.h"
#include "support/diff_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("diff format names") {
  CHECK(parse_diff_format("text") == DiffFormat::kText);
  CHECK(parse_diff_format("markdown") == DiffFormat::kMarkdown);
  CHECK(parse_diff_format("md") == DiffFormat::kMarkdown);
  CHECK(parse_diff_format("json") == DiffFormat::kJson);
  CHECK_THROWS_WITH(parse_diff_format("html"), Catch::Contains("unknown format 'html' (use text, markdown or json)"));
}

TEST_CASE("diff format names: the listed names parse, one per format") {
  const std::vector<std::string> names = diff_format_names();
  CHECK(names == std::vector<std::string>{"text", "markdown", "json"});
  std::set<DiffFormat> formats;
  for (const auto& n : names) formats.insert(parse_diff_format(n));
  CHECK(formats.size() == names.size());
}

TEST_CASE("diff report: each format is its writer's output") {
  const ProfileDiff d = diff_profiles(bench(300, "base.json"), bench(600, "new.json"), {});
  DiffReportOptions o;
  o.top = 1;
  std::ostringstream text, markdown, json, report_text, report_markdown, report_json;
  write_diff_text(d, o, text);
  write_diff_markdown(d, o, markdown);
  write_diff_json(d, json);
  write_diff_report(d, DiffFormat::kText, o, report_text);
  write_diff_report(d, DiffFormat::kMarkdown, o, report_markdown);
  write_diff_report(d, DiffFormat::kJson, o, report_json);
  CHECK(report_text.str() == text.str());
  CHECK(report_markdown.str() == markdown.str());
  CHECK(report_json.str() == json.str());
  CHECK(text.str() != markdown.str());
}
