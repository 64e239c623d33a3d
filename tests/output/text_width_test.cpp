#include "output/text_width.h"

#include <catch2/catch.hpp>
#include <string>

using namespace swprof;

TEST_CASE("text width: columns, not bytes: wide characters 2, combining marks 0") {
  CHECK(display_width("main") == 4);
  CHECK(display_width("\u2026") == 1);
  CHECK(display_width("\u6f22\u5b57") == 4);  // 漢字
  CHECK(display_width("e\u0301") == 1);       // e + combining acute
  CHECK(display_width("\\xff") == 4);         // terminal_safe's escape of a bad byte
  CHECK(display_width("\xff") == 1);          // a bad byte itself, should one get here
}

TEST_CASE("text width: fit_end cuts at a character with an ellipsis") {
  CHECK(fit_end("abcdef", 6) == "abcdef");
  CHECK(fit_end("abcdef", 4) == "abc\u2026");
  CHECK(fit_end("\u6f22\u5b57\u6f22", 4) == "\u6f22\u2026");  // never half a wide character
  CHECK(fit_end("abc", 0).empty());
}

TEST_CASE("text width: shortened names collapse template arguments first, then arguments, then the middle") {
  const std::string find = "std::map<int, std::string, std::less<int>>::find(int const&)";
  CHECK(shorten_name(find, 200) == find);
  CHECK(shorten_name(find, 30) == "std::map<\u2026>::find(int const&)");
  CHECK(shorten_name(find, 20) == "std::map<\u2026>::find(\u2026)");
  // operator<< and -> hold no template brackets.
  CHECK(shorten_name("std::operator<< <std::char_traits<char> >(std::ostream&, char const*)", 50) ==
        "std::operator<< <\u2026>(std::ostream&, char const*)");
  // "(anonymous namespace)" is a scope, not an argument list.
  const std::string parse = shorten_name("(anonymous namespace)::Parser::parse_expression_with_precedence(int)", 50);
  CHECK(parse == "(anonymous names\u2026rse_expression_with_precedence(\u2026)");
  // The middle goes last, and the end, with the function's own name, keeps
  // two thirds of the room.
  const std::string deep = "company::product::subsystem::component::detail::implementation::compute_checksum(int)";
  const std::string cut = shorten_name(deep, 40);
  CHECK(display_width(cut) == 40);
  CHECK(cut.rfind("compute_checksum(\u2026)") == cut.size() - std::string("compute_checksum(\u2026)").size());
  CHECK(cut.find("company") == 0);
}

TEST_CASE("text width: a shortened name never exceeds its columns, whatever the name") {
  const std::string names[] = {
      "std::vector<std::pair<int, std::string>>::_M_realloc_insert<std::pair<int, std::string>>(iterator, "
      "std::pair<int, std::string>&&)",
      "unbalanced<<<(((name",
      "\u6f22\u5b57\u6f22\u5b57::\u540d\u524d<\u6f22\u5b57>::\u95a2\u6570(\u5f15\u6570)",
      "a->b<c>::operator->()",
      "x",
  };
  for (const std::string& name : names)
    for (size_t columns = 0; columns < display_width(name) + 2; ++columns) {
      INFO(name << " in " << columns);
      const std::string s = shorten_name(name, columns);
      CHECK(display_width(s) <= columns);
      if (columns > 0) CHECK_FALSE(s.empty());
    }
}
