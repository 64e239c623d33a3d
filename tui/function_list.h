#pragma once
// The top-functions view's rows: every function with samples on its stacks
// (profile/function_table.h, an inlined function one row with its
// out-of-line copies unless InlineRows says otherwise), in the order asked.

#include <cstdint>
#include <vector>

#include "profile/function_table.h"
#include "profile/profile.h"
#include "tui/measure.h"

namespace swprof::tui {

enum class FunctionOrder {
  kSelf,   // most self samples (or time) first, then most total
  kTotal,  // most total first, then most self
  kName,   // by name, then module
};

// "self", "total", "name".
const char* function_order_name(FunctionOrder order);

class FunctionList {
 public:
  FunctionList(const Profile& profile, InlineRows rows);

  InlineRows inline_rows() const { return inline_rows_; }
  FunctionOrder order() const { return order_; }
  void sort(FunctionOrder order);
  // Self, then total, then name, then self again.
  void sort_next() { sort(static_cast<FunctionOrder>((static_cast<int>(order_) + 1) % 3)); }

  const std::vector<FunctionRow>& rows() const { return rows_; }
  const CctFrame& frame(size_t row) const { return tree_.frame(rows_[row].frame); }

 private:
  const CallTree& tree_;
  Measure measure_;
  InlineRows inline_rows_;
  FunctionOrder order_ = FunctionOrder::kSelf;
  std::vector<FunctionRow> rows_;
};

}  // namespace swprof::tui
