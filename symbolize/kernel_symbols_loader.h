#pragma once
// Where kernel symbols come from, read off the main thread
// (Symbolizer::prepare_kernel_symbols), with the warning to give when
// there are none.
//
// For a perf.data recording that names its kernel's build-id, the kernel's
// symbols are, in this order:
//   1. perf's build-id cache's copy of that kernel's kallsyms (`perf record`
//      makes it), when it agrees with the recording: the recorded kernel
//      mapping's symbol (_text) is at the recorded address (else the copy
//      is of another boot, KASLR having moved the kernel); of its module
//      symbols only those inside the recorded module mappings of the same
//      module are kept (the others are of another layout);
//   2. kallsyms_path (/proc/kallsyms) when the running kernel is the
//      recorded one, and its _text is where the recording had it;
//   3. none: kernel frames are shown as addresses, with one warning.
// A recording naming no kernel build-id (older perf) uses kallsyms_path as
// it is.
//
// When kallsyms_path is the running kernel's own (/proc/kallsyms), the
// kernel is asked to name each address instead (LiveKernelSymbols), where
// it allows that: the same names, without the tens of ms the kernel takes
// to format the whole file. For a recorded kernel, the boot is checked
// first from the file's first lines, which name _text.

#include <optional>
#include <string>

#include "recording/recorded_kernel.h"
#include "symbolize/kernel_symbols.h"
#include "symbolize/live_kernel_symbols.h"

namespace swprof {

// The running kernel's kallsyms.
inline constexpr char kRunningKallsyms[] = "/proc/kallsyms";

struct KernelSymbolsLoad {
  KernelSymbols symbols;
  // The running kernel, asked per address: used instead of `symbols` when set.
  std::optional<LiveKernelSymbols> live;
  std::optional<std::string> warning;
  bool read_kallsyms = false;  // the running kernel's symbols were used: kallsyms_path read, or `live`
};

// The kernel symbols in kallsyms file `path` (/proc/kallsyms).
KernelSymbolsLoad load_kallsyms(const std::string& path);

struct KernelSymbolsPlaces {
  std::string kallsyms_path = kRunningKallsyms;
  std::string perf_buildid_dir;                  // perf's build-id cache (perf_buildid_dir())
  std::string notes_path = "/sys/kernel/notes";  // the running kernel's notes (its build-id)
};

// The kernel symbols of the kernel `kernel` names, from the first of the
// places above that has them.
KernelSymbolsLoad load_recorded_kernel_symbols(const RecordedKernel& kernel, const KernelSymbolsPlaces& places);

}  // namespace swprof
