#include "output/folded_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <unordered_map>
#include <vector>

#include "common/error.h"

namespace swprof {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// A short, printable excerpt for an error message (which must stay one line).
std::string excerpt(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out;
  for (char c : s.substr(0, kMax)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > kMax) out += "...";
  return out;
}

// Text other than blanks that no folded stack holds: the C0 controls and DEL.
bool is_binary(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && !is_blank(c)) || u == 0x7f;
}

// The count at the end of a line of folded stacks, when it is one.
bool is_count(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Turns count text into whole samples, carrying rounding error between lines.
class CountParser {
 public:
  explicit CountParser(double scale) : scale_(scale) {}

  // False (with `problem` set) when the text is not a non-negative number.
  bool parse(std::string_view text, uint64_t& count, std::string& problem) {
    uint64_t whole = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
    if (ec == std::errc() && end == text.data() + text.size() && scale_ == 1.0) {
      count = whole;
      return true;
    }
    double value = 0;
    auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (dec != std::errc() || dend != text.data() + text.size() || !std::isfinite(value)) {
      problem = "bad sample count \"" + excerpt(text) + "\"";
      return false;
    }
    if (value < 0) {
      problem = "negative sample count \"" + excerpt(text) + "\"";
      return false;
    }
    exact_ += value * scale_;
    if (exact_ >= 0x1p63) {
      problem = "sample count too large \"" + excerpt(text) + "\"";
      return false;
    }
    const auto rounded = static_cast<uint64_t>(std::llround(exact_));
    count = rounded - emitted_;
    emitted_ = rounded;
    return true;
  }

 private:
  double scale_;
  double exact_ = 0;      // exact sum of the fractional-path counts so far
  uint64_t emitted_ = 0;  // whole samples given out for them
};

class FoldedReader {
 public:
  FoldedReader(const std::string& source, const FoldedReadOptions& options)
      : source_(source), counts_(options.scale) {
    if (!(options.scale > 0) || !std::isfinite(options.scale)) throw Error(source_ + ": the count scale must be a positive number");
  }

  void read(std::istream& in) {
    std::string line;
    uint64_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      read_line(line, number);
    }
    if (in.bad()) throw Error(source_ + ": read error");
  }

  CallTree take() { return std::move(tree_); }

 private:
  [[noreturn]] void fail(uint64_t line, const std::string& what) const {
    throw Error(source_ + ":" + std::to_string(line) + ": " + what);
  }

  void read_line(std::string_view line, uint64_t number) {
    line = trim(line);
    if (line.empty()) return;
    const size_t space = line.find_last_of(" \t");
    if (space == std::string_view::npos) {
      double ignored = 0;
      auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), ignored);
      if (ec == std::errc() && end == line.data() + line.size()) fail(number, "empty stack before the count");
      fail(number, "no sample count after the stack (expected \"frame;frame;... COUNT\")");
    }
    const std::string_view stack = trim(line.substr(0, space));
    const std::string_view count_text = line.substr(space + 1);
    uint64_t count = 0;
    std::string problem;
    if (!counts_.parse(count_text, count, problem)) fail(number, problem);
    if (stack.empty()) fail(number, "empty stack before the count");
    split_stack(stack, number);
    tree_.add(stack_, count, count);
  }

  void split_stack(std::string_view stack, uint64_t number) {
    stack_.clear();
    size_t start = 0;
    while (true) {
      const size_t semicolon = stack.find(';', start);
      const std::string_view text = stack.substr(start, semicolon == std::string_view::npos ? std::string_view::npos : semicolon - start);
      stack_.push_back(frame_index(text, number, stack_.size() + 1));
      if (semicolon == std::string_view::npos) break;
      start = semicolon + 1;
    }
  }

  uint32_t frame_index(std::string_view text, uint64_t number, size_t position) {
    if (auto it = frames_.find(text); it != frames_.end()) return it->second;
    const CctFrame frame = parse_folded_frame(text);
    // A function of blanks is empty too: it could not be written back (a
    // root or leaf frame's blanks are the line's, and are trimmed).
    if (trim(frame.function).empty()) fail(number, "empty frame " + std::to_string(position) + " in the stack");
    const uint32_t index = tree_.intern(frame);
    frames_.emplace(std::string(text), index);
    return index;
  }

  std::string source_;
  CountParser counts_;
  CallTree tree_;
  std::vector<uint32_t> stack_;
  std::unordered_map<std::string, uint32_t, TransparentHash, std::equal_to<>> frames_;  // frame text -> index
};

}  // namespace

std::string why_not_folded(std::string_view head, bool whole) {
  size_t start = 0;
  while (start < head.size() && is_blank(head[start])) ++start;
  const size_t newline = head.find('\n', start);
  const size_t end = newline == std::string_view::npos ? head.size() : newline;
  const std::string_view line = head.substr(start, end - start);
  if (std::any_of(line.begin(), line.end(), is_binary)) return "it holds binary data";
  if (line.empty() || (newline == std::string_view::npos && !whole)) return {};
  const std::string_view trimmed = trim(line);
  const size_t space = trimmed.find_last_of(" \t");
  if (space != std::string_view::npos && is_count(trimmed.substr(space + 1))) return {};
  return "its first line \"" + excerpt(trimmed) + "\" does not end with a sample count";
}

CctFrame parse_folded_frame(std::string_view text) {
  CctFrame frame;
  bool jit = false;
  // Annotation suffixes, last first: "_[x]".
  while (text.size() > 4 && text.substr(text.size() - 4, 2) == "_[" && text.back() == ']') {
    const char kind = text[text.size() - 2];
    if (kind == 'i')
      frame.flags |= kCctInline;
    else if (kind == 'k')
      frame.flags |= kCctKernel;
    else if (kind == 'g')
      frame.flags |= kCctGuess;
    else if (kind == 'j')
      jit = true;
    else
      break;
    text.remove_suffix(4);
  }
  const size_t tick = text.find('`');
  if (tick != std::string_view::npos && tick > 0) {
    frame.module = std::string(text.substr(0, tick));
    text.remove_prefix(tick + 1);
  }
  frame.function = std::string(text);
  if (frame.module.empty()) {
    if (jit)
      frame.module = "[jit]";
    else if (frame.flags & kCctKernel)
      frame.module = "[kernel]";
  }
  return frame;
}

CallTree read_folded(std::istream& in, const std::string& source_name, const FoldedReadOptions& options) {
  FoldedReader reader(source_name, options);
  reader.read(in);
  return reader.take();
}

CallTree read_folded_file(const std::string& path, const FoldedReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + errno_text(errno));
  return read_folded(in, path, options);
}

}  // namespace swprof
