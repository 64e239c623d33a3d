// `swprof report --format text`.

#include "output/text_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>

#include "common/format.h"
#include "common/text_escape.h"
#include "profile/info.h"

namespace swprof {
namespace {

// What the percentages and the third column measure: samples in cpu
// profiles (a sample there is a fixed slice of time or events), nanoseconds
// in off-CPU and wall profiles (an off-CPU sample stands for a whole wait).
struct Measure {
  bool time;

  explicit Measure(const Profile& p) : time(p.weight_kind != WeightKind::kCpu) {}
  uint64_t self(const CallTree::FrameTotals& t) const { return time ? t.self_weight : t.self; }
  uint64_t total(const CallTree::FrameTotals& t) const { return time ? t.total_weight : t.total; }
  uint64_t self(const CctNode& n) const { return time ? n.self_weight : n.self; }
  uint64_t total(const CctNode& n) const { return time ? n.total_weight : n.total; }
  uint64_t whole(const CallTree& tree) const { return time ? tree.total_weight() : tree.total(); }
};

// "  weight:    wall time (on-CPU 30.1 %, off-CPU 69.9 %)": only for
// profiles that weigh off-CPU time.
void write_weight(const Profile& p, std::ostream& out) {
  if (p.weight_kind == WeightKind::kCpu) return;
  const uint64_t all = p.tree.total_weight(), off = p.tree.total_off_weight();
  char line[160];
  if (p.weight_kind == WeightKind::kOffCpu)
    snprintf(line, sizeof line, "  weight:    off-CPU time (%s, blocked or waiting)\n", format_duration(off).c_str());
  else
    snprintf(line, sizeof line, "  weight:    wall time %s (on-CPU %.1f %%, off-CPU %.1f %%)\n",
             format_duration(all).c_str(), percent(all - off, all), percent(off, all));
  out << line;
}

// Names and paths come from the profiled program: shown with terminal_safe.
void write_frame(const CctFrame& f, std::ostream& out) {
  out << terminal_safe(f.function) << "  " << terminal_safe(module_label(f.module)) << frame_marks(f) << "\n";
}

void write_header(const Profile& p, std::ostream& out) {
  char line[512];
  const RecordingHeader& h = p.header;
  out << "swprof report: " << terminal_safe(p.source) << "\n";
  if (!h.command.empty()) out << "  command:   " << quote_command(h.command) << "\n";
  if (h.start_unix_ns) {
    out << "  recorded:  " << format_time(h.start_unix_ns);
    if (!h.host.empty()) out << " on " << terminal_safe(h.host);
    if (!h.kernel_release.empty()) out << " (Linux " << terminal_safe(h.kernel_release) << ")";
    out << "\n";
  }
  if (!h.event.empty()) {
    out << "  event:     " << terminal_safe(h.event);
    if (h.frequency) out << " at " << h.frequency << " Hz";
    else if (h.period) out << " every " << h.period;
    out << "\n";
  }
  snprintf(line, sizeof line, "  samples:   %" PRIu64 " in %.2f s", p.samples_read, p.duration_seconds());
  out << line;
  if (p.samples_kept != p.samples_read) out << ", " << p.samples_kept << " after filters";
  out << ", " << p.lost << " lost, " << p.threads.size() << (p.threads.size() == 1 ? " thread\n" : " threads\n");
  const UnwindStats& u = p.unwind;
  snprintf(line, sizeof line,
           "  unwind:    %.1f%% complete stacks, %.1f frames per sample, %" PRIu64 " guessed frames (%s)\n",
           percent(u.complete, u.unwindable()), u.samples ? static_cast<double>(u.frames) / static_cast<double>(u.samples) : 0.0,
           u.guessed_frames, p.unwinder == UnwinderChoice::kChain ? "stepper chain" : "libunwind");
  out << line;
  write_weight(p, out);
}

void write_top(const Profile& p, size_t top, std::ostream& out) {
  const CallTree& tree = p.tree;
  const Measure m(p);
  const auto totals = function_totals(p);
  std::vector<uint32_t> order(totals.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (m.self(totals[a]) != m.self(totals[b])) return m.self(totals[a]) > m.self(totals[b]);
    return m.total(totals[a]) > m.total(totals[b]);
  });
  out << (m.time ? "\nTop functions by self time:\n" : "\nTop functions by self samples:\n");
  out << (m.time ? "   Self%   Total%         Time  Function  [module]\n"
                 : "   Self%   Total%   Samples  Function  [module]\n");
  char line[128];
  size_t shown = 0;
  const uint64_t whole = m.whole(tree);
  for (uint32_t id : order) {
    if (shown == top || m.self(totals[id]) == 0) break;
    const CctFrame& f = tree.frame(id);
    if (f.flags & kCctThread) continue;
    if (m.time)
      snprintf(line, sizeof line, "  %6.2f  %7.2f  %11s  ", percent(m.self(totals[id]), whole),
               percent(m.total(totals[id]), whole), format_duration(totals[id].self_weight).c_str());
    else
      snprintf(line, sizeof line, "  %6.2f  %7.2f  %8" PRIu64 "  ", percent(totals[id].self, whole),
               percent(totals[id].total, whole), totals[id].self);
    out << line;
    write_frame(f, out);
    ++shown;
  }
  if (shown == 0) out << "  (no samples)\n";
}

void write_tree(const Profile& p, double min_percent, std::ostream& out) {
  const CallTree& tree = p.tree;
  const Measure m(p);
  const uint64_t whole = m.whole(tree);
  out << "\nCalling-context tree (total%, self%";
  if (min_percent > 0)
    out << "; nodes under " << plain_number(min_percent) << (m.time ? "% of the time hidden" : "% of samples hidden");
  out << "):\n";
  const double min_samples = min_percent / 100.0 * static_cast<double>(whole);
  struct Item {
    uint32_t node;
    uint32_t depth;
  };
  std::vector<Item> stack;
  char line[64];
  auto push_children = [&](uint32_t node, uint32_t depth) {
    std::vector<uint32_t> kids = tree.node(node).children;
    std::stable_sort(kids.begin(), kids.end(),
                     [&](uint32_t a, uint32_t b) { return m.total(tree.node(a)) > m.total(tree.node(b)); });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      if (static_cast<double>(m.total(tree.node(*it))) >= min_samples && m.total(tree.node(*it)) > 0)
        stack.push_back({*it, depth});
  };
  snprintf(line, sizeof line, "%7.2f%%  %6.2f%%  ", 100.0, percent(m.self(tree.node(CallTree::kRoot)), whole));
  out << line << "all\n";
  push_children(CallTree::kRoot, 1);
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(item.node);
    const CctFrame& f = tree.frame(n.frame);
    snprintf(line, sizeof line, "%7.2f%%  %6.2f%%  ", percent(m.total(n), whole), percent(m.self(n), whole));
    out << line << std::string(2 * item.depth, ' ');
    write_frame(f, out);
    push_children(item.node, item.depth + 1);
  }
}

}  // namespace

void write_text_report(const Profile& profile, const TextReportOptions& options, std::ostream& out) {
  write_header(profile, out);
  if (profile.tree.total() == 0) {
    out << "\nNo samples";
    out << (profile.samples_read ? " matched the filters.\n" : " in this recording.\n");
    return;
  }
  write_top(profile, options.top, out);
  write_tree(profile, options.min_percent, out);
}

}  // namespace swprof
