// Draws a Browser as lines of text (tui/render.h).

#include "tui/render.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "common/format.h"
#include "common/text_escape.h"
#include "output/text_report.h"
#include "output/text_width.h"

namespace swprof::tui {
namespace {

constexpr const char* kEllipsis = "\u2026";
constexpr size_t kMinWidth = 20;
// "%7.2f%%  %6.2f%%  " before a tree row's indentation, and the columns a
// name should keep beside it.
constexpr size_t kTreeNumbers = 19, kNameRoom = 30;
// The fewest columns of a name the status line shows.
constexpr size_t kShortestName = 8;

// Text made fit for the screen in one charset.
class Painter {
 public:
  Painter(Charset charset, size_t width) : ascii_(charset == Charset::kAscii), width_(width) {}

  size_t width() const { return width_; }
  bool ascii() const { return ascii_; }

  // Text from the profiled program (or holding its names).
  std::string safe(std::string_view text) const { return ascii_ ? ascii_only(terminal_safe(text)) : terminal_safe(text); }
  // Text that is terminal_safe already.
  std::string cells(std::string_view text) const { return ascii_ ? ascii_only(text) : std::string(text); }
  // A frame whose name and module frame_line may show as they are.
  CctFrame frame(const CctFrame& f) const {
    CctFrame out = f;
    out.function = safe(f.function);
    out.module = safe(f.module);
    return out;
  }
  const char* node_mark(bool has_children, bool expanded) const {
    if (!has_children) return "  ";
    if (expanded) return ascii_ ? "- " : "\u25be ";
    return ascii_ ? "+ " : "\u25b8 ";
  }

  // `text` (safe already) cut or padded to the width.
  ScreenLine line(const std::string& text, LineStyle style) const {
    std::string fitted = fit_end(text, width_);
    fitted.append(width_ - std::min(width_, display_width(fitted)), ' ');
    if (ascii_) fitted = replace_ellipses(fitted);
    return {std::move(fitted), style};
  }

 private:
  // Bytes above 0x7f as \xNN (the text holds no control byte).
  static std::string ascii_only(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
      if (c < 0x80) {
        out += static_cast<char>(c);
      } else {
        char hex[8];
        snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      }
    }
    return out;
  }

  static std::string replace_ellipses(const std::string& text) {
    std::string out;
    const std::string_view ellipsis(kEllipsis);
    for (size_t i = 0; i < text.size();) {
      if (text.compare(i, ellipsis.size(), ellipsis) == 0) {
        out += '~';
        i += ellipsis.size();
      } else {
        out += text[i++];
      }
    }
    return out;
  }

  bool ascii_;
  size_t width_;
};

// `text` without its first `columns` display columns.
std::string skip_columns(const std::string& text, size_t columns) {
  size_t i = 0, skipped = 0;
  while (i < text.size() && skipped < columns) {
    const size_t length = std::max<size_t>(utf8_sequence_length(text, i), 1);
    skipped += display_width(std::string_view(text).substr(i, length));
    i += length;
  }
  return (skipped > columns ? " " : "") + text.substr(i);
}

std::string shares(double a, double b) {
  char buf[48];
  snprintf(buf, sizeof buf, "%7.2f%%  %6.2f%%  ", a, b);
  return buf;
}

// Two spaces a level up to the levels the width allows, then "[+N] " for
// the levels beyond.
std::string indentation(size_t depth, size_t width) {
  const size_t levels = std::clamp<size_t>(width > kTreeNumbers + kNameRoom + 2 ? (width - kTreeNumbers - kNameRoom - 2) / 2 : 0, 2, 16);
  if (depth <= levels) return std::string(2 * depth, ' ');
  return std::string(2 * levels, ' ') + "[+" + std::to_string(depth - levels) + "] ";
}

std::string function_row(const FunctionsPage& page, size_t i, const Measure& m, uint64_t whole, const Painter& p) {
  const FunctionRow& r = page.list().rows()[i];
  char lead[96];
  if (m.time)
    snprintf(lead, sizeof lead, "  %6.2f  %7.2f  %11s  ", percent(m.self(r), whole), percent(m.total(r), whole),
             format_duration(r.self_weight).c_str());
  else
    snprintf(lead, sizeof lead, "  %6.2f  %7.2f  %8" PRIu64 "  ", percent(r.self, whole), percent(r.total, whole), r.self);
  const CctFrame& f = page.list().frame(i);
  return frame_line(lead, p.frame(f), function_row_marks(r, f, m.time), p.width());
}

std::string tree_row(const TreePage& page, size_t i, const Measure& m, uint64_t whole, const Painter& p) {
  const Outline& outline = page.outline();
  const OutlineRow& row = outline.rows()[i];
  const CctNode& node = outline.node(row);
  std::string lead;
  if (page.shows_self(row)) {
    lead = shares(percent(m.total(node), whole), percent(m.self(node), whole));
  } else {
    char buf[48];
    snprintf(buf, sizeof buf, "%7.2f%%  %7s  ", percent(m.total(node), whole), "");
    lead = buf;
  }
  lead += indentation(row.depth, p.width()) + p.node_mark(outline.has_children(row), outline.expanded(row));
  const CctFrame& f = outline.tree(row.tree).frame(node.frame);
  std::string marks = frame_marks(f);
  if (row.depth == 0 && !page.caption(row.tree).empty()) marks += "  (" + page.caption(row.tree) + ")";
  return frame_line(lead, p.frame(f), marks, p.width());
}

std::string row_text(const Page& page, size_t i, const Measure& m, uint64_t whole, const Painter& p) {
  switch (page.kind()) {
    case PageKind::kFunctions: return function_row(static_cast<const FunctionsPage&>(page), i, m, whole, p);
    case PageKind::kTree: return tree_row(static_cast<const TreePage&>(page), i, m, whole, p);
    case PageKind::kText: {
      const auto& text = static_cast<const TextPage&>(page);
      return p.cells(skip_columns(text.lines()[i], text.column()));
    }
  }
  return "";
}

std::string heading(const Page& page, const Measure& m, const Painter& p) {
  switch (page.kind()) {
    case PageKind::kFunctions:
      return m.time ? "   Self%   Total%         Time  Function  [module]" : "   Self%   Total%   Samples  Function  [module]";
    case PageKind::kTree: return "  Total%    Self%  Function  [module]";
    case PageKind::kText: {
      const auto& text = static_cast<const TextPage&>(page);
      std::string h = p.safe(text.heading());
      if (text.column()) h += "  (from column " + std::to_string(text.column() + 1) + ")";
      return h;
    }
  }
  return "";
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string profile_totals(const Profile& profile, const Measure& m) {
  char buf[160];
  const size_t threads = profile.threads.size();
  if (m.time)
    snprintf(buf, sizeof buf, "%s %s time, %" PRIu64 " samples", format_duration(profile.tree.total_weight()).c_str(),
             profile.weight_kind == WeightKind::kOffCpu ? "off-CPU" : "wall", profile.tree.total());
  else
    snprintf(buf, sizeof buf, "%" PRIu64 " samples, %.2f s, %zu %s", profile.tree.total(), profile.duration_seconds(),
             threads, threads == 1 ? "thread" : "threads");
  return buf;
}

// The selection's name and share, then the profile's totals and the help
// key. The name comes first: the totals go when it would keep fewer than
// kNameRoom columns beside them, and the name itself when fewer than
// kShortestName.
std::string status(const Browser& b, const Measure& m, const Painter& p) {
  if (b.typing_search())
    return "/" + p.safe(b.search_text()) + (b.message().empty() ? "" : "   (" + p.safe(b.message()) + ")");
  if (!b.busy().empty()) return p.safe(b.busy());
  if (!b.message().empty()) return p.safe(b.message());
  const std::string help = "  |  ? help", with_totals = "  |  " + profile_totals(b.profile(), m) + help;
  const std::optional<Selection> s = b.page().selection();
  if (!s) return with_totals.substr(5);
  const uint64_t whole = m.whole(b.profile().tree);
  char share[64];
  if (s->self_known)
    snprintf(share, sizeof share, ": self %.1f%%, total %.1f%%", percent(s->self, whole), percent(s->total, whole));
  else
    snprintf(share, sizeof share, ": total %.1f%%", percent(s->total, whole));
  const std::string name = p.safe(b.profile().tree.frame(s->frame).function);
  const size_t name_width = display_width(name);
  auto room_beside = [&](const std::string& rest) {
    const size_t fixed = display_width(share) + display_width(rest);
    return p.width() > fixed ? p.width() - fixed : 0;
  };
  for (const std::string* rest : {&with_totals, &help}) {
    const size_t room = room_beside(*rest);
    if (room >= std::min(name_width, kNameRoom) || (rest == &help && room >= kShortestName))
      return shorten_name(name, room) + share + *rest;
  }
  return std::string(share + 2) + help;
}

}  // namespace

std::vector<ScreenLine> render(const Browser& b, Charset charset) {
  const size_t width = b.width(), height = b.height();
  const Painter p(charset, width);
  std::vector<ScreenLine> out;
  if (height <= Browser::kChromeLines || width < kMinWidth) {
    out.push_back(p.line("terminal too small", LineStyle::kNormal));
    while (out.size() < height) out.push_back(p.line("", LineStyle::kNormal));
    out.resize(height);
    return out;
  }
  const Page& page = b.page();
  const Measure m(b.profile());
  const uint64_t whole = m.whole(b.profile().tree);
  out.push_back(p.line(" " + p.safe(page.title()) + "  |  " + p.safe(basename_of(b.profile().source)), LineStyle::kTitle));
  out.push_back(p.line(heading(page, m, p), LineStyle::kHeading));
  const Cursor& c = page.cursor();
  for (size_t i = c.top(); out.size() < height - 1; ++i) {
    if (i < c.count())
      out.push_back(p.line(row_text(page, i, m, whole, p), i == c.selected() ? LineStyle::kSelected : LineStyle::kNormal));
    else if (i == 0)
      out.push_back(p.line(page.kind() == PageKind::kText ? "" : "  (no samples)", LineStyle::kNormal));
    else
      out.push_back(p.line("", LineStyle::kNormal));
  }
  out.push_back(p.line(status(b, m, p), LineStyle::kStatus));
  return out;
}

std::string screen_text(const std::vector<ScreenLine>& lines) {
  std::string out;
  for (const ScreenLine& l : lines) out += l.text + "\n";
  return out;
}

}  // namespace swprof::tui
