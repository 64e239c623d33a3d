#pragma once
// The selected row of a list and the rows that show: `height` rows of
// `count`, from `top`. Invariants, whatever is called: with rows,
// selected < count and top <= selected < top + height, and no window ends
// past the last row when the rows could fill it (top <= count - height);
// without rows, selected == top == 0.

#include <cstddef>

namespace swprof::tui {

class Cursor {
 public:
  size_t selected() const { return selected_; }
  size_t top() const { return top_; }
  size_t count() const { return count_; }
  size_t height() const { return height_; }

  // A new number of rows or of lines to show them in (at least 1): the
  // selection stays where it is as far as it can, and in view.
  void resize(size_t count, size_t height);
  // The selection `delta` rows down (up when negative), stopping at the ends;
  // the window follows it by as little as it takes.
  void move(long delta);
  // The selection and the window a page down (up when negative).
  void page(long pages);
  void home() { move(-static_cast<long>(count_)); }
  void end() { move(static_cast<long>(count_)); }
  // Selects `row` (clamped); when it was out of view, the window shows it a
  // third of the way down (a match of a search, with what leads to it).
  void select(size_t row);

 private:
  void clamp();

  size_t count_ = 0, height_ = 1, selected_ = 0, top_ = 0;
};

}  // namespace swprof::tui
