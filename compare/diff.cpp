// `swprof diff`: matching two profiles by function and calling-context id,
// and judging each change (see compare/diff.h for the rule).

#include "compare/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "common/error.h"
#include "compare/context_match.h"
#include "profile/info.h"
#include "profile/name_filter.h"

namespace swprof {
namespace {

constexpr uint32_t kNotAFunction = UINT32_MAX;

struct Counts {
  uint64_t self = 0;
  uint64_t total = 0;
};

// What a node counts for in the statistics. On-CPU profiles count samples.
// Off-CPU and wall profiles count time: one off-CPU sample may stand for a
// 2 s wait, so each node's weight is turned into sampling intervals (1 ms at
// 1000 Hz), the samples a wall-clock sampler at the recording's rate would
// have taken there.
class Amount {
 public:
  explicit Amount(const Profile& p) : by_weight_(p.weight_kind != WeightKind::kCpu), tick_ns_(tick_ns(p.header)) {}
  uint64_t self(const CctNode& n) const { return by_weight_ ? ticks(n.self_weight) : n.self; }
  uint64_t total(const CctNode& n) const { return by_weight_ ? ticks(n.total_weight) : n.total; }

 private:
  static double tick_ns(const RecordingHeader& h) {
    if (h.frequency) return 1e9 / h.frequency;
    if (h.period && (h.event == "cpu-clock" || h.event == "task-clock")) return static_cast<double>(h.period);
    return 1e6;
  }
  uint64_t ticks(uint64_t ns) const { return static_cast<uint64_t>(static_cast<double>(ns) / tick_ns_ + 0.5); }
  bool by_weight_;
  double tick_ns_;
};

uint64_t profile_total(const Profile& p) { return Amount(p).total(p.tree.node(CallTree::kRoot)); }

// Functions of both sides, numbered in one index by (module, function), the
// module as matching_module gives it.
class FunctionIndex {
 public:
  explicit FunctionIndex(bool ignore_modules) : ignore_modules_(ignore_modules) {}

  uint32_t id(const CctFrame& frame) {
    if (frame.flags & kCctThread) return kNotAFunction;
    std::string key = matching_module(frame, ignore_modules_);
    key.push_back('\0');
    key += frame.function;
    auto [it, inserted] = index_.try_emplace(std::move(key), static_cast<uint32_t>(rows_.size()));
    if (inserted) {
      FunctionDiff row;
      row.function = frame.function;
      row.module = frame.module;
      row.kernel = frame.flags & kCctKernel;
      rows_.push_back(std::move(row));
    }
    return it->second;
  }
  std::vector<FunctionDiff>& rows() { return rows_; }

 private:
  bool ignore_modules_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<FunctionDiff> rows_;
};

// Self and total samples per function of `index`. Depth-first with a count of
// how often each function is on the current path: a node adds its total only
// where its function is not already above it, so recursion counts once.
std::vector<Counts> function_counts(const Profile& profile, FunctionIndex& index) {
  const CallTree& tree = profile.tree;
  const Amount amount(profile);
  std::vector<uint32_t> function_of(tree.frames().size());
  for (size_t f = 0; f < tree.frames().size(); ++f) function_of[f] = index.id(tree.frame(static_cast<uint32_t>(f)));
  std::vector<Counts> counts(index.rows().size());
  std::vector<uint32_t> on_path(index.rows().size(), 0);
  struct Item {
    uint32_t node;
    bool leaving;
  };
  std::vector<Item> stack{{CallTree::kRoot, false}};
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(item.node);
    const uint32_t fn = item.node == CallTree::kRoot ? kNotAFunction : function_of[n.frame];
    if (item.leaving) {
      --on_path[fn];
      continue;
    }
    if (fn != kNotAFunction) {
      counts[fn].self += amount.self(n);
      if (on_path[fn]++ == 0) counts[fn].total += amount.total(n);
      stack.push_back({item.node, true});
    }
    for (uint32_t c : n.children) stack.push_back({c, false});
  }
  return counts;
}

// Per matching context id (compare/context_match.h), the samples of each side
// and a node that has it (NEW's when NEW has the context). Siblings that
// differ only in flags (inlined or not, guessed or not) share an id and are
// summed.
struct ContextCounts {
  Counts base, current;
  bool in_current = false;
  uint32_t node = 0;
};

void add_contexts(const Profile& profile, bool current, bool ignore_modules,
                  std::unordered_map<uint64_t, ContextCounts>& out) {
  const CallTree& tree = profile.tree;
  const Amount amount(profile);
  const std::vector<uint64_t> ids = matching_context_ids(tree, ignore_modules);
  for (uint32_t i = 1; i < tree.nodes().size(); ++i) {
    const CctNode& n = tree.node(i);
    auto [it, inserted] = out.try_emplace(ids[i]);
    ContextCounts& c = it->second;
    if (inserted) {
      c.in_current = current;
      c.node = i;
    }
    Counts& side = current ? c.current : c.base;
    side.self += amount.self(n);
    side.total += amount.total(n);
  }
}


class Judge {
 public:
  Judge(const DiffOptions& options, uint64_t base_samples, uint64_t new_samples)
      : o_(options), nb_(base_samples), nc_(new_samples) {}

  ShareChange measure(uint64_t base, uint64_t current, bool matches) const {
    ShareChange s;
    s.base = base;
    s.current = current;
    s.base_percent = percent(base, nb_);
    s.new_percent = percent(current, nc_);
    s.delta_points = s.new_percent - s.base_percent;
    if (base) s.ratio = s.new_percent / s.base_percent;
    else if (current) s.ratio = std::numeric_limits<double>::infinity();
    s.z = two_proportion_z(base, nb_, current, nc_);
    s.eligible = matches && (base || current) && std::max(s.base_percent, s.new_percent) >= o_.min_share_percent &&
                 std::max(base, current) >= o_.min_samples;
    s.significant = std::fabs(s.z) >= o_.min_z;
    if (s.eligible && s.significant) {
      const double relative = 100.0 * (s.ratio - 1.0);  // +inf when only NEW has samples
      if (s.z > 0 && relative > o_.threshold_percent) s.change = Change::kRegression;
      if (s.z < 0 && -relative > o_.threshold_percent) s.change = Change::kImprovement;
    }
    return s;
  }

 private:
  const DiffOptions& o_;
  uint64_t nb_, nc_;
};

// --only: every name matches when it is not given.
class OnlyFilter {
 public:
  explicit OnlyFilter(const std::string& pattern) {
    if (!pattern.empty()) re_.emplace(pattern, "--only");
  }
  bool matches(const std::string& name) const { return !re_ || re_->matches(name); }

 private:
  std::optional<NameFilter> re_;
};

const char* measure_of(const Profile& p) {
  switch (p.weight_kind) {
    case WeightKind::kOffCpu: return "off-CPU time";
    case WeightKind::kWall: return "wall time";
    case WeightKind::kCpu: break;
  }
  return "samples";
}

DiffSide describe(const Profile& p) {
  DiffSide s;
  s.source = p.source;
  s.command = p.header.command;
  s.event = p.header.event;
  s.samples = profile_total(p);
  char amount[96];
  if (p.weight_kind == WeightKind::kCpu)
    std::snprintf(amount, sizeof amount, "%llu %s", static_cast<unsigned long long>(s.samples),
                  s.samples == 1 ? "sample" : "samples");
  else
    std::snprintf(amount, sizeof amount, "%.2f s of %s", static_cast<double>(p.tree.total_weight()) / 1e9, measure_of(p));
  s.amount = amount;
  s.duration_seconds = p.duration_seconds();
  return s;
}

void check_usable(const Profile& p) {
  if (p.tree.total() == 0) throw Error("'" + p.source + "' has no samples: nothing to compare");
  if (p.reversed)
    throw Error("'" + p.source + "' has leaf-first stacks (--reverse); diff needs a profile written without --reverse");
}

// Shares of on-CPU time and of off-CPU or wall time answer different
// questions: comparing them would flag every function.
void check_same_weight(const Profile& base, const Profile& current) {
  if (base.weight_kind == current.weight_kind) return;
  throw Error("'" + base.source + "' weighs " + weight_kind_name(base.weight_kind) + " time and '" + current.source +
              "' weighs " + weight_kind_name(current.weight_kind) +
              " time: profiles of different weights cannot be compared (use the same --weight on both)");
}

std::string program_name(const Profile& p) {
  if (p.header.command.empty()) return "";
  const std::string& exe = p.header.command.front();
  return exe.substr(exe.rfind('/') + 1);
}

// A --per-thread profile roots each stack at "name [tid]"; tids differ
// between runs, so none of its contexts can match the other side's.
bool has_thread_id_roots(const Profile& p) {
  for (uint32_t c : p.tree.node(CallTree::kRoot).children) {
    const CctFrame& f = p.tree.frame(p.tree.node(c).frame);
    if ((f.flags & kCctThread) && !f.function.empty() && f.function.back() == ']') return true;
  }
  return false;
}

std::vector<std::string> comparison_warnings(const Profile& base, const Profile& current, bool ignore_modules) {
  std::vector<std::string> w;
  const std::string a = program_name(base), b = program_name(current);
  if (!ignore_modules && !a.empty() && !b.empty() && a != b)
    w.push_back("'" + base.source + "' and '" + current.source + "' profile different programs ('" + a + "' and '" + b +
                "'); comparing them anyway");
  if (!base.header.event.empty() && !current.header.event.empty() && base.header.event != current.header.event)
    w.push_back("'" + base.source + "' sampled " + base.header.event + " and '" + current.source + "' sampled " +
                current.header.event + "; comparing their shares anyway");
  for (const Profile* p : {&base, &current})
    if (has_thread_id_roots(*p))
      w.push_back("'" + p->source +
                  "' has a subtree per thread id (--per-thread): thread ids differ between runs, so its calling "
                  "contexts cannot match; make the profile without --per-thread");
  return w;
}

// Largest rise of total share first, then of self share, then by name.
template <typename Row, typename Key>
void sort_rows(std::vector<Row>& rows, Key key) {
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.total.delta_points != b.total.delta_points) return a.total.delta_points > b.total.delta_points;
    if (a.self.delta_points != b.self.delta_points) return a.self.delta_points > b.self.delta_points;
    return key(a) < key(b);
  });
}

std::vector<FunctionDiff> diff_functions(const Profile& base, const Profile& current, const Judge& judge,
                                         const OnlyFilter& only, const DiffOptions& options) {
  FunctionIndex index(options.ignore_modules);
  const std::vector<Counts> c = function_counts(current, index);  // rows named as in NEW
  const std::vector<Counts> b = function_counts(base, index);
  std::vector<FunctionDiff> rows;
  for (size_t i = 0; i < index.rows().size(); ++i) {
    const Counts cb = i < b.size() ? b[i] : Counts{};
    const Counts cc = i < c.size() ? c[i] : Counts{};
    if (!cb.total && !cc.total) continue;
    FunctionDiff row = std::move(index.rows()[i]);
    const bool matches = only.matches(row.function);
    row.self = judge.measure(cb.self, cc.self, matches);
    row.total = judge.measure(cb.total, cc.total, matches);
    const bool self_fails = options.fail_on != FailOn::kTotal && row.self.change == Change::kRegression;
    const bool total_fails = options.fail_on != FailOn::kSelf && row.total.change == Change::kRegression;
    row.fails_gate = self_fails || total_fails;
    rows.push_back(std::move(row));
  }
  sort_rows(rows, [](const FunctionDiff& r) { return std::tie(r.function, r.module); });
  return rows;
}

std::vector<ContextDiff> diff_contexts(const Profile& base, const Profile& current, const Judge& judge,
                                       const OnlyFilter& only, const DiffOptions& options) {
  std::unordered_map<uint64_t, ContextCounts> contexts;
  add_contexts(current, true, options.ignore_modules, contexts);
  add_contexts(base, false, options.ignore_modules, contexts);
  std::vector<ContextDiff> rows;
  for (const auto& [matching_id, counts] : contexts) {
    const double share = std::max(percent(counts.base.total, profile_total(base)),
                                  percent(counts.current.total, profile_total(current)));
    if (share < options.min_share_percent || (!counts.base.total && !counts.current.total)) continue;
    const CallTree& tree = counts.in_current ? current.tree : base.tree;
    const std::string& leaf = tree.frame(tree.node(counts.node).frame).function;
    if (!only.matches(leaf)) continue;
    ContextDiff row;
    row.id = tree.node(counts.node).context_id;
    for (uint32_t f : tree.path(counts.node)) row.stack.push_back(tree.frame(f));
    row.self = judge.measure(counts.base.self, counts.current.self, true);
    row.total = judge.measure(counts.base.total, counts.current.total, true);
    rows.push_back(std::move(row));
  }
  sort_rows(rows, [](const ContextDiff& r) { return r.id; });
  return rows;
}

}  // namespace

FailOn parse_fail_on(const std::string& name) {
  if (name == "self") return FailOn::kSelf;
  if (name == "total") return FailOn::kTotal;
  if (name == "both") return FailOn::kBoth;
  throw Error("unknown --fail-on '" + name + "' (use self, total or both)");
}

const char* fail_on_name(FailOn fail_on) {
  switch (fail_on) {
    case FailOn::kSelf: return "self";
    case FailOn::kTotal: return "total";
    case FailOn::kBoth: return "both";
  }
  return "?";
}

const char* change_name(Change change) {
  switch (change) {
    case Change::kNone: return "none";
    case Change::kRegression: return "regression";
    case Change::kImprovement: return "improvement";
  }
  return "?";
}

double two_proportion_z(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2) {
  if (!n1 || !n2) return 0;
  const double a = static_cast<double>(n1), b = static_cast<double>(n2);
  const double p = (static_cast<double>(x1) + static_cast<double>(x2)) / (a + b);
  const double variance = p * (1 - p) * (1 / a + 1 / b);
  if (!(variance > 0)) return 0;
  return (static_cast<double>(x2) / b - static_cast<double>(x1) / a) / std::sqrt(variance);
}

size_t ProfileDiff::failing() const {
  return static_cast<size_t>(std::count_if(functions.begin(), functions.end(), [](const FunctionDiff& f) { return f.fails_gate; }));
}

void note_interrupts(ProfileDiff& diff, const Profile& base_profile, uint64_t base_moved, const Profile& current_profile,
                     uint64_t current_moved) {
  auto share = [](uint64_t moved, const Profile& p) {
    return p.tree.total() ? 100.0 * static_cast<double>(moved) / static_cast<double>(p.tree.total()) : 0.0;
  };
  const double base = share(base_moved, base_profile), current = share(current_moved, current_profile);
  if (std::max(base, current) < 1) return;
  char text[320];
  std::snprintf(text, sizeof text,
                "%.1f%% of BASE's samples and %.1f%% of NEW's were taken in interrupt handlers (a busy machine: "
                "preemption, IPIs); they count for the code they interrupted (--keep-interrupts judges them)",
                base, current);
  diff.warnings.emplace_back(text);
}

ProfileDiff diff_profiles(const Profile& base, const Profile& current, const DiffOptions& options) {
  if (options.threshold_percent < 0) throw Error("--threshold must not be negative");
  if (options.min_share_percent < 0 || options.min_share_percent > 100)
    throw Error("--min-share must be between 0 and 100");
  if (options.min_z < 0) throw Error("--min-z must not be negative");
  const OnlyFilter only(options.only);
  check_usable(base);
  check_usable(current);
  check_same_weight(base, current);
  ProfileDiff d;
  d.base = describe(base);
  d.current = describe(current);
  d.measure = measure_of(base);
  d.options = options;
  d.warnings = comparison_warnings(base, current, options.ignore_modules);
  const Judge judge(options, profile_total(base), profile_total(current));
  d.functions = diff_functions(base, current, judge, only, options);
  d.contexts = diff_contexts(base, current, judge, only, options);
  return d;
}

}  // namespace swprof
