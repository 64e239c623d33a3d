// `swprof report --format text`.

#include "output/text_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>

#include "common/format.h"
#include "common/text_escape.h"
#include "output/text_width.h"
#include "profile/info.h"

namespace swprof {
namespace {

// What the percentages and the third column measure: samples in cpu
// profiles (a sample there is a fixed slice of time or events), nanoseconds
// in off-CPU and wall profiles (an off-CPU sample stands for a whole wait).
struct Measure {
  bool time;

  explicit Measure(const Profile& p) : time(p.weight_kind != WeightKind::kCpu) {}
  uint64_t self(const CctNode& n) const { return time ? n.self_weight : n.self; }
  uint64_t total(const CctNode& n) const { return time ? n.total_weight : n.total; }
  uint64_t whole(const CallTree& tree) const { return time ? tree.total_weight() : tree.total(); }
};

// Writes lines fitted into a width (0: no limit). Names and paths come from
// the profiled program: shown with terminal_safe.
class LineWriter {
 public:
  LineWriter(size_t width, std::ostream& out) : width_(width), out_(out) {}

  size_t width() const { return width_; }

  // A line of the header or of a table's head: cut at its end when too long.
  void text(const std::string& line) const { out_ << (width_ ? fit_end(line, width_) : line) << '\n'; }

  // A frame's line (frame_line).
  void frame(const std::string& lead, const CctFrame& f, const std::string& marks) const {
    out_ << frame_line(lead, f, marks, width_) << '\n';
  }

 private:
  size_t width_;
  std::ostream& out_;
};

// "  weight:    wall time (on-CPU 30.1 %, off-CPU 69.9 %)": only for
// profiles that weigh off-CPU time.
void write_weight(const Profile& p, const LineWriter& w) {
  if (p.weight_kind == WeightKind::kCpu) return;
  const uint64_t all = p.tree.total_weight(), off = p.tree.total_off_weight();
  char line[160];
  if (p.weight_kind == WeightKind::kOffCpu)
    snprintf(line, sizeof line, "  weight:    off-CPU time (%s, blocked or waiting)", format_duration(off).c_str());
  else
    snprintf(line, sizeof line, "  weight:    wall time %s (on-CPU %.1f %%, off-CPU %.1f %%)",
             format_duration(all).c_str(), percent(all - off, all), percent(off, all));
  w.text(line);
}

void write_header(const Profile& p, const LineWriter& w) {
  char line[512];
  const RecordingHeader& h = p.header;
  w.text("swprof report: " + terminal_safe(p.source));
  if (!h.command.empty()) w.text("  command:   " + quote_command(h.command));
  if (h.start_unix_ns) {
    std::string s = "  recorded:  " + format_time(h.start_unix_ns);
    if (!h.host.empty()) s += " on " + terminal_safe(h.host);
    if (!h.kernel_release.empty()) s += " (Linux " + terminal_safe(h.kernel_release) + ")";
    w.text(s);
  }
  if (!h.event.empty()) {
    std::string s = "  event:     " + terminal_safe(h.event);
    if (h.frequency) s += " at " + std::to_string(h.frequency) + " Hz";
    else if (h.period) s += " every " + std::to_string(h.period);
    w.text(s);
  }
  snprintf(line, sizeof line, "  samples:   %" PRIu64 " in %.2f s", p.samples_read, p.duration_seconds());
  std::string s = line;
  if (p.samples_kept != p.samples_read) s += ", " + std::to_string(p.samples_kept) + " after filters";
  s += ", " + std::to_string(p.lost) + " lost, " + std::to_string(p.threads.size()) +
       (p.threads.size() == 1 ? " thread" : " threads");
  w.text(s);
  const UnwindStats& u = p.unwind;
  snprintf(line, sizeof line, "  unwind:    %.1f%% complete stacks (%s)", percent(u.complete, u.unwindable()),
           p.unwinder == UnwinderChoice::kChain ? "stepper chain" : "libunwind");
  w.text(line);
  snprintf(line, sizeof line, "  frames:    %.1f per sample, %" PRIu64 " guessed",
           u.samples ? static_cast<double>(u.frames) / static_cast<double>(u.samples) : 0.0, u.guessed_frames);
  w.text(line);
  write_weight(p, w);
}

void write_top(const Profile& p, const TextReportOptions& o, const LineWriter& w) {
  const CallTree& tree = p.tree;
  const Measure m(p);
  const std::vector<FunctionRow> rows = function_table(p, o.inlined);
  std::vector<uint32_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0u);
  auto self = [&](uint32_t i) { return m.time ? rows[i].self_weight : rows[i].self; };
  auto total = [&](uint32_t i) { return m.time ? rows[i].total_weight : rows[i].total; };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (self(a) != self(b)) return self(a) > self(b);
    return total(a) > total(b);
  });
  w.text("");
  w.text(m.time ? "Top functions by self time:" : "Top functions by self samples:");
  w.text(m.time ? "   Self%   Total%         Time  Function  [module]" : "   Self%   Total%   Samples  Function  [module]");
  char line[128];
  size_t shown = 0;
  const uint64_t whole = m.whole(tree);
  for (uint32_t i : order) {
    if (shown == o.top || self(i) == 0) break;
    const FunctionRow& r = rows[i];
    if (m.time)
      snprintf(line, sizeof line, "  %6.2f  %7.2f  %11s  ", percent(self(i), whole), percent(total(i), whole),
               format_duration(r.self_weight).c_str());
    else
      snprintf(line, sizeof line, "  %6.2f  %7.2f  %8" PRIu64 "  ", percent(r.self, whole), percent(r.total, whole),
               r.self);
    const CctFrame& f = tree.frame(r.frame);
    w.frame(line, f, function_row_marks(r, f, m.time));
    ++shown;
  }
  if (shown == 0) w.text("  (no samples)");
}

// How deep the tree is indented: kIndentLevels, or fewer when a narrow width
// would leave a deep frame's name too little room (at 80 columns: 10).
size_t indent_levels(size_t width) {
  constexpr size_t kNumbers = 19, kNameRoom = 40;  // "%7.2f%%  %6.2f%%  ", and what a name should keep
  if (width == 0) return kIndentLevels;
  const size_t levels = width > kNumbers + kNameRoom ? (width - kNumbers - kNameRoom) / 2 : 0;
  return std::clamp<size_t>(levels, 2, kIndentLevels);
}

// Two spaces a level up to `levels`, then "[+N] " for the levels beyond.
std::string indentation(size_t depth, size_t levels) {
  if (depth <= levels) return std::string(2 * depth, ' ');
  return std::string(2 * levels, ' ') + "[+" + std::to_string(depth - levels) + "] ";
}

class TreeWriter {
 public:
  TreeWriter(const Profile& p, const TextReportOptions& o, const LineWriter& w)
      : tree_(p.tree),
        m_(p),
        whole_(m_.whole(tree_)),
        min_samples_(o.min_percent / 100.0 * static_cast<double>(whole_)),
        tree_depth_(o.tree_depth),
        levels_(indent_levels(w.width())),
        w_(w) {}

  void write() {
    char line[64];
    snprintf(line, sizeof line, "%7.2f%%  %6.2f%%  ", 100.0, percent(m_.self(tree_.node(CallTree::kRoot)), whole_));
    w_.text(std::string(line) + "all");
    push_children(CallTree::kRoot, 1);
    while (!stack_.empty()) {
      const Item item = stack_.back();
      stack_.pop_back();
      uint32_t last = item.node;
      const size_t calls = recursion_run(last);
      const CctNode& n = tree_.node(last);
      snprintf(line, sizeof line, "%7.2f%%  %6.2f%%  ", percent(m_.total(n), whole_), percent(m_.self(n), whole_));
      std::string marks = frame_marks(tree_.frame(n.frame));
      if (calls > 1) marks = " (\u00d7" + std::to_string(calls) + ")" + marks;
      w_.frame(line + indentation(item.depth, levels_), tree_.frame(n.frame), marks);
      if (item.depth == tree_depth_) write_folded(last, item.depth + 1);
      else push_children(last, item.depth + 1);
    }
  }

 private:
  struct Item {
    uint32_t node;
    uint32_t depth;
  };

  // Direct recursion from `node` on: while a node has no samples of its own
  // and one child, of the same frame, `node` moves to that child. Every call
  // of such a run has the same total, and the run's self samples and
  // callees are its last call's: one row ("name (×N)") shows it all.
  // Returns the calls in the run (1: none).
  size_t recursion_run(uint32_t& node) const {
    size_t calls = 1;
    for (;;) {
      const CctNode& n = tree_.node(node);
      if (n.children.size() != 1 || m_.self(n) != 0 || tree_.node(n.children[0]).frame != n.frame) return calls;
      node = n.children[0];
      ++calls;
    }
  }

  bool shown(uint32_t node) const {
    const uint64_t total = m_.total(tree_.node(node));
    return total > 0 && static_cast<double>(total) >= min_samples_;
  }

  void push_children(uint32_t node, uint32_t depth) {
    std::vector<uint32_t> kids = tree_.node(node).children;
    std::stable_sort(kids.begin(), kids.end(),
                     [&](uint32_t a, uint32_t b) { return m_.total(tree_.node(a)) > m_.total(tree_.node(b)); });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      if (shown(*it)) stack_.push_back({*it, depth});
  }

  // Levels of shown nodes below `node`.
  uint32_t height(uint32_t node) const {
    uint32_t deepest = 0;
    std::vector<Item> pending{{node, 0}};
    while (!pending.empty()) {
      const Item item = pending.back();
      pending.pop_back();
      deepest = std::max(deepest, item.depth);
      for (uint32_t c : tree_.node(item.node).children)
        if (shown(c)) pending.push_back({c, item.depth + 1});
    }
    return deepest;
  }

  // --tree-depth: the shown calls under `node` as one line, their share and
  // how many levels they hold.
  void write_folded(uint32_t node, uint32_t depth) {
    const uint32_t levels = height(node);
    if (levels == 0) return;
    const CctNode& n = tree_.node(node);
    char line[96];
    snprintf(line, sizeof line, "%7.2f%%           ", percent(m_.total(n) - m_.self(n), whole_));
    w_.text(line + indentation(depth, levels_) + "\u2026 " + std::to_string(levels) +
            (levels == 1 ? " more level" : " more levels"));
  }

  const CallTree& tree_;
  const Measure m_;
  const uint64_t whole_;
  const double min_samples_;
  const size_t tree_depth_;
  const size_t levels_;
  const LineWriter& w_;
  std::vector<Item> stack_;
};

void write_tree(const Profile& p, const TextReportOptions& o, const LineWriter& w) {
  const Measure m(p);
  std::string head = "Calling-context tree (total%, self%";
  if (o.min_percent > 0)
    head += "; nodes under " + plain_number(o.min_percent) + (m.time ? "% of the time hidden" : "% of samples hidden");
  w.text("");
  w.text(head + "):");
  TreeWriter(p, o, w).write();
}

}  // namespace

std::string frame_line(const std::string& lead, const CctFrame& f, const std::string& marks, size_t width) {
  constexpr size_t kNameColumns = 30;
  std::string name = terminal_safe(f.function);
  std::string module = "  " + terminal_safe(module_label(f.module));
  if (width) {
    const size_t fixed = display_width(lead) + display_width(marks);
    const size_t room = width > fixed ? width - fixed : 0;
    const size_t name_width = display_width(name);
    size_t module_width = display_width(module);
    if (name_width + module_width > room) {
      const bool named_in = !f.module.empty() && f.function.find(f.module) != std::string::npos;
      if (named_in || room < module_width + std::min(name_width, kNameColumns)) {
        module.clear();
        module_width = 0;
      }
      name = shorten_name(name, room - module_width);
    }
  }
  const std::string line = lead + name + module + marks;
  return width ? fit_end(line, width) : line;
}

std::string function_row_marks(const FunctionRow& r, const CctFrame& f, bool by_time) {
  const uint64_t self = by_time ? r.self_weight : r.self, inlined = by_time ? r.inlined_self_weight : r.inlined_self;
  if (inlined == 0 || inlined == self) return frame_marks(f);
  char share[32];
  snprintf(share, sizeof share, " (inlined %.0f%%)", std::clamp(percent(inlined, self), 1.0, 99.0));
  return share + frame_marks(f);
}

void write_text_report(const Profile& profile, const TextReportOptions& options, std::ostream& out) {
  const LineWriter w(options.width, out);
  write_header(profile, w);
  if (profile.tree.total() == 0) {
    w.text("");
    w.text(profile.samples_read ? "No samples matched the filters." : "No samples in this recording.");
    return;
  }
  write_top(profile, options, w);
  write_tree(profile, options, w);
}

}  // namespace swprof
