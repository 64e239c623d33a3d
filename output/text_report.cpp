// `swprof report --format text`.

#include "output/text_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>

#include "common/text_escape.h"
#include "profile/info.h"

namespace swprof {
namespace {

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
}

void write_top(const Profile& p, size_t top, std::ostream& out) {
  const CallTree& tree = p.tree;
  const auto totals = function_totals(p);
  std::vector<uint32_t> order(totals.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (totals[a].self != totals[b].self) return totals[a].self > totals[b].self;
    return totals[a].total > totals[b].total;
  });
  out << "\nTop functions by self samples:\n";
  out << "   Self%   Total%   Samples  Function  [module]\n";
  char line[128];
  size_t shown = 0;
  for (uint32_t id : order) {
    if (shown == top || totals[id].self == 0) break;
    const CctFrame& f = tree.frame(id);
    if (f.flags & kCctThread) continue;
    snprintf(line, sizeof line, "  %6.2f  %7.2f  %8" PRIu64 "  ", percent(totals[id].self, tree.total()),
             percent(totals[id].total, tree.total()), totals[id].self);
    out << line;
    write_frame(f, out);
    ++shown;
  }
  if (shown == 0) out << "  (no samples)\n";
}

void write_tree(const Profile& p, double min_percent, std::ostream& out) {
  const CallTree& tree = p.tree;
  char line[64];
  snprintf(line, sizeof line, "%.2g", min_percent);
  out << "\nCalling-context tree (total%, self%";
  if (min_percent > 0) out << "; nodes under " << line << "% of samples hidden";
  out << "):\n";
  const double min_samples = min_percent / 100.0 * static_cast<double>(tree.total());
  struct Item {
    uint32_t node;
    uint32_t depth;
  };
  std::vector<Item> stack;
  auto push_children = [&](uint32_t node, uint32_t depth) {
    std::vector<uint32_t> kids = tree.node(node).children;
    std::stable_sort(kids.begin(), kids.end(),
                     [&](uint32_t a, uint32_t b) { return tree.node(a).total > tree.node(b).total; });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      if (static_cast<double>(tree.node(*it).total) >= min_samples && tree.node(*it).total > 0)
        stack.push_back({*it, depth});
  };
  snprintf(line, sizeof line, "%7.2f%%  %6.2f%%  ", 100.0, percent(tree.node(CallTree::kRoot).self, tree.total()));
  out << line << "all\n";
  push_children(CallTree::kRoot, 1);
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(item.node);
    const CctFrame& f = tree.frame(n.frame);
    snprintf(line, sizeof line, "%7.2f%%  %6.2f%%  ", percent(n.total, tree.total()), percent(n.self, tree.total()));
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
