#include "symbolize/kernel_symbols.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace swprof {
namespace {

// The last symbol has no next one to end it; code past it this far still counts.
constexpr uint64_t kLastSymbolReach = 0x1000;

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view next_field(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  size_t j = i;
  while (j < s.size() && !is_blank(s[j])) ++j;
  std::string_view field = s.substr(i, j - i);
  s.remove_prefix(j);
  return field;
}

// The line at the start of `text`, removed from it.
std::string_view next_line(std::string_view& text) {
  const void* nl = std::memchr(text.data(), '\n', text.size());
  const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
  const std::string_view line = text.substr(0, end);
  text.remove_prefix(nl ? end + 1 : end);
  return line;
}

// The whole of `text` as a hexadecimal number (as std::from_chars reads it).
bool parse_hex(std::string_view text, uint64_t& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

bool is_text_type(char t) { return t == 't' || t == 'T' || t == 'w' || t == 'W'; }

}  // namespace

// Room for what parse() keeps of `text`: at most one entry per line, and
// names shorter than their lines (an address, a type and two blanks).
void KernelSymbols::reserve_for(std::string_view text) {
  size_t lines = 0;
  for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', text.data() + text.size() - p)));
       ++p)
    ++lines;
  symbols_.reserve(lines + 1);
  names_.reserve(text.size() > 19 * lines ? text.size() - 19 * lines : text.size());
}

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbols out;
  out.modules_.emplace_back("[kernel]");
  out.reserve_for(text);
  size_t lines = 0, zero = 0;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    const std::string_view addr_text = next_field(line);
    const std::string_view type = next_field(line);
    const std::string_view name = next_field(line);
    uint64_t addr = 0;
    if (!parse_hex(addr_text, addr) || type.size() != 1 || name.empty()) continue;
    ++lines;
    if (addr == 0) {
      ++zero;
      continue;
    }
    out.add(addr, type[0], name, next_field(line));
  }
  out.hidden_ = lines > 0 && zero == lines;
  out.finish();
  return out;
}

void KernelSymbols::add(uint64_t addr, char type, std::string_view name, std::string_view module) {
  if (type == 'a' || type == 'A' || type == 'U') return;  // not at an address of code or data
  const bool has_module = module.size() > 2 && module.front() == '[' && module.back() == ']';
  Symbol s{addr, kNoName, has_module ? module_id(module) : 0u};
  if (is_text_type(type)) {  // data symbols only end the text symbol before them
    s.name = static_cast<uint32_t>(names_.size());
    names_.append(name);
    names_.push_back('\0');
    has_text_ = true;
  }
  symbols_.push_back(s);
}

// A module's lines are consecutive in kallsyms: the last one is checked first.
uint32_t KernelSymbols::module_id(std::string_view module) {
  if (modules_.back() == module) return static_cast<uint32_t>(modules_.size() - 1);
  const auto it = std::find(modules_.begin(), modules_.end(), module);
  if (it != modules_.end()) return static_cast<uint32_t>(it - modules_.begin());
  modules_.emplace_back(module);
  return static_cast<uint32_t>(modules_.size() - 1);
}

// Sorts by address (at one address, a text symbol after any data symbol,
// so that it wins), then keeps only what find() can return: the last entry
// at each address, and of a run of data symbols the first (which ends the
// text symbol before it), besides the very last entry (which bounds the
// table).
void KernelSymbols::finish() {
  const auto before = [](const Symbol& a, const Symbol& b) {
    return a.addr != b.addr ? a.addr < b.addr : (a.name != kNoName) < (b.name != kNoName);
  };
  if (!std::is_sorted(symbols_.begin(), symbols_.end(), before))
    std::stable_sort(symbols_.begin(), symbols_.end(), before);
  size_t kept = 0;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const bool last = i + 1 == symbols_.size();
    if (!last && symbols_[i + 1].addr == symbols_[i].addr) continue;  // an earlier entry at the same address
    const bool data_after_data = kept > 0 && symbols_[i].name == kNoName && symbols_[kept - 1].name == kNoName;
    if (data_after_data && !last) continue;
    symbols_[kept++] = symbols_[i];
  }
  symbols_.resize(kept);
  symbols_.shrink_to_fit();
  names_.shrink_to_fit();
}

std::optional<KernelSymbols::Hit> KernelSymbols::find(uint64_t addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](uint64_t a, const Symbol& s) { return a < s.addr; });
  if (it == symbols_.begin()) return std::nullopt;
  if (it == symbols_.end() && addr - symbols_.back().addr >= kLastSymbolReach) return std::nullopt;
  --it;
  if (it->name == kNoName) return std::nullopt;
  return Hit{std::string_view(names_.data() + it->name), modules_[it->module], addr - it->addr};
}

}  // namespace swprof
