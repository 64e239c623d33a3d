#include "output/report_format.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace swprof;

TEST_CASE("format names") {
  CHECK(parse_report_format("folded") == ReportFormat::kFolded);
  CHECK(parse_report_format("pprof") == ReportFormat::kPprof);
  CHECK_THROWS_WITH(parse_report_format("svg"), Catch::Contains("unknown format 'svg'"));
  CHECK_THROWS_WITH(parse_report_format("svg"), Catch::Contains("speedscope or pprof"));
}

TEST_CASE("format names: the list shell completion offers is what the parser takes") {
  const std::vector<std::string> names = report_format_names();
  CHECK(names == std::vector<std::string>{"text", "folded", "json", "speedscope", "pprof"});
  std::set<ReportFormat> formats;
  for (const auto& n : names) formats.insert(parse_report_format(n));
  CHECK(formats.size() == names.size());
}

TEST_CASE("context ids: 16 hex digits, read back as written") {
  CHECK(format_context_id(0) == "0000000000000000");
  CHECK(format_context_id(255) == "00000000000000ff");
  CHECK(format_context_id(UINT64_MAX) == "ffffffffffffffff");
  for (uint64_t id : {uint64_t{0}, uint64_t{1}, uint64_t{0x0123456789abcdef}, UINT64_MAX})
    CHECK(parse_context_id(format_context_id(id)) == id);
}
