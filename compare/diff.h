#pragma once
// `swprof diff`: two profiles of the same program compared by share of
// samples, function by function and calling context by calling context, with
// a gate that says whether the newer one regressed.
//
// Identity never involves addresses:
//  - a function is (module, function name), the key of its context hash:
//    inlined and out-of-line copies of a function, and frames found by
//    scanning the stack, count as that one function; synthetic thread roots
//    are not functions;
//  - a calling context is its calling-context id (profile/call_tree.h).
// With ignore_modules, user-space modules take no part in either key
// (compare/context_match.h): the same program under another name matches.
// Each side is normalized by its own total samples. A function's total
// counts a sample once even when the function recurses. Off-CPU and wall
// profiles count time instead: a node's weight in sampling intervals of its
// recording (1 ms at 1000 Hz), so a long wait counts for its length, not as
// one sample.
//
// A metric (self or total share) of a function regressed when all of:
//  - it is eligible: its share is >= min_share_percent, and its samples
//    >= min_samples, on at least one side, and its name matches `only`;
//  - the share rose by more than threshold_percent, relative (new/base - 1);
//  - the rise is significant: the two-proportion z statistic (pooled) is
//    >= min_z. Samples of one run are not independent (a timer samples a
//    program's phases), so the default min_z is conservative; see docs/diff.md.
// An improvement is the same with the share falling; it never fails.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace swprof {

// `swprof diff` exits with this when the gate fails (errors exit 2).
inline constexpr int kExitRegression = 1;

enum class FailOn { kSelf, kTotal, kBoth };
// "self", "total" or "both"; throws Error for anything else.
FailOn parse_fail_on(const std::string& name);
const char* fail_on_name(FailOn fail_on);

struct DiffOptions {
  double threshold_percent = 5;    // relative change of a share that counts
  double min_share_percent = 1;    // below this share on both sides: not judged
  uint64_t min_samples = 20;       // below this many samples on both sides: not judged
  double min_z = 4;                // |z| needed to call a change significant
  FailOn fail_on = FailOn::kTotal; // which metric's regression fails the gate
  std::string only;                // judge only functions matching this regex (empty: all)
  bool ignore_modules = false;     // match user-space functions and contexts by name alone
};

enum class Change { kNone, kRegression, kImprovement };
const char* change_name(Change change);

// One metric (self or total samples) of one function or context, both sides.
struct ShareChange {
  uint64_t base = 0;        // samples in BASE
  uint64_t current = 0;     // samples in NEW
  double base_percent = 0;  // share of BASE's samples
  double new_percent = 0;
  double delta_points = 0;  // new_percent - base_percent
  // new_percent / base_percent: +infinity when only NEW has samples, NaN
  // when neither has.
  double ratio = std::numeric_limits<double>::quiet_NaN();
  double z = 0;             // two-proportion z statistic, > 0 when the share rose
  bool eligible = false;    // above min-share and min-samples, matches --only
  bool significant = false; // |z| >= min_z
  Change change = Change::kNone;
};

struct FunctionDiff {
  std::string function;
  std::string module;
  bool kernel = false;
  ShareChange self;
  ShareChange total;
  bool fails_gate = false;  // a regression of a metric that --fail-on names
};

struct ContextDiff {
  uint64_t id = 0;              // its context id (NEW's when NEW has the context)
  std::vector<CctFrame> stack;  // root first (from NEW when it has the context)
  ShareChange self;
  ShareChange total;
};

// What the reports say about each side.
struct DiffSide {
  std::string source;
  std::vector<std::string> command;
  std::string event;
  uint64_t samples = 0;  // samples; in sampling intervals for off-CPU and wall profiles (see Amount)
  std::string amount;    // what the reports say it holds: "1234 samples", "3.20 s of wall time"
  double duration_seconds = 0;
};

struct ProfileDiff {
  DiffSide base;
  DiffSide current;
  std::string measure = "samples";  // what the shares are of: "samples", "off-CPU time", "wall time"
  DiffOptions options;
  // Every function with samples on either side, largest rise of total share
  // first (then self, then name).
  std::vector<FunctionDiff> functions;
  // Contexts whose total share is >= min_share_percent on either side and
  // whose leaf matches `only`, largest rise of total share first (then id).
  std::vector<ContextDiff> contexts;
  std::vector<std::string> warnings;  // different programs or events, ...

  size_t failing() const;  // functions that fail the gate
  bool regressed() const { return failing() > 0; }
};

// Two-proportion z statistic with the pooled proportion:
//   p = (x1 + x2) / (n1 + n2),  z = (x2/n2 - x1/n1) / sqrt(p (1 - p) (1/n1 + 1/n2))
// 0 when it is undefined (an empty side, or p of 0 or 1).
double two_proportion_z(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2);

// Adds a note to `diff`'s warnings when either side had at least 1% of its
// samples in interrupt handlers (charge_interrupts_to_interrupted moved them):
// a busy machine, which the gate does not judge.
void note_interrupts(ProfileDiff& diff, const Profile& base, uint64_t base_moved, const Profile& current,
                     uint64_t current_moved);

// Compares BASE and NEW. Throws Error for a side without samples, a reversed
// (leaf-first) profile, or a bad `only` regex.
ProfileDiff diff_profiles(const Profile& base, const Profile& current, const DiffOptions& options);

}  // namespace swprof
