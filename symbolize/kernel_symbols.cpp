#include "symbolize/kernel_symbols.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

namespace swprof {
namespace {

// The last symbol has no next one to end it; code past it this far still counts.
constexpr uint64_t kLastSymbolReach = 0x1000;
constexpr uint32_t kNoName = ~uint32_t{0};

std::string_view next_field(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  size_t j = i;
  while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
  std::string_view field = s.substr(i, j - i);
  s.remove_prefix(j);
  return field;
}

}  // namespace

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbols out;
  std::unordered_map<std::string, uint32_t> module_ids;
  auto module_id = [&](std::string_view name) {
    auto [it, added] = module_ids.emplace(std::string(name), static_cast<uint32_t>(out.modules_.size()));
    if (added) out.modules_.emplace_back(name);
    return it->second;
  };
  module_id("[kernel]");
  size_t lines = 0, zero = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const std::string_view addr_text = next_field(line);
    const std::string_view type = next_field(line);
    const std::string_view name = next_field(line);
    const std::string_view module = next_field(line);
    uint64_t addr = 0;
    auto [end, ec] = std::from_chars(addr_text.data(), addr_text.data() + addr_text.size(), addr, 16);
    if (ec != std::errc() || end != addr_text.data() + addr_text.size() || type.size() != 1 || name.empty()) continue;
    ++lines;
    if (addr == 0) {
      ++zero;
      continue;
    }
    const char t = type[0];
    if (t == 'a' || t == 'A' || t == 'U') continue;  // not at an address of code or data
    const bool is_text = t == 't' || t == 'T' || t == 'w' || t == 'W';
    const bool has_module = module.size() > 2 && module.front() == '[' && module.back() == ']';
    uint32_t name_index = kNoName;  // data symbols only end the text symbol before them
    if (is_text) {
      out.names_.emplace_back(name);
      name_index = static_cast<uint32_t>(out.names_.size() - 1);
    }
    out.symbols_.push_back({addr, name_index, has_module ? module_id(module) : 0});
  }
  out.hidden_ = lines > 0 && zero == lines;
  // At one address, a text symbol after any data symbol, so that it wins.
  std::stable_sort(out.symbols_.begin(), out.symbols_.end(), [](const Symbol& a, const Symbol& b) {
    return a.addr != b.addr ? a.addr < b.addr : (a.name != kNoName) < (b.name != kNoName);
  });
  return out;
}

std::optional<KernelSymbols::Hit> KernelSymbols::find(uint64_t addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](uint64_t a, const Symbol& s) { return a < s.addr; });
  if (it == symbols_.begin()) return std::nullopt;
  if (it == symbols_.end() && addr - symbols_.back().addr >= kLastSymbolReach) return std::nullopt;
  --it;
  if (it->name == kNoName) return std::nullopt;
  return Hit{&names_[it->name], &modules_[it->module], addr - it->addr};
}

}  // namespace swprof
