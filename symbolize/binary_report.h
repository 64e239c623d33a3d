#pragma once
// What one binary of a recording offers the unwinder and the symbolizer, and
// what to install or rebuild with when it lacks something: `swprof info`'s
// view of each binary. Facts come from the places that use them (ElfBinary,
// FdeReader, the frame-layout analysis, DebugInfo's debuginfo lookup), so the
// report says what the unwinder and the symbolizer will actually find.

#include <cstdint>
#include <string>
#include <vector>

#include "binary/binary_cache.h"
#include "symbolize/symbolizer.h"

namespace swprof {

enum class BinaryStatus {
  kFound,
  kMissing,  // not on this machine (or unreadable)
  kChanged,  // on disk with another build-id than the one recorded
};

// Each source of unwind or name information is a group of fields here and
// one part of the "unwind:" or "names:" line in output/info_text.cpp.
struct BinaryReport {
  BinaryStatus status = BinaryStatus::kFound;
  std::string problem;  // why it is missing
  std::string kind;     // "executable", "static executable", "PIE executable", "shared library"

  // Unwind information.
  size_t eh_frame_fdes = 0;
  bool eh_frame_hdr = false;
  size_t debug_frame_fdes = 0;
  uint64_t code_bytes = 0;  // in executable sections
  uint64_t cfi_bytes = 0;   // of those, covered by an FDE
  size_t prologues_checked = 0;       // known function starts (symbols, FDEs) looked at, at most kMaxPrologues
  size_t frame_pointer_prologues = 0;  // of those, `push rbp; mov rbp, rsp`

  // Name information.
  size_t symtab_functions = 0;
  size_t dynsym_functions = 0;
  bool minidebuginfo = false;  // .gnu_debugdata
  std::string dwarf_file;      // where DWARF was found (the binary or separate debuginfo), "" when none
  size_t plt_entries = 0;

  // Go's function table (names, lines and stack heights of Go code, also
  // when stripped).
  size_t go_functions = 0;  // 0: not Go
  std::string go_version;
  // Function discovery (binary/function_starts.h), looked at only in binaries
  // without full names (has_full_names()) and not Go: functions whose start no
  // symbol, FDE or PLT stub gives (found from calls, jumps and the entry code).
  bool discovery_run = false;
  size_t discovered_functions = 0;
  bool discovery_budget_hit = false;

  double cfi_share() const { return code_bytes ? static_cast<double>(cfi_bytes) / static_cast<double>(code_bytes) : 0; }
  double frame_pointer_share() const {
    return prologues_checked ? static_cast<double>(frame_pointer_prologues) / static_cast<double>(prologues_checked) : 0;
  }
  // Less than 90 % of the code has CFI, and that is more than the few hundred
  // bytes of start-up code (crtbegin's) every program has without.
  bool lacks_cfi() const { return code_bytes - cfi_bytes >= 1024 && cfi_share() < 0.9; }
  // Function names beyond the exported ones: .symtab, minidebuginfo or DWARF.
  bool has_full_names() const { return symtab_functions || minidebuginfo || !dwarf_file.empty() || go_functions; }
};

inline constexpr size_t kMaxPrologues = 512;

// The report of the binary recorded as `path` with `build_id` (empty: not
// checked), opened through `binaries` as the unwinder opens it.
BinaryReport inspect_binary(const std::string& path, const std::vector<uint8_t>& build_id, BinaryCache& binaries,
                            const SymbolizerOptions& options);

// What to do about what the report lacks, one line each (empty when nothing
// is lacking). `package`: the Debian package that installed the file, "" for
// a file no package owns (the user's own build).
std::vector<std::string> binary_advice(const BinaryReport& report, const std::string& package);

}  // namespace swprof
