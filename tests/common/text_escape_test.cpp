#include "common/text_escape.h"

#include <catch2/catch.hpp>

using namespace swprof;

TEST_CASE("terminal_safe: ordinary names and valid UTF-8 pass unchanged", "[text_escape]") {
  for (const char* s : {"", "main", "std::vector<int>::push_back(int const&)", "a\\b", "größe", "関数",
                        "\xf0\x9f\x94\xa5 fire", "\xc2\xa0nbsp"}) {
    CHECK(terminal_safe(s) == s);
    CHECK(is_terminal_safe(s));
  }
}

TEST_CASE("terminal_safe: control characters become visible escapes", "[text_escape]") {
  CHECK(terminal_safe("a\x1b[2Jb") == "a\\x1b[2Jb");
  CHECK(terminal_safe("\x1b]0;title\x07") == "\\x1b]0;title\\x07");
  CHECK(terminal_safe("line\nbreak\r\ttab") == "line\\x0abreak\\x0d\\x09tab");
  CHECK(terminal_safe(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(terminal_safe("del\x7f") == "del\\x7f");
  CHECK_FALSE(is_terminal_safe("a\x1b"));
}

TEST_CASE("terminal_safe: C1 controls and invalid UTF-8 are escaped byte by byte", "[text_escape]") {
  CHECK(terminal_safe("csi\xc2\x9b" "2J") == "csi\\xc2\\x9b2J");  // U+009B, the one-byte CSI
  CHECK(terminal_safe("\xc2\x80\xc2\x9f\xc2\xa0") == "\\xc2\\x80\\xc2\\x9f\xc2\xa0");
  CHECK(terminal_safe("raw\x9b" "2J") == "raw\\x9b2J");          // a lone C1 byte
  CHECK(terminal_safe("\xff\xfe") == "\\xff\\xfe");
  CHECK(terminal_safe("cut\xe6\x97") == "cut\\xe6\\x97");         // a sequence cut short
  CHECK(terminal_safe("\xc0\xaf") == "\\xc0\\xaf");               // overlong '/'
  CHECK(terminal_safe("\xed\xa0\x80") == "\\xed\\xa0\\x80");      // a surrogate
}

TEST_CASE("markdown_code: a code span that renders the text literally", "[text_escape]") {
  CHECK(markdown_code("hot_loop") == "`hot_loop`");
  CHECK(markdown_code("![x](http://example.invalid/x.png)") == "`![x](http://example.invalid/x.png)`");
  CHECK(markdown_code("<img src=x>") == "`<img src=x>`");
  CHECK(markdown_code("a`b") == "``a`b``");
  CHECK(markdown_code("a``b`c") == "```a``b`c```");
  CHECK(markdown_code("`start") == "`` `start ``");
  CHECK(markdown_code("end`") == "`` end` ``");
  CHECK(markdown_code(" both ") == "`  both  `");
  CHECK(markdown_code("   ") == "`   `");
  CHECK(markdown_code("") == "` `");
  CHECK(markdown_code("a|b") == "`a|b`");  // outside a table '|' is plain
  CHECK(markdown_code("x\ny\x1b") == "`x\\x0ay\\x1b`");
}

TEST_CASE("markdown_table_code: '|' escaped for the table parser", "[text_escape]") {
  CHECK(markdown_table_code("main > compute") == "`main > compute`");
  CHECK(markdown_table_code("a|b") == "`a\\|b`");
  CHECK(markdown_table_code("a\\|b") == "`a\\\\|b`");  // the parser removes only the added backslash
  CHECK(markdown_table_code("`|`") == "`` `\\|` ``");
}

TEST_CASE("markdown_text: markup characters escaped, other text unchanged", "[text_escape]") {
  CHECK(markdown_text("z >= 4, and 1% (relative).") == "z \\>= 4, and 1% (relative).");
  CHECK(markdown_text("![x](http://example.invalid/x.png)") == "\\!\\[x\\](http://example.invalid/x.png)");
  CHECK(markdown_text("<img src=x>") == "\\<img src=x\\>");
  CHECK(markdown_text("*a* _b_ `c` ~d~ &amp; a|b \\") == "\\*a\\* \\_b\\_ \\`c\\` \\~d\\~ \\&amp; a\\|b \\\\");
  CHECK(markdown_text("one\ntwo\x1b") == "one\\\\x0atwo\\\\x1b");
  CHECK(markdown_text("größe") == "größe");
}
