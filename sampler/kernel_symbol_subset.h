#pragma once
// The part of /proc/kallsyms a recording's reports need: for each kernel
// address the samples hit, the symbol holding it and the symbol after it
// (which ends its range), as kallsyms lines ("ADDRESS TYPE NAME [MODULE]"),
// so that a report on another machine or after a reboot names the same
// kernel frames without the machine's /proc/kallsyms
// (symbolize/kernel_symbols.h reads these lines as it reads the whole file).

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

namespace swprof {

// The kernel addresses a recording's samples hit, collected while recording.
class KernelAddresses {
 public:
  void add(uint64_t addr) { addrs_.insert(addr); }
  size_t size() const { return addrs_.size(); }
  const std::unordered_set<uint64_t>& addresses() const { return addrs_; }

 private:
  std::unordered_set<uint64_t> addrs_;
};

// The lines of `kallsyms` (the text of /proc/kallsyms) that name and end
// the symbols holding `addrs`, in address order; "" when kallsyms hides its
// addresses (every one reads 0: kernel.kptr_restrict) or none is held.
std::string kallsyms_subset(std::string_view kallsyms, const std::unordered_set<uint64_t>& addrs);

}  // namespace swprof
