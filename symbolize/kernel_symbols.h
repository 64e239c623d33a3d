#pragma once
// Kernel function symbols from /proc/kallsyms: "ADDRESS TYPE NAME" lines,
// with "\t[MODULE]" after the name for loadable modules. Without privilege
// (kernel.kptr_restrict) every address reads as 0: the table is then
// treated as unavailable, not as one big function at address 0.
//
// A whole kallsyms has ~120 k lines: the table keeps only what lookups
// need (16 bytes per range, the names of code symbols in one arena), and
// parsing reads kallsyms' own line layout in one pass, without a sort when
// the lines come in address order (as the kernel writes them).
//
// A report looks up a few hundred kernel addresses at most: index() keeps a
// whole kallsyms text as it is and reads the kernel's own lines (those
// before the first module's, in address order as scripts/kallsyms sorts
// them) only where a binary search over their starts lands; what follows
// them (modules, BPF, ftrace trampolines) is parsed into the table. Both
// answer every address alike.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace swprof {

class KernelSymbols {
 public:
  // The symbols of `text`: text ones (types t, T, w, W) name code, the
  // others only end the range of the text symbol before them. Malformed
  // lines are skipped.
  static KernelSymbols parse(std::string_view text);
  // The symbols of the whole text of a kallsyms, kept as it is (see above);
  // a text whose own kernel lines are not in kallsyms' layout or address
  // order is parsed whole. `watch`, `watched`: as KernelSymbolsParser::watch
  // and watched_address().
  // The text is kept by `owner` (a file's FileText); or by the table itself.
  static KernelSymbols index(std::shared_ptr<const void> owner, std::string_view text, const std::string& watch,
                             std::optional<uint64_t>& watched);
  static KernelSymbols index(std::string text, const std::string& watch, std::optional<uint64_t>& watched);

  struct Hit {
    std::string_view name;
    std::string_view module;  // "[kernel]" or e.g. "[ext4]"
    uint64_t offset;          // addr - symbol address
  };
  // The text symbol whose range (up to the next symbol) holds addr.
  std::optional<Hit> find(uint64_t addr) const;

  struct ModuleRange {
    std::string_view module;  // "[ext4]"
    uint64_t start, end;
  };
  // Forgets the symbols of modules outside `loaded` (a module's symbols
  // outside its own range there): addresses there are then no symbol's,
  // never named with another layout's symbols.
  void keep_modules_within(const std::vector<ModuleRange>& loaded);

  bool available() const { return (!symbols_.empty() || !core_.empty()) && has_text_; }
  // Lines whose addresses were all zero: hidden from this user.
  bool hidden() const { return hidden_; }
  // Entries kept for lookups (ranges, not lines: aliases and runs of data
  // symbols collapse; an index()ed text's own kernel lines, one per address).
  size_t size() const { return symbols_.size() + core_.size(); }

 private:
  friend class KernelSymbolsParser;
  struct Symbol {
    uint64_t addr;
    uint32_t name;    // offset of a NUL-terminated name in names_, or kNoName for a data symbol
    uint32_t module;  // index into modules_
  };
  static constexpr uint32_t kNoName = ~uint32_t{0};
  // The line at p, read in one pass when in kallsyms' own layout; where the next starts.
  const char* add_line_at(const char* p, const char* end, size_t& lines, size_t& zero);
  // One line: false when it is no "ADDRESS TYPE NAME" line.
  bool add_line(std::string_view line, size_t& zero);
  void add_parsed(uint64_t addr, char type, std::string_view name, std::string_view module, size_t& zero);
  void add(uint64_t addr, char type, std::string_view name, std::string_view module);
  uint32_t module_id(std::string_view module);
  void finish();
  Symbol chosen_at(size_t& i) const;
  // The kernel's own lines of an index()ed text.
  struct CoreHit {
    uint64_t addr = 0;
    std::optional<Hit> hit;  // none: a data symbol ends the range there
  };
  uint64_t core_addr(size_t line) const;
  // The nearest of the lines at or below addr that names or ends a range.
  std::optional<CoreHit> core_find(uint64_t addr, bool& above) const;
  // The table's entry for addr: its address and hit, as core_find.
  std::optional<CoreHit> table_find(uint64_t addr, bool& above) const;

  std::vector<Symbol> symbols_;  // sorted by addr, one per address
  std::string names_;            // the names of text symbols, each ended by a NUL
  std::vector<std::string> modules_;
  bool has_text_ = false;
  bool hidden_ = false;
  std::string watch_name_;  // KernelSymbolsParser::watch
  std::optional<uint64_t> watched_;
  std::shared_ptr<const void> text_owner_;  // index(): keeps text_
  std::string_view text_;                   // index(): the whole text
  std::vector<uint32_t> core_;  // index(): where the kernel's own lines start in text_, one per address, in order
};

// Builds a KernelSymbols from a text given a piece at a time (whole lines).
// KernelSymbols::parse(text) is KernelSymbolsParser(text.size()),
// add(text), finish(); index() parses the lines after the kernel's own so.
class KernelSymbolsParser {
 public:
  // `size_hint`: about how long the text is (room is made for its lines).
  explicit KernelSymbolsParser(uint64_t size_hint);
  // Whole lines (the text's last line may lack its newline).
  void add(std::string_view lines);
  // The address of the kernel's own (not a module's) symbol `name`, as the
  // lines added after this call give it (the first of them): what tells
  // which boot a kallsyms is of.
  void watch(std::string name) { table_.watch_name_ = std::move(name); }
  std::optional<uint64_t> watched_address() const { return table_.watched_; }
  KernelSymbols finish();

 private:
  friend class KernelSymbols;
  KernelSymbols table_;
  size_t lines_ = 0, zero_ = 0;
};

}  // namespace swprof
