#pragma once
// One row of call frame information -> a CfiRule, or nullopt when some part
// of the row has no CfiRule equivalent (DWARF 5 §6.4.1 register rules; other
// DWARF expressions than the few CfaRule and SavedRule name).
//
// A row comes either from the one-pass interpreter (a CfaState,
// cfa_program.h) or from libdw (a Dwarf_Frame, the per-row reference path);
// both are read as libdw presents rows (lists of DWARF operations, see
// libdw.h), so both convert through one path.

#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>

#include "binary/cfa_program.h"
#include "binary/cfi_rule.h"

namespace swprof {

// `ra_column` is the CIE's return address register; `signal` its 'S' augmentation.
std::optional<CfiRule> rule_from_cfa_state(const CfaState& state, uint64_t ra_column, bool signal);
std::optional<CfiRule> rule_from_libdw_frame(Dwarf_Frame* frame, uint64_t ra_column, bool signal);

}  // namespace swprof
