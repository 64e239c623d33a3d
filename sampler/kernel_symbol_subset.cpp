#include "sampler/kernel_symbol_subset.h"

#include <algorithm>
#include <charconv>
#include <vector>

namespace swprof {
namespace {

struct Line {
  uint64_t addr;
  bool text;  // names code (types t, T, w, W): it holds addresses; other symbols only end one
  std::string_view line;
};

// The lines of kallsyms with a nonzero address, in address order (at one
// address, code symbols after the others, as KernelSymbols orders them).
std::vector<Line> address_lines(std::string_view text) {
  std::vector<Line> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    uint64_t addr = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), addr, 16);
    if (ec != std::errc() || addr == 0 || end + 2 >= line.data() + line.size() || *end != ' ') continue;
    const char type = end[1];
    if (type == 'a' || type == 'A' || type == 'U') continue;  // at no address of code or data
    out.push_back({addr, type == 't' || type == 'T' || type == 'w' || type == 'W', line});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Line& a, const Line& b) { return a.addr != b.addr ? a.addr < b.addr : a.text < b.text; });
  return out;
}

}  // namespace

std::string kallsyms_subset(std::string_view kallsyms, const std::unordered_set<uint64_t>& addrs) {
  const std::vector<Line> lines = address_lines(kallsyms);
  std::vector<size_t> keep;  // indexes into lines
  for (uint64_t addr : addrs) {
    auto it = std::upper_bound(lines.begin(), lines.end(), addr, [](uint64_t a, const Line& l) { return a < l.addr; });
    if (it == lines.begin()) continue;
    const size_t holder = static_cast<size_t>(it - lines.begin()) - 1;
    keep.push_back(holder);
    // The symbols at the holder's address (aliases, a data symbol it wins
    // over) keep the same order; the next address ends its range.
    for (size_t i = holder; i-- > 0 && lines[i].addr == lines[holder].addr;) keep.push_back(i);
    if (it != lines.end()) keep.push_back(static_cast<size_t>(it - lines.begin()));
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  std::string out;
  for (size_t i : keep) {
    out.append(lines[i].line);
    out.push_back('\n');
  }
  return out;
}

}  // namespace swprof
