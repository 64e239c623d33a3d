#include "tui/search.h"

#include <catch2/catch.hpp>

using swprof::tui::NameMatcher;

TEST_CASE("tui: search: a piece of the name, case ignored unless the pattern has an upper-case letter") {
  CHECK(NameMatcher("parse").matches("Parser::parse"));
  CHECK(NameMatcher("parse").matches("PARSE_ALL"));
  CHECK(NameMatcher("Parse").matches("Parser::parse"));
  CHECK_FALSE(NameMatcher("Parse").matches("PARSE_ALL"));
  CHECK_FALSE(NameMatcher("parse").matches("pars"));
  CHECK(NameMatcher("::").matches("std::vector<int>::push_back"));
  CHECK(NameMatcher("\xc3\xa9t\xc3\xa9").matches("r\xc3\xa9sum\xc3\xa9_\xc3\xa9t\xc3\xa9"));  // UTF-8 bytes as they are
  CHECK_FALSE(NameMatcher("").matches("anything"));
  CHECK(NameMatcher("").empty());
}
