#include "tui/cursor.h"

#include <catch2/catch.hpp>

using swprof::tui::Cursor;

namespace {

// The invariants of tui/cursor.h.
void check_invariants(const Cursor& c) {
  INFO("count " << c.count() << " height " << c.height() << " selected " << c.selected() << " top " << c.top());
  if (c.count() == 0) {
    CHECK(c.selected() == 0);
    CHECK(c.top() == 0);
    return;
  }
  CHECK(c.selected() < c.count());
  CHECK(c.top() <= c.selected());
  CHECK(c.selected() < c.top() + c.height());
  if (c.count() >= c.height()) CHECK(c.top() <= c.count() - c.height());
}

}  // namespace

TEST_CASE("tui: cursor: at 80x24 (21 rows), moving past the window scrolls it by one, pages by 21") {
  Cursor c;
  c.resize(100, 21);
  c.move(20);
  CHECK(c.selected() == 20);
  CHECK(c.top() == 0);
  c.move(1);
  CHECK(c.selected() == 21);
  CHECK(c.top() == 1);
  c.page(1);
  CHECK(c.selected() == 42);
  CHECK(c.top() == 22);
  c.end();
  CHECK(c.selected() == 99);
  CHECK(c.top() == 79);
  c.page(1);  // at the end: stays
  CHECK(c.selected() == 99);
  c.page(-1);
  CHECK(c.selected() == 78);
  CHECK(c.top() == 58);
  c.home();
  CHECK(c.selected() == 0);
  CHECK(c.top() == 0);
  check_invariants(c);
}

TEST_CASE("tui: cursor: select shows a far row a third of the way down, a row in view where it is") {
  Cursor c;
  c.resize(100, 21);
  c.select(50);
  CHECK(c.selected() == 50);
  CHECK(c.top() == 43);
  c.select(60);
  CHECK(c.top() == 43);
  c.select(1000);
  CHECK(c.selected() == 99);
  check_invariants(c);
}

TEST_CASE("tui: cursor: rows that shrink or a window that grows keep every invariant") {
  Cursor c;
  for (size_t count : {0, 1, 5, 21, 22, 100})
    for (size_t height : {1, 3, 21, 50}) {
      c.resize(100, 21);
      c.end();
      c.resize(count, height);
      check_invariants(c);
      c.move(-3);
      check_invariants(c);
      c.page(2);
      check_invariants(c);
      c.select(count / 2);
      check_invariants(c);
    }
  c.resize(0, 0);
  CHECK(c.height() == 1);
}
