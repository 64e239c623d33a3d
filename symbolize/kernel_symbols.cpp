#include "symbolize/kernel_symbols.h"

#include <algorithm>
#include <array>
#include <bit>
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

// The value of each hexadecimal digit, -1 for other characters.
constexpr std::array<int8_t, 256> kHexDigits = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<int8_t>(c);
  for (int c = 0; c < 6; ++c) t['a' + c] = t['A' + c] = static_cast<int8_t>(10 + c);
  return t;
}();

// The 16 hexadecimal digits at `p` (how kallsyms writes a 64-bit address).
bool parse_hex16(const char* p, uint64_t& value) {
  uint64_t v = 0;
  int8_t bad = 0;
  for (int i = 0; i < 16; ++i) {
    const int8_t d = kHexDigits[static_cast<uint8_t>(p[i])];
    bad |= d;  // negative once any is
    v = v << 4 | static_cast<uint64_t>(d & 0xf);
  }
  value = v;
  return bad >= 0;
}

// Where the name starting at p ends: the first blank or newline, else end.
// Eight bytes at a time: a word holds a byte below 0x21 (blanks and newline
// are) when (w - 0x21..21) & ~w & 0x80..80 is not 0, and its lowest set bit
// is in the first such byte.
const char* name_end(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t low = (w - 0x21 * kOnes) & ~w & kHighs;
    if (low == 0) {
      p += 8;
      continue;
    }
    p += std::countr_zero(low) / 8;
    if (is_blank(*p) || *p == '\n') return p;
    ++p;  // another control character: part of the name
  }
  while (p < end && !is_blank(*p) && *p != '\n') ++p;
  return p;
}

}  // namespace

// Room for the lines of a text of `size_hint` bytes (kallsyms' lines
// average more than 32 bytes), and for their names (a line spends 19 bytes
// on the address, type and blanks besides its name: at least 3/8 of it).
KernelSymbolsParser::KernelSymbolsParser(uint64_t size_hint) {
  table_.modules_.emplace_back("[kernel]");
  table_.symbols_.reserve(size_hint / 32 + 1);
  table_.names_.reserve(size_hint / 8 * 5);
}

void KernelSymbolsParser::add(std::string_view lines) {
  for (const char *p = lines.data(), *end = p + lines.size(); p < end;) p = table_.add_line_at(p, end, lines_, zero_);
}

KernelSymbols KernelSymbolsParser::finish() {
  table_.hidden_ = lines_ > 0 && zero_ == lines_;
  table_.finish();
  return std::move(table_);
}

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbolsParser parser(text.size());
  parser.add(text);
  return parser.finish();
}

// The line at p, in kallsyms' own layout ("%016lx %c %s", then "\t[%s]"
// for a module's symbol), read in one pass; any other line as add_line
// reads it. Returns where the next line starts.
const char* KernelSymbols::add_line_at(const char* p, const char* end, size_t& lines, size_t& zero) {
  uint64_t addr = 0;
  const auto name_char = [](char c) { return !is_blank(c) && c != '\n'; };
  if (end - p < 20 || p[16] != ' ' || !name_char(p[17]) || p[18] != ' ' || !name_char(p[19]) ||
      !parse_hex16(p, addr)) {
    std::string_view text(p, static_cast<size_t>(end - p));
    lines += add_line(next_line(text), zero);
    return text.data();
  }
  const char* q = name_end(p + 19, end);
  const std::string_view name(p + 19, static_cast<size_t>(q - (p + 19)));
  std::string_view rest;
  if (q < end && *q != '\n') {
    const void* nl = std::memchr(q, '\n', static_cast<size_t>(end - q));
    rest = std::string_view(q, static_cast<size_t>((nl ? static_cast<const char*>(nl) : end) - q));
  }
  const char* next = q + rest.size();
  ++lines;
  add_parsed(addr, p[17], name, next_field(rest), zero);
  return next < end ? next + 1 : end;
}

bool KernelSymbols::add_line(std::string_view line, size_t& zero) {
  uint64_t addr = 0;
  std::string_view rest = line;
  const std::string_view addr_text = next_field(rest);
  const std::string_view type = next_field(rest);
  if (!parse_hex(addr_text, addr) || type.size() != 1) return false;
  const std::string_view name = next_field(rest);
  if (name.empty()) return false;
  add_parsed(addr, type[0], name, next_field(rest), zero);
  return true;
}

void KernelSymbols::add_parsed(uint64_t addr, char type, std::string_view name, std::string_view module,
                               size_t& zero) {
  if (!watched_ && module.empty() && name == watch_name_) watched_ = addr;
  if (addr == 0) ++zero;
  else add(addr, type, name, module);
}

void KernelSymbols::keep_modules_within(const std::vector<ModuleRange>& loaded) {
  std::vector<std::vector<const ModuleRange*>> ranges(modules_.size());  // by module id
  for (const ModuleRange& m : loaded)
    for (size_t id = 1; id < modules_.size(); ++id)
      if (modules_[id] == m.module) ranges[id].push_back(&m);
  for (Symbol& s : symbols_) {
    if (s.module == 0 || s.name == kNoName) continue;
    const auto& in = ranges[s.module];
    const bool inside =
        std::any_of(in.begin(), in.end(), [&](const ModuleRange* m) { return s.addr >= m->start && s.addr < m->end; });
    if (!inside) s.name = kNoName;
  }
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

// Sorts by address when the text is not (stably: at one address the lines
// keep their order), then keeps only what find() can return: at each address
// the last text symbol (else the last entry), and of a run of data symbols
// the first (which ends the text symbol before it), besides the very last
// entry (which bounds the table).
void KernelSymbols::finish() {
  const auto by_address = [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; };
  if (!std::is_sorted(symbols_.begin(), symbols_.end(), by_address))
    std::stable_sort(symbols_.begin(), symbols_.end(), by_address);
  size_t kept = 0;
  for (size_t i = 0; i < symbols_.size();) {
    const Symbol s = chosen_at(i);
    const bool last = i == symbols_.size();
    const bool data_after_data = kept > 0 && s.name == kNoName && symbols_[kept - 1].name == kNoName;
    if (data_after_data && !last) continue;
    symbols_[kept++] = s;
  }
  symbols_.resize(kept);
  symbols_.shrink_to_fit();
  names_.shrink_to_fit();
}

// Of the entries at the address of symbols_[i], the one find() is to see:
// the last text symbol, else the last entry. Moves i past them.
KernelSymbols::Symbol KernelSymbols::chosen_at(size_t& i) const {
  const uint64_t addr = symbols_[i].addr;
  Symbol chosen = symbols_[i];
  for (; i < symbols_.size() && symbols_[i].addr == addr; ++i)
    if (symbols_[i].name != kNoName || chosen.name == kNoName) chosen = symbols_[i];
  return chosen;
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
