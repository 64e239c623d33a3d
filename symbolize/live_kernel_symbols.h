#pragma once
// The running kernel's own name for each kernel address, asked one address
// at a time, instead of reading /proc/kallsyms whole.
//
// /proc/kallsyms costs the kernel about 37 ms of formatting (120 k lines)
// however little of it is wanted, and seq_file serves a read at an offset
// by formatting every line before it again; a report names a few hundred
// kernel addresses. The kernel names one itself with printk's "%pS"
// (sprint_symbol: "name+0xOFFSET/0xSIZE [module]", or "0x..." for an
// address no symbol holds), which BPF programs may use through the
// bpf_snprintf helper. Here a nine-instruction program of type
// BPF_PROG_TYPE_SYSCALL formats the address found in a one-entry array map
// (mmap'd) into the rest of that entry, run by BPF_PROG_TEST_RUN: about
// 3 µs an address, 1.2 ms to set up. %pS reads no memory at the address.
//
// It needs Linux >= 5.14 with BPF and the privileges to load such a program
// (CAP_BPF and CAP_PERFMON: root); open() returns nullopt otherwise, and the
// names then come from /proc/kallsyms as before (which, for the same users,
// hides its addresses). The names are kallsyms_lookup's: of several symbols
// at one address the first in kallsyms' order, as KernelSymbols chooses too.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/anonymous_buffer.h"
#include "common/unique_fd.h"
#include "symbolize/kernel_symbols.h"

namespace swprof {

class LiveKernelSymbols {
 public:
  // nullopt when the kernel will not name addresses this way (see above).
  static std::optional<LiveKernelSymbols> open();

  // The symbol holding `addr` (its name and module, as KernelSymbols::find
  // gives them), or nullopt when none does. The views stay valid for this
  // object's lifetime.
  std::optional<KernelSymbols::Hit> find(uint64_t addr);

  // One "%pS" answer read into a hit: nullopt for "0x..." (no symbol) or a
  // text of another shape. `name` and `module` view into `text`.
  static std::optional<KernelSymbols::Hit> parse(std::string_view text);

 private:
  LiveKernelSymbols() = default;

  UniqueFd format_;   // a frozen array map holding "%pS"
  UniqueFd io_;       // a one-entry array map: the address, then its name
  UniqueFd program_;  // the BPF program formatting one into the other
  std::unique_ptr<void, MappingDeleter> io_view_;  // io_'s entry, mapped
  std::deque<std::string> answers_;  // the texts hits view into
};

}  // namespace swprof
