#include "binary/cfa_program.h"

#include <dwarf.h>

#include <algorithm>

#include "binary/eh_frame_hdr.h"

namespace swprof {
namespace {

// libdw refuses register numbers from here on (cfi.c, enough_registers).
constexpr uint64_t kMaxRegisterNumber = 0x7fffffff / 8;
constexpr size_t kMaxRememberedStates = 64;

// libdw keeps a register rule's value in a 61-bit field.
int64_t as_61_bits(uint64_t v) { return static_cast<int64_t>(v << 3) >> 3; }

// LEB128 numbers read as libdw reads them inside CFA programs
// (libdw/memory-access.h): a number cut short by the end of the program, or
// longer than 64 bits, is not an error but the largest value. An operand
// missing altogether reads as 0 (libdw reads the byte after the program),
// and ends the program. Never nullopt: the optional keeps the callers'
// shape.
std::optional<uint64_t> lenient_uleb128(ByteReader& r) {
  const size_t max = std::min<size_t>(10, r.remaining());
  if (max == 0) return 0;
  uint64_t acc = 0;
  for (size_t i = 0; i < max; ++i) {
    const uint8_t b = r.read<uint8_t>().value();
    acc |= uint64_t{b & 0x7fu} << (7 * i);
    if (!(b & 0x80)) return acc;
  }
  return UINT64_MAX;
}

std::optional<int64_t> lenient_sleb128(ByteReader& r) {
  const size_t max = std::min<size_t>(9, r.remaining());
  if (max == 0) return 0;
  uint64_t acc = 0;
  for (size_t i = 0; i < max; ++i) {
    const uint8_t b = r.read<uint8_t>().value();
    acc |= uint64_t{b & 0x7fu} << (7 * i);
    if (!(b & 0x80)) {
      if (b & 0x40) acc |= ~uint64_t{0} << (7 * (i + 1));
      return static_cast<int64_t>(acc);
    }
  }
  auto last = r.read<uint8_t>();  // a tenth byte carries the sign bit only
  if (!last || (*last & 0x80)) return INT64_MAX;
  return static_cast<int64_t>(acc | uint64_t{*last} << (7 * max));
}

class CfaMachine {
 public:
  enum class Step { kNext, kMoved, kInvalid };

  // `cie_initial` is null while the CIE's own initial instructions run.
  CfaMachine(const CieProgram& cie, const CfaState& start, const CfaState* cie_initial, uint64_t loc)
      : cie_(cie), state_(start), cie_initial_(cie_initial), loc_(loc) {}

  // Executes the instruction at the cursor.
  Step step(ByteReader& r);
  const CfaState& state() const { return state_; }
  uint64_t loc() const { return loc_; }

 private:
  Step advance(uint64_t delta);
  Step set_rule(uint64_t reg, CfaRegisterRule::Kind kind, uint64_t value, Bytes expression = {});
  Step restore(uint64_t reg);
  Step window_save();
  Step register_op(uint8_t opcode, ByteReader& r);
  Step cfa_op(uint8_t opcode, ByteReader& r);
  Step state_op(uint8_t opcode, ByteReader& r);

  const CieProgram& cie_;
  CfaState state_;
  const CfaState* cie_initial_;
  std::vector<CfaState> remembered_;
  uint64_t loc_;
};

CfaMachine::Step CfaMachine::advance(uint64_t delta) {
  if (!cie_initial_) return Step::kInvalid;  // no rows in a CIE's initial instructions
  loc_ += delta * cie_.code_alignment;
  return Step::kMoved;
}

CfaMachine::Step CfaMachine::set_rule(uint64_t reg, CfaRegisterRule::Kind kind, uint64_t value, Bytes expression) {
  if (reg >= kMaxRegisterNumber) return Step::kInvalid;
  if (reg < kCfaTrackedRegs) state_.regs[reg] = CfaRegisterRule{kind, as_61_bits(value), expression};
  return Step::kNext;
}

CfaMachine::Step CfaMachine::restore(uint64_t reg) {
  if (!cie_initial_ || reg >= kMaxRegisterNumber) return Step::kInvalid;
  if (reg < kCfaTrackedRegs) state_.regs[reg] = cie_initial_->regs[reg];
  return Step::kNext;
}

// DW_CFA_GNU_window_save: on anything but AArch64, libdw applies SPARC's
// meaning (registers 8..15 in 24..31, 16..31 saved in a block at the CFA).
CfaMachine::Step CfaMachine::window_save() {
  for (unsigned reg = 8; reg < 16; ++reg) set_rule(reg, CfaRegisterRule::kRegister, reg + 16);
  set_rule(16, CfaRegisterRule::kOffset, 0);
  return Step::kNext;
}

CfaMachine::Step CfaMachine::register_op(uint8_t opcode, ByteReader& r) {
  using R = CfaRegisterRule;
  const int64_t daf = cie_.data_alignment;
  if ((opcode & 0xc0) == DW_CFA_offset) {
    auto off = lenient_uleb128(r);
    return off ? set_rule(opcode & 0x3f, R::kOffset, *off * static_cast<uint64_t>(daf)) : Step::kInvalid;
  }
  if ((opcode & 0xc0) == DW_CFA_restore) return restore(opcode & 0x3f);
  auto reg = lenient_uleb128(r);
  if (!reg) return Step::kInvalid;
  // libdw requires bytes after the register of a two-operand instruction.
  const bool one_operand = opcode == DW_CFA_undefined || opcode == DW_CFA_same_value || opcode == DW_CFA_restore_extended;
  if (!one_operand && r.at_end()) return Step::kInvalid;
  switch (opcode) {
    case DW_CFA_undefined: return set_rule(*reg, R::kUndefined, 0);
    case DW_CFA_same_value: return set_rule(*reg, R::kSameValue, 0);
    case DW_CFA_restore_extended: return restore(*reg);
    case DW_CFA_offset_extended:
    case DW_CFA_val_offset: {
      auto off = lenient_uleb128(r);
      if (!off) return Step::kInvalid;
      return set_rule(*reg, opcode == DW_CFA_val_offset ? R::kValOffset : R::kOffset, *off * static_cast<uint64_t>(daf));
    }
    case DW_CFA_offset_extended_sf:
    case DW_CFA_val_offset_sf: {
      auto off = lenient_sleb128(r);
      if (!off) return Step::kInvalid;
      return set_rule(*reg, opcode == DW_CFA_val_offset_sf ? R::kValOffset : R::kOffset,
                      static_cast<uint64_t>(*off) * static_cast<uint64_t>(daf));
    }
    case DW_CFA_GNU_negative_offset_extended: {
      auto off = lenient_uleb128(r);
      if (!off) return Step::kInvalid;
      return set_rule(*reg, R::kOffset, (0 - *off) * static_cast<uint64_t>(daf));
    }
    case DW_CFA_register: {
      auto other = lenient_uleb128(r);
      return other ? set_rule(*reg, R::kRegister, *other) : Step::kInvalid;
    }
    case DW_CFA_expression:
    case DW_CFA_val_expression: {
      auto length = lenient_uleb128(r);
      if (!length || *length > r.remaining()) return Step::kInvalid;
      auto block = r.bytes(static_cast<size_t>(*length));
      return set_rule(*reg, opcode == DW_CFA_expression ? R::kExpression : R::kValExpression, 0, *block);
    }
    default: return Step::kInvalid;
  }
}

CfaMachine::Step CfaMachine::cfa_op(uint8_t opcode, ByteReader& r) {
  const uint64_t daf = static_cast<uint64_t>(cie_.data_alignment);
  auto require_offset_rule = [this] {
    if (state_.cfa != CfaState::kCfaOffset) state_.cfa = CfaState::kCfaInvalid;
  };
  switch (opcode) {
    case DW_CFA_def_cfa:
    case DW_CFA_def_cfa_sf: {
      auto reg = lenient_uleb128(r);
      if (!reg || r.at_end()) return Step::kInvalid;
      std::optional<uint64_t> off;
      if (opcode == DW_CFA_def_cfa) {
        off = lenient_uleb128(r);
      } else if (auto sf = lenient_sleb128(r)) {
        off = static_cast<uint64_t>(*sf) * daf;
      }
      if (!off) return Step::kInvalid;
      state_.cfa = CfaState::kCfaOffset;
      state_.cfa_register = *reg;
      state_.cfa_offset = *off;
      return Step::kNext;
    }
    case DW_CFA_def_cfa_register: {
      auto reg = lenient_uleb128(r);
      if (!reg) return Step::kInvalid;
      require_offset_rule();
      state_.cfa_register = *reg;
      return Step::kNext;
    }
    case DW_CFA_def_cfa_offset:
    case DW_CFA_def_cfa_offset_sf: {
      std::optional<uint64_t> off;
      if (opcode == DW_CFA_def_cfa_offset) {
        off = lenient_uleb128(r);
      } else if (auto sf = lenient_sleb128(r)) {
        off = static_cast<uint64_t>(*sf) * daf;
      }
      if (!off) return Step::kInvalid;
      require_offset_rule();
      state_.cfa_offset = *off;
      return Step::kNext;
    }
    case DW_CFA_def_cfa_expression: {
      auto length = lenient_uleb128(r);
      if (!length || *length > r.remaining()) return Step::kInvalid;
      state_.cfa = CfaState::kCfaExpression;
      state_.cfa_expression = *r.bytes(static_cast<size_t>(*length));
      return Step::kNext;
    }
    default: return Step::kInvalid;
  }
}

CfaMachine::Step CfaMachine::state_op(uint8_t opcode, ByteReader& r) {
  switch (opcode) {
    case DW_CFA_nop: return Step::kNext;
    case DW_CFA_remember_state:
      // Compilers nest a few states at most; a corrupt program repeating the
      // instruction must not grow the stack with the input.
      if (remembered_.size() >= kMaxRememberedStates) return Step::kInvalid;
      remembered_.push_back(state_);
      return Step::kNext;
    case DW_CFA_restore_state:
      if (remembered_.empty()) return Step::kInvalid;
      state_ = remembered_.back();
      remembered_.pop_back();
      return Step::kNext;
    case DW_CFA_GNU_args_size: return lenient_uleb128(r) ? Step::kNext : Step::kInvalid;
    case DW_CFA_GNU_window_save: return window_save();
    default: return Step::kInvalid;
  }
}

CfaMachine::Step CfaMachine::step(ByteReader& r) {
  const uint8_t opcode = r.read<uint8_t>().value();
  switch (opcode & 0xc0) {
    case DW_CFA_advance_loc: return advance(opcode & 0x3f);
    case DW_CFA_offset:
    case DW_CFA_restore: return register_op(opcode, r);
    default: break;
  }
  switch (opcode) {
    case DW_CFA_advance_loc1: {
      auto d = r.read<uint8_t>();
      return d ? advance(*d) : Step::kInvalid;
    }
    case DW_CFA_advance_loc2: {
      auto d = r.read<uint16_t>();
      return d ? advance(*d) : Step::kInvalid;
    }
    case DW_CFA_advance_loc4: {
      auto d = r.read<uint32_t>();
      return d ? advance(*d) : Step::kInvalid;
    }
    case DW_CFA_MIPS_advance_loc8: {
      auto d = r.read<uint64_t>();
      return d ? advance(*d) : Step::kInvalid;
    }
    case DW_CFA_set_loc: {
      // The operand is a pointer encoded as the FDE's addresses are.
      const cfi_detail::PointerBase base{cie_.section_vaddr + static_cast<uint64_t>(r.offset()), 0};
      ByteReader rest = r;
      auto loc = cfi_detail::read_encoded_pointer(rest, cie_.fde_encoding, base);
      if (!loc || !cie_initial_) return Step::kInvalid;
      r.skip(rest.offset() - r.offset());
      loc_ = *loc;
      return Step::kMoved;
    }
    case DW_CFA_def_cfa:
    case DW_CFA_def_cfa_sf:
    case DW_CFA_def_cfa_register:
    case DW_CFA_def_cfa_offset:
    case DW_CFA_def_cfa_offset_sf:
    case DW_CFA_def_cfa_expression: return cfa_op(opcode, r);
    case DW_CFA_nop:
    case DW_CFA_remember_state:
    case DW_CFA_restore_state:
    case DW_CFA_GNU_args_size:
    case DW_CFA_GNU_window_save: return state_op(opcode, r);
    default: return register_op(opcode, r);
  }
}

// backends/x86_64_cfi.c: rbx (as DWARF 0), rbp, r12..r15 and rip keep
// their values; the caller's rsp is the CFA.
CfaState x86_64_abi_state() {
  CfaState s;
  for (unsigned reg : {0u, 6u, 12u, 13u, 14u, 15u, 16u}) s.regs[reg].kind = CfaRegisterRule::kSameValue;
  s.regs[7].kind = CfaRegisterRule::kValOffset;
  return s;
}

}  // namespace

std::optional<CfaState> cie_initial_state(const CieProgram& cie) {
  CfaMachine machine(cie, x86_64_abi_state(), nullptr, 0);
  ByteReader r(cie.initial_instructions);
  while (!r.at_end())
    if (machine.step(r) != CfaMachine::Step::kNext) return std::nullopt;
  return machine.state();
}

bool run_cfa_program(const CieProgram& cie, const CfaState& initial, Bytes program, uint64_t lo, uint64_t hi,
                     const CfaRowCallback& on_row) {
  // set_loc operands are pcrel to their own place in the section.
  CieProgram at = cie;
  at.section_vaddr = cie.section_vaddr + static_cast<uint64_t>(program.data() - cie.section_start);
  CfaMachine machine(at, initial, &initial, lo);
  ByteReader r(program);
  uint64_t row_start = lo;
  while (!r.at_end()) {
    const CfaMachine::Step step = machine.step(r);
    if (step == CfaMachine::Step::kInvalid) return false;
    // A row ends where the location first moves past its start (a move
    // backwards, or by nothing, continues it).
    if (step == CfaMachine::Step::kMoved && machine.loc() > row_start) {
      on_row(row_start, std::min(machine.loc(), hi), machine.state());
      row_start = machine.loc();
      if (row_start >= hi) return true;
    }
  }
  if (row_start < hi) on_row(row_start, hi, machine.state());
  return true;
}

}  // namespace swprof
