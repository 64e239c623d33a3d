// The selected row of a list and the rows that show (tui/cursor.h).

#include "tui/cursor.h"

#include <algorithm>

namespace swprof::tui {

void Cursor::resize(size_t count, size_t height) {
  count_ = count;
  height_ = std::max<size_t>(height, 1);
  clamp();
}

void Cursor::move(long delta) {
  if (count_ == 0) return;
  const long last = static_cast<long>(count_) - 1;
  selected_ = static_cast<size_t>(std::clamp(static_cast<long>(selected_) + delta, 0L, last));
  clamp();
}

void Cursor::page(long pages) {
  if (count_ == 0) return;
  const long rows = pages * static_cast<long>(height_);
  const long last_top = static_cast<long>(count_ > height_ ? count_ - height_ : 0);
  top_ = static_cast<size_t>(std::clamp(static_cast<long>(top_) + rows, 0L, last_top));
  move(rows);
}

void Cursor::select(size_t row) {
  if (count_ == 0) return;
  selected_ = std::min(row, count_ - 1);
  if (selected_ < top_ || selected_ >= top_ + height_) top_ = selected_ > height_ / 3 ? selected_ - height_ / 3 : 0;
  clamp();
}

void Cursor::clamp() {
  if (count_ == 0) {
    selected_ = top_ = 0;
    return;
  }
  selected_ = std::min(selected_, count_ - 1);
  top_ = std::min(top_, count_ > height_ ? count_ - height_ : 0);
  if (selected_ < top_) top_ = selected_;
  if (selected_ >= top_ + height_) top_ = selected_ - height_ + 1;
}

}  // namespace swprof::tui
