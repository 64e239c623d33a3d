#pragma once
// What the browser's shares measure, as the text report's: samples in cpu
// profiles (a sample there is a fixed slice of time or events), time in
// off-CPU and wall profiles (an off-CPU sample stands for a whole wait).

#include <cstdint>

#include "profile/call_tree.h"
#include "profile/function_table.h"
#include "profile/profile.h"

namespace swprof::tui {

struct Measure {
  bool time = false;

  Measure() = default;
  explicit Measure(const Profile& p) : time(p.weight_kind != WeightKind::kCpu) {}
  uint64_t self(const CctNode& n) const { return time ? n.self_weight : n.self; }
  uint64_t total(const CctNode& n) const { return time ? n.total_weight : n.total; }
  uint64_t self(const FunctionRow& r) const { return time ? r.self_weight : r.self; }
  uint64_t total(const FunctionRow& r) const { return time ? r.total_weight : r.total; }
  uint64_t whole(const CallTree& tree) const { return time ? tree.total_weight() : tree.total(); }
};

}  // namespace swprof::tui
