#pragma once
// Kernel function symbols from /proc/kallsyms: "ADDRESS TYPE NAME" lines,
// with "\t[MODULE]" after the name for loadable modules. Without privilege
// (kernel.kptr_restrict) every address reads as 0: the table is then
// treated as unavailable, not as one big function at address 0.

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
    const std::string* name;
    const std::string* module;  // "[kernel]" or e.g. "[ext4]"
    uint64_t offset;            // addr - symbol address
  };
  // The text symbol whose range (up to the next symbol) holds addr.
  std::optional<Hit> find(uint64_t addr) const;

  bool available() const { return !names_.empty(); }
  // Lines whose addresses were all zero: hidden from this user.
  bool hidden() const { return hidden_; }

 private:
  struct Symbol {
    uint64_t addr;
    uint32_t name;    // index into names_, or ~0 for a data symbol
    uint32_t module;  // index into modules_
  };
  std::vector<Symbol> symbols_;  // sorted by addr
  std::vector<std::string> names_;
  std::vector<std::string> modules_;
  bool hidden_ = false;
};

}  // namespace swprof
