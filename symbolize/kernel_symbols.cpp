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
constexpr std::string_view kKernelModule = "[kernel]";

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

// The linker's marks at the end of the kernel's text and init text: what
// lies at or past them is no function's, and the kernel's own lookup names
// nothing there (kallsyms lists them as text symbols all the same).
bool ends_kernel_text(const KernelSymbols::Hit& hit) {
  return hit.module == kKernelModule && (hit.name == "_etext" || hit.name == "_einittext");
}

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
  table_.modules_.emplace_back(kKernelModule);
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
// the first text symbol (else the first entry), and of a run of data symbols
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
// the first text symbol, else the first entry; the kernel's own lookup
// (kallsyms_lookup, what "%pS" prints) takes the first of the aliases in
// kallsyms' order too. Moves i past them.
KernelSymbols::Symbol KernelSymbols::chosen_at(size_t& i) const {
  const uint64_t addr = symbols_[i].addr;
  Symbol chosen = symbols_[i];
  for (; i < symbols_.size() && symbols_[i].addr == addr; ++i)
    if (symbols_[i].name != kNoName && chosen.name == kNoName) chosen = symbols_[i];
  return chosen;
}

// A kallsyms' own lines are "%016lx %c %s\n" (the kernel's own) or with
// "\t[%s]" after the name (a module's). The kernel's own lines, while they
// are in address order, are indexed where they start, one per address as
// finish() keeps them (the first text symbol, else a data symbol; lines of
// no address, types a, A and U, and zeroed addresses not at all); from the
// first line that is not one of them on, the text is parsed into the table.
KernelSymbols KernelSymbols::index(std::string text, const std::string& watch, std::optional<uint64_t>& watched) {
  auto owned = std::make_shared<const std::string>(std::move(text));
  const std::string_view view = *owned;
  return index(std::move(owned), view, watch, watched);
}

KernelSymbols KernelSymbols::index(std::shared_ptr<const void> owner, std::string_view text, const std::string& watch,
                                   std::optional<uint64_t>& watched) {
  KernelSymbols k;
  k.text_owner_ = std::move(owner);
  k.text_ = text;
  const char* const begin = k.text_.data();
  const char* const end = begin + k.text_.size();
  const char* p = begin;
  const auto name_char = [](char c) { return !is_blank(c) && c != '\n'; };
  bool ours = k.text_.size() <= UINT32_MAX;
  uint64_t last = 0;
  size_t lines = 0, zero = 0;
  bool core_text = false;
  std::optional<uint64_t> found;
  k.core_.reserve(k.text_.size() / 32);
  while (ours && p < end) {
    uint64_t addr = 0;
    if (end - p < 20 || p[16] != ' ' || !name_char(p[17]) || p[18] != ' ' || !name_char(p[19]) ||
        !parse_hex16(p, addr)) {
      ours = false;
      break;
    }
    const char* q = name_end(p + 19, end);
    if (q < end && *q != '\n') break;  // a module's line: the rest goes to the table
    const char type = p[17];
    const auto offset = static_cast<uint32_t>(p - begin);
    if (addr == 0) {
      ++zero;
    } else if (type != 'a' && type != 'A' && type != 'U') {
      if (addr < last) {
        ours = false;
        break;
      }
      if (k.core_.empty() || addr != last) k.core_.push_back(offset);
      else if (is_text_type(type) && !is_text_type(k.text_[k.core_.back() + 17])) k.core_.back() = offset;
      last = addr;
      core_text |= is_text_type(type);
    }
    ++lines;
    const std::string_view name(p + 19, static_cast<size_t>(q - (p + 19)));
    if (!found && !watch.empty() && name == watch) found = addr;
    p = q < end ? q + 1 : end;
  }
  if (!ours) {  // not as the kernel writes it: parsed whole
    KernelSymbolsParser parser(k.text_.size());
    parser.watch(watch);
    parser.add(k.text_);
    watched = parser.watched_address();
    return parser.finish();
  }
  KernelSymbolsParser rest(static_cast<uint64_t>(end - p));
  if (!found) rest.watch(watch);
  rest.add(std::string_view(p, static_cast<size_t>(end - p)));
  watched = found ? found : rest.watched_address();
  lines += rest.lines_;
  zero += rest.zero_;
  KernelSymbols table = rest.finish();
  k.symbols_ = std::move(table.symbols_);
  k.names_ = std::move(table.names_);
  k.modules_ = std::move(table.modules_);
  k.has_text_ = table.has_text_ || core_text;
  k.hidden_ = lines > 0 && zero == lines;
  k.core_.shrink_to_fit();
  return k;
}

uint64_t KernelSymbols::core_addr(size_t line) const {
  uint64_t addr = 0;
  parse_hex16(text_.data() + core_[line], addr);  // checked by index()
  return addr;
}

// The line at or below addr: a text symbol names it, a data symbol ends the
// range before it.
std::optional<KernelSymbols::CoreHit> KernelSymbols::core_find(uint64_t addr, bool& above) const {
  size_t lo = 0, hi = core_.size();  // the first line above addr
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (core_addr(mid) <= addr) lo = mid + 1;
    else hi = mid;
  }
  above = lo < core_.size();
  if (lo == 0) return std::nullopt;
  const uint32_t line = core_[lo - 1];
  const uint64_t at = core_addr(lo - 1);
  if (!is_text_type(text_[line + 17])) return CoreHit{at, std::nullopt};
  const char* name = text_.data() + line + 19;
  const size_t length = static_cast<size_t>(name_end(name, text_.data() + text_.size()) - name);
  return CoreHit{at, Hit{std::string_view(name, length), kKernelModule, addr - at}};
}

std::optional<KernelSymbols::CoreHit> KernelSymbols::table_find(uint64_t addr, bool& above) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](uint64_t a, const Symbol& s) { return a < s.addr; });
  above = it != symbols_.end();
  if (it == symbols_.begin()) return std::nullopt;
  --it;
  CoreHit out{it->addr, std::nullopt};
  if (it->name != kNoName) out.hit = Hit{std::string_view(names_.data() + it->name), modules_[it->module], addr - it->addr};
  return out;
}

// The nearer of the kernel's own lines' answer and the table's (at one
// address, a text symbol over a data one, as finish() chooses); past the
// last symbol of both, only within its reach.
std::optional<KernelSymbols::Hit> KernelSymbols::find(uint64_t addr) const {
  bool core_above = false, table_above = false;
  const std::optional<CoreHit> core = core_.empty() ? std::nullopt : core_find(addr, core_above);
  const std::optional<CoreHit> table = symbols_.empty() ? std::nullopt : table_find(addr, table_above);
  const bool core_nearer = core && (!table || core->addr > table->addr || (core->addr == table->addr && core->hit));
  const std::optional<CoreHit>& nearest = core_nearer || !table ? core : table;
  if (!nearest) return std::nullopt;
  if (!core_above && !table_above && addr - nearest->addr >= kLastSymbolReach) return std::nullopt;
  if (nearest->hit && ends_kernel_text(*nearest->hit)) return std::nullopt;
  return nearest->hit;
}

}  // namespace swprof
