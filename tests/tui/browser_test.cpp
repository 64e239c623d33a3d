#include "tui/browser.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/profile_fixture.h"
#include "tui/render.h"

using namespace swprof;
using namespace swprof::testing;
using namespace swprof::tui;

namespace {

void type(Browser& b, const std::string& text) {
  for (char c : text) b.press(static_cast<unsigned char>(c));
}

std::string selected_name(const Browser& b) {
  REQUIRE(b.page().selection());
  return b.profile().tree.frame(b.page().selection()->frame).function;
}

// The selected row's node's parent's name, in a tree page.
std::string selected_parent(const Browser& b) {
  const auto& page = static_cast<const TreePage&>(b.page());
  const OutlineRow& row = page.outline().rows()[page.cursor().selected()];
  const CallTree& tree = page.outline().tree(row.tree);
  return tree.frame(tree.node(tree.node(row.node).parent).frame).function;
}

std::string screen(const Browser& b) { return screen_text(render(b, Charset::kUtf8)); }

}  // namespace

// sample_profile: main -> a -> b (60), main -> a (10), main -> c -> b (25),
// main -> rec -> rec -> rec (5).
TEST_CASE("tui: browser: Tab switches between the top functions and the tree, q quits") {
  const Profile p = sample_profile();
  Browser b(p, {});
  CHECK(b.page().kind() == PageKind::kFunctions);
  CHECK(selected_name(b) == "b");
  b.press(keys::kDown);
  CHECK(selected_name(b) == "a");
  b.press(keys::kTab);
  CHECK(b.page().kind() == PageKind::kTree);
  CHECK(selected_name(b) == "main");
  b.press(keys::kTab);
  CHECK(selected_name(b) == "a");  // each page keeps its selection
  b.press(keys::kEscape);          // nothing to go back from
  CHECK(b.page().kind() == PageKind::kFunctions);
  CHECK_FALSE(b.done());
  b.press('q');
  CHECK(b.done());
}

TEST_CASE("tui: browser: Enter, Right and Left open and close nodes, Left then goes to the parent") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.press(keys::kTab);
  b.press(keys::kEnter);
  CHECK(b.page().row_count() == 4);  // main a c rec
  b.press(keys::kDown);
  b.press(keys::kRight);  // a: a b
  CHECK(b.page().row_count() == 5);
  b.press('j');
  CHECK(selected_name(b) == "b");
  b.press(keys::kLeft);  // b has nothing to close: up to a
  CHECK(selected_name(b) == "a");
  b.press(keys::kLeft);  // a closes
  CHECK(b.page().row_count() == 4);
  b.press('E');
  CHECK(b.page().row_count() == 8);
  b.press('C');
  CHECK(b.page().row_count() == 1);
  CHECK(selected_name(b) == "main");
  b.press('+');
  CHECK(b.page().row_count() == 8);
  b.press('-');
  CHECK(b.page().row_count() == 1);
  b.press(keys::kLeft);  // a closed top row in a main page: nothing happens
  CHECK(b.page().kind() == PageKind::kTree);
}

TEST_CASE("tui: browser: / finds as it is typed, in closed nodes too, n and N go on, wrapping, Esc goes back") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.press(keys::kTab);
  b.press('/');
  CHECK(b.typing_search());
  type(b, "b");
  CHECK(selected_name(b) == "b");
  CHECK(selected_parent(b) == "a");  // the first b in tree order, its callers opened
  b.press(keys::kEnter);
  CHECK_FALSE(b.typing_search());
  b.press('n');
  CHECK(selected_parent(b) == "c");
  CHECK(b.message().empty());
  b.press('n');
  CHECK(selected_parent(b) == "a");
  CHECK(b.message() == "search wrapped to the top");
  b.press('N');
  CHECK(selected_parent(b) == "c");
  CHECK(b.message() == "search wrapped to the bottom");
  // A pattern with no match says so; Esc puts the selection back.
  b.press('/');
  type(b, "re");
  CHECK(selected_name(b) == "rec");
  type(b, "x");
  CHECK(b.message() == "no match for 'rex'");
  b.press(keys::kBackspace);
  CHECK(b.search_text() == "re");
  b.press(keys::kEscape);
  CHECK(selected_parent(b) == "c");
  CHECK(b.search_text() == "b");  // n still looks for the last pattern searched
  // Upper case: case counts.
  b.press('/');
  type(b, "B");
  CHECK(b.message() == "no match for 'B'");
  b.press(keys::kEnter);
  b.press('n');
  CHECK(b.message() == "no match for 'B'");
}

TEST_CASE("tui: browser: search in the top functions and an arrow key that ends the typing") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.press('n');
  CHECK(b.message() == "no search yet: / to search");
  b.press('/');
  type(b, "ma");
  CHECK(selected_name(b) == "main");
  b.press(keys::kUp);  // ends the search, then moves
  CHECK_FALSE(b.typing_search());
  CHECK(selected_name(b) == "rec");
}

TEST_CASE("tui: browser: c and Enter show callers and callees, Esc and Left go back") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.press(keys::kEnter);  // b, the hottest function
  REQUIRE(b.in_sub_page());
  CHECK(b.page().title() == "Callers and callees of b  [app]");
  const std::string shown = screen(b);
  INFO(shown);
  CHECK(shown.find("\u25be b  [app]  (callers)") != std::string::npos);
  CHECK(shown.find(" 85.00%   85.00%    b  [app]  (callees)") != std::string::npos);  // a leaf: no mark
  CHECK(shown.find(" 85.00%           \u25be b  [app]  (callers)") != std::string::npos);  // no self among callers
  CHECK(shown.find(" 60.00%             \u25b8 a  [app]") != std::string::npos);
  b.press(keys::kEscape);
  CHECK_FALSE(b.in_sub_page());
  // From the tree: rec, three deep.
  b.press(keys::kTab);
  b.press('/');
  type(b, "rec");
  b.press(keys::kEnter);
  b.press('c');
  REQUIRE(b.in_sub_page());
  CHECK(b.page().row_count() == 5);  // rec, main; rec, rec, rec (each chain opened)
  b.press(keys::kLeft);  // rec (callers) is open: closes
  b.press(keys::kLeft);  // then nothing left to close: back
  CHECK_FALSE(b.in_sub_page());
}

TEST_CASE("tui: browser: a of a profile without addresses says annotate needs a recording, after a busy line") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.press('a');
  CHECK(b.busy() == "annotating b\u2026");
  CHECK(screen(b).find("annotating b") != std::string::npos);
  b.press('q');  // waits for the work
  CHECK_FALSE(b.done());
  b.run_pending();
  CHECK(b.busy().empty());
  REQUIRE(b.in_sub_page());
  CHECK(b.page().title() == "Annotation of b  [app]");
  const auto& text = static_cast<const TextPage&>(b.page());
  REQUIRE(text.lines().size() == 1);
  CHECK(text.lines()[0] == "annotate: 'fixture.swprof' has no samples by address: annotate needs a recording");
}

TEST_CASE("tui: browser: ? lists every key, Left and Right scroll a text, Left at its start goes back") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.resize(40, 24);
  b.press('?');
  REQUIRE(b.page().kind() == PageKind::kText);
  const auto& help = static_cast<const TextPage&>(b.page());
  for (const KeyBinding& k : key_bindings()) {
    bool listed = false;
    for (const std::string& line : help.lines()) listed |= line.find(k.label) != std::string::npos && line.find(k.help) != std::string::npos;
    CHECK(listed);
  }
  b.press(keys::kRight);
  CHECK(help.column() == TextPage::kScrollColumns);
  CHECK(screen(b).find("(from column 9)") != std::string::npos);
  b.press(keys::kLeft);
  CHECK(help.column() == 0);
  b.press(keys::kLeft);
  CHECK_FALSE(b.in_sub_page());
}

TEST_CASE("tui: browser: s sorts the top functions, the selected one staying selected") {
  const Profile p = sample_profile();
  Browser b(p, {});
  b.press(keys::kDown);
  b.press(keys::kDown);  // rec
  b.press('s');
  CHECK(b.page().title() == "Top functions by total");
  CHECK(selected_name(b) == "rec");
  CHECK(b.page().cursor().selected() == 4);
  b.press('s');
  CHECK(b.page().title() == "Top functions by name");
  CHECK(selected_name(b) == "rec");
}

TEST_CASE("tui: browser: at 80x24, 21 rows show, Space, End and Home scroll a long list") {
  Profile p;
  for (int i = 0; i < 100; ++i) {
    char name[16];
    snprintf(name, sizeof name, "f%03d", i);
    add_stack(p.tree, {fn("main"), fn(name)}, 1000 - static_cast<uint64_t>(i));
  }
  Browser b(p, {});
  b.resize(80, 24);
  CHECK(b.page().cursor().height() == 21);
  b.press(' ');  // the window and the selection a page down
  CHECK(selected_name(b) == "f021");
  std::string shown = screen(b);
  CHECK(shown.find("f020") == std::string::npos);
  CHECK(shown.find("f021") != std::string::npos);
  CHECK(shown.find("f041") != std::string::npos);
  CHECK(shown.find("f042") == std::string::npos);
  b.press(keys::kEnd);
  shown = screen(b);
  CHECK(selected_name(b) == "main");  // no self samples: last
  CHECK(shown.find("f080") != std::string::npos);
  CHECK(shown.find("f079") == std::string::npos);
  b.press(keys::kHome);
  CHECK(selected_name(b) == "f000");
  b.resize(80, 10);  // smaller: the selection stays in view
  b.press(keys::kEnd);
  CHECK(b.page().cursor().top() == 101 - 7);
}

TEST_CASE("tui: browser: a on the stored recording annotates the selected function, its instructions with their samples") {
  ProfileOptions o;
  o.addresses = AddressDetail::kLeaves;
  const Profile p = build_profile(std::string(GOLDEN_DIR) + "/recording/known_tiny.swprof", o);
  Browser b(p, {});
  CHECK(selected_name(b) == "spin");
  b.press('a');
  b.run_pending();
  REQUIRE(b.page().kind() == PageKind::kText);
  CHECK(b.page().title() == "Annotation of spin  [known_tiny]");
  const std::string shown = screen(b);
  INFO(shown);
  CHECK(shown.find("== spin  [known_tiny]  329 samples (100.0% of all)") != std::string::npos);
  CHECK(shown.find("       270  82.1%       400195  cmpq %rax, %rdi") != std::string::npos);
  // A function with no samples of its own says why there is nothing to show.
  b.press(keys::kEscape);
  b.press('/');
  type(b, "warm");
  b.press(keys::kEnter);
  b.press('a');
  b.run_pending();
  CHECK(screen(b).find("No samples in the code of warm itself") != std::string::npos);
}
