#include "symbolize/perf_map.h"

#include <iterator>

namespace swprof {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view skip_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}

// A hex number at the start of `s` (optional 0x), consumed; nullopt when
// there is none or it does not fit in 64 bits.
std::optional<uint64_t> take_hex(std::string_view& s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  uint64_t value = 0;
  size_t digits = 0;
  while (digits < s.size()) {
    const char c = s[digits];
    unsigned d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else break;
    if (value >> 60) return std::nullopt;  // a 17th significant digit
    value = value << 4 | d;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  s.remove_prefix(digits);
  return value;
}

}  // namespace

std::optional<PerfMapEntry> parse_perf_map_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view rest = line;
  auto start = take_hex(rest);
  if (!start || rest.empty() || !is_blank(rest.front())) return std::nullopt;
  rest = skip_blanks(rest);
  auto size = take_hex(rest);
  if (!size || rest.empty() || !is_blank(rest.front())) return std::nullopt;
  rest = skip_blanks(rest);
  while (!rest.empty() && is_blank(rest.back())) rest.remove_suffix(1);
  if (rest.empty() || *size == 0 || *start + *size < *start) return std::nullopt;
  return PerfMapEntry{*start, *size, std::string(rest)};
}

PerfMap PerfMap::parse(std::string_view text) {
  PerfMap map;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (skip_blanks(line).empty()) continue;
    auto entry = parse_perf_map_line(line);
    if (!entry) {
      ++map.malformed_;
      continue;
    }
    map.names_.push_back(std::move(entry->name));
    map.add(entry->start, entry->start + entry->size, &map.names_.back(), entry->start);
  }
  return map;
}

void PerfMap::add(uint64_t start, uint64_t end, const std::string* name, uint64_t function_start) {
  // Trim every range overlapping [start, end), keeping the parts outside it.
  auto it = ranges_.lower_bound(start);
  if (it != ranges_.begin() && std::prev(it)->second.end > start) --it;
  while (it != ranges_.end() && it->first < end) {
    const uint64_t old_start = it->first;
    const Range old = it->second;
    it = ranges_.erase(it);
    if (old_start < start) ranges_.emplace(old_start, Range{start, old.function_start, old.name});
    if (old.end > end) ranges_.emplace(end, Range{old.end, old.function_start, old.name});
  }
  ranges_.emplace(start, Range{end, function_start, name});
}

std::optional<PerfMap::Hit> PerfMap::find(uint64_t addr) const {
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  if (addr >= it->second.end) return std::nullopt;
  return Hit{it->second.name, it->second.function_start};
}

}  // namespace swprof
