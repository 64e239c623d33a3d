#pragma once
// Kernel function symbols from /proc/kallsyms: "ADDRESS TYPE NAME" lines,
// with "\t[MODULE]" after the name for loadable modules. Without privilege
// (kernel.kptr_restrict) every address reads as 0: the table is then
// treated as unavailable, not as one big function at address 0.
//
// A whole kallsyms has ~120 k lines: the table keeps only what lookups
// need (16 bytes per range, the names of code symbols in one arena), and
// parsing walks the text once with memchr.

#include <cstdint>
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

  struct Hit {
    std::string_view name;
    std::string_view module;  // "[kernel]" or e.g. "[ext4]"
    uint64_t offset;          // addr - symbol address
  };
  // The text symbol whose range (up to the next symbol) holds addr.
  std::optional<Hit> find(uint64_t addr) const;

  bool available() const { return !symbols_.empty() && has_text_; }
  // Lines whose addresses were all zero: hidden from this user.
  bool hidden() const { return hidden_; }
  // Entries kept for lookups (ranges, not lines: aliases and runs of data
  // symbols collapse).
  size_t size() const { return symbols_.size(); }

 private:
  struct Symbol {
    uint64_t addr;
    uint32_t name;    // offset of a NUL-terminated name in names_, or kNoName for a data symbol
    uint32_t module;  // index into modules_
  };
  static constexpr uint32_t kNoName = ~uint32_t{0};
  void reserve_for(std::string_view text);
  void add(uint64_t addr, char type, std::string_view name, std::string_view module);
  uint32_t module_id(std::string_view module);
  void finish();

  std::vector<Symbol> symbols_;  // sorted by addr, one per address
  std::string names_;            // the names of text symbols, each ended by a NUL
  std::vector<std::string> modules_;
  bool has_text_ = false;
  bool hidden_ = false;
};

}  // namespace swprof
