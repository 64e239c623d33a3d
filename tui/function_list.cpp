// The top-functions view's rows (tui/function_list.h).

#include "tui/function_list.h"

#include <algorithm>
#include <tuple>

namespace swprof::tui {

const char* function_order_name(FunctionOrder order) {
  switch (order) {
    case FunctionOrder::kSelf: return "self";
    case FunctionOrder::kTotal: return "total";
    case FunctionOrder::kName: return "name";
  }
  return "self";
}

FunctionList::FunctionList(const Profile& profile, InlineRows rows)
    : tree_(profile.tree), measure_(profile), inline_rows_(rows), rows_(function_table(profile, rows)) {
  sort(FunctionOrder::kSelf);
}

void FunctionList::sort(FunctionOrder order) {
  order_ = order;
  const Measure m = measure_;
  auto by_name = [&](const FunctionRow& a, const FunctionRow& b) {
    const CctFrame &fa = tree_.frame(a.frame), &fb = tree_.frame(b.frame);
    return std::tie(fa.function, fa.module, fa.flags) < std::tie(fb.function, fb.module, fb.flags);
  };
  std::sort(rows_.begin(), rows_.end(), [&](const FunctionRow& a, const FunctionRow& b) {
    switch (order) {
      case FunctionOrder::kSelf:
        if (m.self(a) != m.self(b)) return m.self(a) > m.self(b);
        if (m.total(a) != m.total(b)) return m.total(a) > m.total(b);
        break;
      case FunctionOrder::kTotal:
        if (m.total(a) != m.total(b)) return m.total(a) > m.total(b);
        if (m.self(a) != m.self(b)) return m.self(a) > m.self(b);
        break;
      case FunctionOrder::kName: break;
    }
    return by_name(a, b);
  });
}

}  // namespace swprof::tui
