// Display widths and shortened names for the text report (output/text_width.h).

#include "output/text_width.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace swprof {
namespace {

constexpr std::string_view kEllipsis = "\u2026";  // "…", one column

// One UTF-8 character: its code point (U+FFFD for a byte that starts no
// valid sequence) and its length in bytes (at least 1).
struct Char {
  uint32_t code;
  size_t bytes;
};

Char decode(std::string_view s, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b = byte(at);
  const size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (n == 0 || at + n > s.size()) return {0xfffd, 1};  // n == 0 only for a byte >= 0x80
  uint32_t code = n == 1 ? b : b & (0x7f >> n);
  for (size_t i = 1; i < n; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return {0xfffd, 1};
    code = code << 6 | (byte(at + i) & 0x3f);
  }
  return {code, n};
}

struct Range {
  uint32_t first, last;
};

bool in(uint32_t code, std::initializer_list<Range> ranges) {
  return std::any_of(ranges.begin(), ranges.end(), [&](Range r) { return code >= r.first && code <= r.last; });
}

// After Markus Kuhn's wcwidth: the common zero-width and double-width blocks.
size_t columns_of(uint32_t code) {
  if (in(code, {{0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff},
                {0x200b, 0x200f}, {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}}))
    return 0;
  if (in(code, {{0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
                {0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f}, {0xff00, 0xff60},
                {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd}}))
    return 2;
  return 1;
}

// The longest start of `s` in at most `columns` columns, in bytes.
size_t head_bytes(std::string_view s, size_t columns) {
  size_t at = 0, used = 0;
  while (at < s.size()) {
    const Char c = decode(s, at);
    const size_t w = columns_of(c.code);
    if (used + w > columns) break;
    used += w;
    at += c.bytes;
  }
  return at;
}

// The longest end of `s` in at most `columns` columns, as the byte offset
// where it starts (on a character boundary).
size_t tail_start(std::string_view s, size_t columns) {
  size_t used = 0, start = s.size();
  while (start > 0) {
    size_t at = start - 1;  // back to the lead byte of the character before `start`
    while (at > 0 && start - at < 4 && (static_cast<unsigned char>(s[at]) & 0xc0) == 0x80) --at;
    const Char c = decode(s, at);
    if (at + c.bytes != start) at = start - 1;  // no character ends there: a byte of its own
    const size_t w = at + c.bytes == start ? columns_of(c.code) : 1;
    if (used + w > columns) break;
    used += w;
    start = at;
  }
  return start;
}

// [open, close] byte offsets of a bracketed group.
struct Group {
  size_t open, close;
};

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Where the operator symbol after "operator" at `at` ends: "operator<<" and
// "operator->" hold no template brackets. `at` itself when there is none.
size_t skip_operator(std::string_view s, size_t at) {
  constexpr std::string_view kOperator = "operator";
  if (s.substr(at, kOperator.size()) != kOperator || (at > 0 && is_identifier_char(s[at - 1]))) return at;
  size_t end = at + kOperator.size();
  while (end < s.size() && std::string_view("<>=-").find(s[end]) != std::string_view::npos) ++end;
  return end;
}

// The outermost groups of `open`...`close` in `s`, or nullopt when they do
// not balance (a name this reader does not understand: left alone).
std::optional<std::vector<Group>> outer_groups(std::string_view s, char open, char close) {
  std::vector<Group> groups;
  size_t depth = 0, start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (const size_t past = skip_operator(s, i); past != i) {
      i = past - 1;
      continue;
    }
    if (s[i] == open) {
      if (depth++ == 0) start = i;
    } else if (s[i] == close && !(close == '>' && i > 0 && s[i - 1] == '-')) {
      if (depth == 0) return std::nullopt;
      if (--depth == 0) groups.push_back({start, i});
    }
  }
  if (depth != 0) return std::nullopt;
  return groups;
}

std::string_view inside(std::string_view s, Group g) { return s.substr(g.open + 1, g.close - g.open - 1); }

// `s` with the inside of each group of `chosen` (sorted, disjoint) replaced by "…".
std::string collapse(std::string_view s, std::vector<Group> chosen) {
  std::sort(chosen.begin(), chosen.end(), [](Group a, Group b) { return a.open < b.open; });
  std::string out;
  size_t at = 0;
  for (Group g : chosen) {
    out.append(s.substr(at, g.open + 1 - at)).append(kEllipsis);
    at = g.close;
  }
  out.append(s.substr(at));
  return out;
}

// Step 1: the largest outermost template argument lists become "<…>" until
// the name fits or none is left.
std::string collapse_templates(std::string_view name, size_t columns) {
  const auto groups = outer_groups(name, '<', '>');
  if (!groups) return std::string(name);
  struct Candidate {
    Group group;
    size_t saved;  // columns saved by collapsing it
  };
  std::vector<Candidate> candidates;
  for (Group g : *groups)
    if (const size_t w = display_width(inside(name, g)); w > 1) candidates.push_back({g, w - 1});
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.saved > b.saved; });
  size_t width = display_width(name);
  std::vector<Group> chosen;
  for (const Candidate& c : candidates) {
    if (width <= columns) break;
    chosen.push_back(c.group);
    width -= c.saved;
  }
  return collapse(name, chosen);
}

// Step 2: the last outermost non-empty parenthesized group, the function's
// argument list ("(anonymous namespace)" is a scope), becomes "(…)".
std::string collapse_arguments(std::string_view name) {
  const auto groups = outer_groups(name, '(', ')');
  if (!groups) return std::string(name);
  for (auto it = groups->rbegin(); it != groups->rend(); ++it) {
    const std::string_view args = inside(name, *it);
    if (args.empty() || args == kEllipsis || args == "anonymous namespace") continue;
    return collapse(name, {*it});
  }
  return std::string(name);
}

// Step 3: "start…end", a third of the room for the start.
std::string cut_middle(std::string_view name, size_t columns) {
  const size_t room = columns - 1;  // the ellipsis takes one
  const size_t head = head_bytes(name, room / 3);
  const size_t head_columns = display_width(name.substr(0, head));
  const size_t tail = tail_start(name.substr(head), room - head_columns) + head;
  std::string out(name.substr(0, head));
  out.append(kEllipsis).append(name.substr(tail));
  return out;
}

}  // namespace

size_t display_width(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return text.size();
  size_t width = 0;
  for (size_t at = 0; at < text.size();) {
    const Char c = decode(text, at);
    width += columns_of(c.code);
    at += c.bytes;
  }
  return width;
}

std::string fit_end(std::string_view text, size_t columns) {
  if (display_width(text) <= columns) return std::string(text);
  if (columns == 0) return "";
  std::string out(text.substr(0, head_bytes(text, columns - 1)));
  return out.append(kEllipsis);
}

std::string shorten_name(std::string_view name, size_t columns) {
  if (display_width(name) <= columns) return std::string(name);
  if (columns == 0) return "";
  std::string s = collapse_templates(name, columns);
  if (display_width(s) <= columns) return s;
  s = collapse_arguments(s);
  if (display_width(s) <= columns) return s;
  return cut_middle(s, columns);
}

}  // namespace swprof
