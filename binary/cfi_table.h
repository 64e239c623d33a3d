#pragma once
// DWARF call frame information compiled once per binary into a sorted table
// of compact rules (the eh_elf idea: CFA programs are interpreted here, at
// compile time, and never again per sample).
//
// Sources: .eh_frame (LSB 5.0 "Exception Frames", FDEs enumerated through
// .eh_frame_hdr's sorted table when present) and .debug_frame (DWARF 5
// §6.4). Each FDE's program is interpreted once into rows (one per
// DW_CFA_advance_loc; cfa_program.h, with libdw's semantics); each row
// becomes a CfiRule when its CFA and register rules are of a kind the
// stepper can apply, and is counted as skipped otherwise.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "binary/dwarf_regs.h"
#include "binary/elf_binary.h"
#include "common/byte_reader.h"

namespace swprof {

// How to compute the Canonical Frame Address (DWARF 5 §6.4.1), the value of
// rsp in the caller right before the call instruction. `off` is
// CfiRule::cfa_offset, `reg` is CfiRule::cfa_reg.
enum class CfaRule : uint8_t {
  kRspOffset,   // CFA = rsp + off
  kRbpOffset,   // CFA = rbp + off
  kRegOffset,   // CFA = reg + off  (reg must be known in the current frame, e.g. r10 in a DRAP prologue)
  kDerefReg,    // CFA = *(reg + off)  (DW_CFA_def_cfa_expression: DW_OP_bregN off; DW_OP_deref — GCC's DRAP)
  kPlt,         // CFA = rsp + off + ((rip & 15) >= K ? 8 : 0), K = CfiRule::plt_threshold
                // (GNU ld's .plt expression: DW_OP_breg7 off; DW_OP_breg16 0; DW_OP_lit15;
                //  DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus)
};

// How to recover one register of the caller (DWARF 5 §6.4.1 register rules).
// `off` is CfiRule::saved_offset[slot].
enum class SavedRule : uint8_t {
  kUndefined,   // unknown in the caller; for the return address: this is the outermost frame
  kSameValue,   // caller's value = this frame's value (not saved: not changed)
  kAtCfa,       // caller's value = *(CFA + off)   (DW_CFA_offset)
  kValCfa,      // caller's value = CFA + off      (DW_CFA_val_offset)
  kAtRbp,       // caller's value = *(rbp + off)   (DW_CFA_expression reg: DW_OP_breg6 off — DRAP)
};

// The registers a CfiRule recovers: the return address and the callee-saved
// registers of the System V x86-64 ABI. Caller-saved registers are not
// recovered (their caller values are dead across a call).
enum SavedSlot : uint8_t { kSlotRa, kSlotRbp, kSlotRbx, kSlotR12, kSlotR13, kSlotR14, kSlotR15, kSavedSlotCount };
inline constexpr std::array<uint8_t, kSavedSlotCount> kSavedSlotReg = {kRip, kRbp, kRbx, kR12, kR13, kR14, kR15};

enum CfiRuleFlags : uint8_t {
  kCfiSignalFrame = 1,  // the FDE's CIE has the 'S' augmentation: the caller's pc is exact
  kCfiSimple = 2,       // set by finalize(): CFA = rsp/rbp + n and every recovered register at CFA + k
  kCfiSlotsBelowRa = 4, // set by finalize() on simple rules: no recovered slot lies above the return address's
};
inline constexpr uint8_t kCfiDerivedFlags = kCfiSimple | kCfiSlotsBelowRa;

// One row of unwind info: how to get the caller's registers at any pc of a
// range. 32 bytes; compiled once, applied many times (see CfiStepper).
struct CfiRule {
  int32_t cfa_offset = 0;
  CfaRule cfa = CfaRule::kRspOffset;
  uint8_t cfa_reg = kRsp;       // DWARF register number of the CFA base
  uint8_t plt_threshold = 0;    // K of CfaRule::kPlt
  uint8_t flags = 0;            // CfiRuleFlags
  std::array<SavedRule, kSavedSlotCount> saved{SavedRule::kUndefined, SavedRule::kSameValue, SavedRule::kSameValue,
                                               SavedRule::kSameValue, SavedRule::kSameValue, SavedRule::kSameValue,
                                               SavedRule::kSameValue};
  // Bit per slot whose rule is not "same value": the slots a step must
  // recover. Set by finalize(); 0 on a rule built by hand (then derived).
  uint8_t recover_mask = 0;
  std::array<int16_t, kSavedSlotCount> saved_offset{};
  // Simple rules: the lowest saved_offset of a recovered slot. With
  // kCfiSlotsBelowRa, every slot is in the copied stack when CFA + this is
  // and the return address is. Set by finalize().
  int16_t slots_low = 0;

  SavedRule ra() const { return saved[kSlotRa]; }
  uint8_t slots_to_recover() const {
    uint8_t mask = 0;
    for (int slot = 0; slot < kSavedSlotCount; ++slot)
      if (saved[slot] != SavedRule::kSameValue) mask |= static_cast<uint8_t>(1u << slot);
    return mask;
  }
  void finalize() {
    recover_mask = slots_to_recover();
    bool simple = (cfa == CfaRule::kRspOffset || cfa == CfaRule::kRbpOffset) && saved[kSlotRa] == SavedRule::kAtCfa &&
                  !(flags & kCfiSignalFrame);
    for (int slot = 0; slot < kSavedSlotCount; ++slot)
      simple = simple && (saved[slot] == SavedRule::kSameValue || saved[slot] == SavedRule::kAtCfa);
    flags = static_cast<uint8_t>(flags & ~kCfiDerivedFlags);
    slots_low = 0;
    if (!simple) return;
    flags |= kCfiSimple;
    bool below_ra = true;
    slots_low = saved_offset[kSlotRa];
    for (int slot = 0; slot < kSavedSlotCount; ++slot) {
      if (!((recover_mask >> slot) & 1)) continue;
      below_ra = below_ra && saved_offset[slot] <= saved_offset[kSlotRa];
      slots_low = std::min(slots_low, saved_offset[slot]);
    }
    if (below_ra) flags |= kCfiSlotsBelowRa;
  }
  // recover_mask, slots_low and the derived flags take no part in equality.
  bool operator==(const CfiRule& o) const {
    return cfa_offset == o.cfa_offset && cfa == o.cfa && cfa_reg == o.cfa_reg && plt_threshold == o.plt_threshold &&
           (flags & ~kCfiDerivedFlags) == (o.flags & ~kCfiDerivedFlags) && saved == o.saved &&
           saved_offset == o.saved_offset;
  }
};
static_assert(sizeof(CfiRule) <= 32);

// The rule as formulas, e.g. "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16] rbx=undef":
// the CFA, the return address, then each callee-saved register whose rule is
// not "same value"; " signal" for a signal frame.
std::string describe(const CfiRule& rule);

struct CfiTableStats {
  size_t fdes = 0;           // FDEs whose rows were compiled (wholly or in part)
  size_t rows = 0;           // table rows, after merging adjacent identical rules
  size_t interpreted = 0;    // rows the CFI interpreter produced (before merging)
  size_t rules = 0;          // distinct CfiRule values
  size_t skipped_rows = 0;   // rows with a rule kind CfiRule cannot express (e.g. other DWARF expressions)
  size_t skipped_fdes = 0;   // FDEs (or their tails) left out: corrupt entries, unknown pointer encodings
  size_t skipped() const { return skipped_rows + skipped_fdes; }
};

struct CfiCompileOptions {
  bool use_eh_frame_hdr = true;  // false: enumerate .eh_frame FDEs by walking the section
  bool use_debug_frame = true;
  // Ask libdw for the row at each address instead of interpreting each FDE
  // once: the same table, in time quadratic in an FDE's rows. A reference
  // for tests.
  bool reference_per_row = false;
};

class CfiTable {
 public:
  // Rows of `binary`'s .eh_frame and .debug_frame (where both cover a pc,
  // .eh_frame wins). Never null and never throws: corrupt or unsupported CFI
  // is skipped and counted in stats(); a binary without CFI gives an empty table.
  static std::shared_ptr<const CfiTable> compile(const ElfBinary& binary, const CfiCompileOptions& options = {});

  // The rule for ELF virtual address `vaddr`, or nullptr when no row covers it.
  const CfiRule* lookup(uint64_t vaddr) const {
    // Last row start <= vaddr: a branch-light binary search over starts_.
    const uint64_t* base = starts_.data();
    size_t n = starts_.size();
    if (n == 0 || vaddr < base[0]) return nullptr;
    while (n > 1) {
      const size_t half = n / 2;
      base = base[half] <= vaddr ? base + half : base;
      n -= half;
    }
    const uint32_t index = rule_index_[static_cast<size_t>(base - starts_.data())];
    return index == kNoRule ? nullptr : &rules_[index];
  }

  struct Row {
    uint64_t start = 0;
    uint64_t end = 0;
    const CfiRule* rule = nullptr;
  };
  // The row covering vaddr, with its [start, end) range.
  std::optional<Row> row_at(uint64_t vaddr) const;
  // Every row, by address (gaps between FDEs have none).
  std::vector<Row> rows() const;

  const CfiTableStats& stats() const { return stats_; }
  bool empty() const { return stats_.rows == 0; }
  // Approximate heap bytes held by the table.
  size_t memory_bytes() const;

 private:
  friend class CfiTableBuilder;
  static constexpr uint32_t kNoRule = 0xffffffffu;

  CfiTable() = default;

  // starts_[i] begins a range that ends at starts_[i + 1] (the last entry is
  // always a kNoRule end marker). rule_index_[i] indexes rules_, or is
  // kNoRule for a gap between FDEs.
  std::vector<uint64_t> starts_;
  std::vector<uint32_t> rule_index_;
  std::vector<CfiRule> rules_;
  CfiTableStats stats_;
};

// Compiled tables shared by all unwinding threads: each binary is compiled
// once, by the first thread that needs it, while other threads keep going on
// other binaries. The cache keeps each binary alive, so a `const ElfBinary*`
// stays a unique key for the cache's lifetime.
class CfiTableCache {
 public:
  CfiTableCache() = default;
  explicit CfiTableCache(CfiCompileOptions options) : options_(options) {}

  // Never null.
  std::shared_ptr<const CfiTable> get(const std::shared_ptr<const ElfBinary>& binary);
  // How many tables were compiled (each binary counts once).
  size_t compiled() const { return compiled_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::shared_ptr<const ElfBinary> binary;
    std::once_flag once;
    std::shared_ptr<const CfiTable> table;
  };
  CfiCompileOptions options_;
  std::mutex mutex_;
  std::unordered_map<const ElfBinary*, std::shared_ptr<Entry>> entries_;
  std::atomic<size_t> compiled_{0};
};

namespace cfi_detail {

// DW_EH_PE_* pointer encodings (LSB 5.0 §10.5.1 "DWARF Exception Header
// Encoding"): the low nibble is the value format, the high bits say what the
// value is relative to.
enum : uint8_t {
  kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02, kPeUdata4 = 0x03, kPeUdata8 = 0x04,
  kPeSleb128 = 0x09, kPeSdata2 = 0x0a, kPeSdata4 = 0x0b, kPeSdata8 = 0x0c,
  kPePcrel = 0x10, kPeTextrel = 0x20, kPeDatarel = 0x30, kPeFuncrel = 0x40, kPeAligned = 0x50,
  kPeIndirect = 0x80, kPeOmit = 0xff,
};

struct PointerBase {
  uint64_t section_vaddr = 0;  // vaddr of the reader's byte 0 (for pcrel)
  uint64_t datarel = 0;        // base of datarel values (.eh_frame_hdr's start in that section)
};

// Reads one encoded pointer at the reader's cursor. nullopt (cursor
// unspecified) for a truncated value or an unsupported encoding (textrel,
// funcrel, aligned, indirect, omit).
std::optional<uint64_t> read_encoded_pointer(ByteReader& r, uint8_t encoding, const PointerBase& base);

// Entries of an .eh_frame_hdr search table (LSB 5.0 §10.6.2), sorted by pc.
struct EhFrameHdrEntry {
  uint64_t initial_location = 0;  // vaddr of the FDE's first pc
  uint64_t fde_vaddr = 0;         // vaddr of the FDE in .eh_frame
};
// nullopt when the header is malformed or has no search table.
std::optional<std::vector<EhFrameHdrEntry>> parse_eh_frame_hdr(Bytes hdr, uint64_t hdr_vaddr);

// Where the search table starts and how it is encoded, from the header alone.
struct EhFrameHdrTable {
  uint64_t vaddr = 0;     // of the first entry
  uint64_t offset = 0;    // of the first entry, from the start of .eh_frame_hdr
  uint64_t fde_count = 0;
  uint8_t encoding = 0;   // DW_EH_PE_* of every entry field
};
std::optional<EhFrameHdrTable> read_eh_frame_hdr_table(Bytes hdr, uint64_t hdr_vaddr);

}  // namespace cfi_detail

}  // namespace swprof
