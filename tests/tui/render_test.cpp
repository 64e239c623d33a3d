#include "tui/render.h"

#include <catch2/catch.hpp>
#include <string>

#include "output/text_width.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;
using namespace swprof::tui;

namespace {

void check_size(const std::vector<ScreenLine>& lines, size_t width, size_t height) {
  REQUIRE(lines.size() == height);
  for (const ScreenLine& l : lines) {
    INFO(l.text);
    CHECK(display_width(l.text) == width);
  }
}

bool plain_ascii(const std::string& text) {
  for (unsigned char c : text)
    if (c >= 0x80 || (c < 0x20 && c != '\n')) return false;
  return true;
}

}  // namespace

TEST_CASE("tui: render: at 80x24, the title, the heading, the rows and the status, each line 80 columns") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.resize(80, 24);
  const std::vector<ScreenLine> lines = render(b, Charset::kUtf8);
  check_size(lines, 80, 24);
  CHECK(lines[0].style == LineStyle::kTitle);
  CHECK(lines[0].text.rfind(" Top functions by self  |  fixture.swprof", 0) == 0);
  CHECK(lines[1].text.rfind("   Self%   Total%   Samples  Function  [module]", 0) == 0);
  CHECK(lines[2].style == LineStyle::kSelected);
  CHECK(lines[2].text.rfind("   85.00    85.00        85  b  [app]", 0) == 0);
  CHECK(lines[3].style == LineStyle::kNormal);
  CHECK(lines[3].text.rfind("   10.00    70.00        10  a  [app]", 0) == 0);
  CHECK(lines[23].style == LineStyle::kStatus);
  CHECK(lines[23].text.rfind("b: self 85.0%, total 85.0%  |  100 samples, 0.10 s, 1 thread  |  ? help", 0) == 0);
  b.press(keys::kTab);
  b.press(keys::kEnter);
  const std::string tree = screen_text(render(b, Charset::kUtf8));
  CHECK(tree.find("  Total%    Self%  Function  [module]") != std::string::npos);
  CHECK(tree.find(" 100.00%    0.00%  \u25be main  [app]") != std::string::npos);
  CHECK(tree.find("  70.00%   10.00%    \u25b8 a  [app]") != std::string::npos);
  CHECK(tree.find("   5.00%    0.00%    \u25b8 rec  [app]") != std::string::npos);
}

TEST_CASE("tui: render: without UTF-8 every cell is ASCII: + and - marks, ~ for a cut, other bytes as \\xNN") {
  Profile p = sample_profile();
  add_stack(p.tree, {fn("main"), fn(std::string(100, 'x') + "_caf\xc3\xa9")}, 1);
  Browser b(p, {});
  b.resize(60, 12);
  b.press(keys::kTab);
  b.press(keys::kEnter);
  const std::vector<ScreenLine> lines = render(b, Charset::kAscii);
  check_size(lines, 60, 12);
  const std::string text = screen_text(lines);
  INFO(text);
  CHECK(plain_ascii(text));
  CHECK(text.find("- main  [app]") != std::string::npos);
  CHECK(text.find("+ a  [app]") != std::string::npos);
  CHECK(text.find("xxx_caf\\xc3\\xa9  [app]") != std::string::npos);
  CHECK(text.find("~") != std::string::npos);
  // The same in UTF-8: the name as it is, an ellipsis.
  const std::string utf8 = screen_text(render(b, Charset::kUtf8));
  CHECK(utf8.find("xxx_caf\xc3\xa9  [app]") != std::string::npos);
  CHECK(utf8.find("\u2026") != std::string::npos);
}

TEST_CASE("tui: render: names with control characters are escaped everywhere they show") {
  Profile p = sample_profile();
  const std::string evil = "evil\x1b]0;owned\x07\x1b[2J";
  add_stack(p.tree, {fn("main"), fn(evil, "lib\nx.so")}, 500);
  p.source = "run\x1b[2J.swprof";
  Browser b(p, {});
  for (Key k : {Key{0}, Key{'c'}}) {  // the list (and its title and status), then the callers page
    if (k) b.press(k);
    for (Charset cs : {Charset::kUtf8, Charset::kAscii}) {
      const std::string text = screen_text(render(b, cs));
      INFO(text);
      CHECK(text.find('\x1b') == std::string::npos);
      CHECK(text.find('\x07') == std::string::npos);
      CHECK(text.find("evil\\x1b]0;owned\\x07\\x1b[2J") != std::string::npos);
      CHECK(text.find("[lib\\x0ax.so]") != std::string::npos);
    }
  }
  CHECK(b.page().title().find(evil) != std::string::npos);  // escaped when drawn, not before
  // Its annotation: the fixture has no addresses, so a line says why,
  // naming the file.
  b.press(keys::kEscape);
  b.press('a');
  b.run_pending();
  REQUIRE(b.page().kind() == PageKind::kText);
  for (Charset cs : {Charset::kUtf8, Charset::kAscii}) {
    const std::string text = screen_text(render(b, cs));
    INFO(text);
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\x07') == std::string::npos);
    CHECK(text.find("'run\\x1b[2J.swprof' has no samples by address") != std::string::npos);
  }
}

TEST_CASE("tui: render: time profiles show time, a tiny terminal says so, an empty profile has no rows") {
  const Profile wall = wall_profile();
  Browser b(wall, {});
  b.resize(80, 24);
  const std::string text = screen_text(render(b, Charset::kUtf8));
  CHECK(text.find("   Self%   Total%         Time  Function  [module]") != std::string::npos);
  CHECK(text.find("24.000 ms wall time, 8 samples") != std::string::npos);
  b.resize(10, 3);
  const std::vector<ScreenLine> tiny = render(b, Charset::kUtf8);
  check_size(tiny, 10, 3);
  CHECK(tiny[0].text.rfind("terminal", 0) == 0);
  Profile empty;
  Browser e(empty, {});
  e.resize(80, 24);
  const std::string none = screen_text(render(e, Charset::kUtf8));
  CHECK(none.find("(no samples)") != std::string::npos);
  e.press(keys::kEnter);
  e.press('a');
  e.press(keys::kTab);
  e.press('/');
  e.press('x');
  CHECK(e.message() == "no match for 'x'");
}

TEST_CASE("tui: render: the status line keeps the selected name before the profile's totals") {
  Profile p = sample_profile();
  const std::string long_name = "ns::Parser::parse_" + std::string(50, 'x');
  add_stack(p.tree, {fn("main"), fn(long_name)}, 1000);  // the hottest: selected first
  Browser b(p, {});
  b.resize(80, 24);
  std::string status = render(b, Charset::kUtf8).back().text;
  INFO(status);
  // Beside the totals the name would keep a few columns: they go instead.
  CHECK(status.find("samples") == std::string::npos);
  CHECK(status.rfind("ns::Parser::pa\u2026xxxxxxxx", 0) == 0);  // shortened in the middle
  CHECK(status.find(": self 90.9%, total 90.9%  |  ? help") != std::string::npos);
  CHECK(display_width(status) == 80);
  b.press(keys::kDown);  // b: short enough for the totals
  status = render(b, Charset::kUtf8).back().text;
  CHECK(status.rfind("b: self 7.7%, total 7.7%  |  1100 samples, 0.10 s, 1 thread  |  ? help", 0) == 0);
  b.resize(30, 24);  // no room for a name at all
  status = render(b, Charset::kUtf8).back().text;
  INFO(status);
  CHECK(status == "self 7.7%, total 7.7%  |  ? h\u2026");
}
