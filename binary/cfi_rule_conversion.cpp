#include "binary/cfi_rule_conversion.h"

#include <dwarf.h>

#include <limits>
#include <utility>

#include "common/byte_reader.h"

namespace swprof {
namespace {

bool fits_int32(int64_t v) { return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(); }
bool fits_int16(int64_t v) { return v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max(); }

// DW_OP_bregN off / DW_OP_bregx N off: the register and offset, when `op` is one.
std::optional<std::pair<uint8_t, int64_t>> breg_of(const Dwarf_Op& op) {
  if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
    const int reg = op.atom - DW_OP_breg0;
    if (reg >= kRegCount) return std::nullopt;
    return std::pair<uint8_t, int64_t>{static_cast<uint8_t>(reg), static_cast<int64_t>(op.number)};
  }
  if (op.atom == DW_OP_bregx) {
    if (op.number >= kRegCount) return std::nullopt;
    return std::pair<uint8_t, int64_t>{static_cast<uint8_t>(op.number), static_cast<int64_t>(op.number2)};
  }
  return std::nullopt;
}

bool set_register_offset_cfa(CfiRule& rule, uint8_t reg, int64_t off) {
  if (!fits_int32(off)) return false;
  rule.cfa = reg == kRsp ? CfaRule::kRspOffset : reg == kRbp ? CfaRule::kRbpOffset : CfaRule::kRegOffset;
  rule.cfa_reg = reg;
  rule.cfa_offset = static_cast<int32_t>(off);
  return true;
}

// The PLT expression (see CfaRule::kPlt); sets K and the rsp offset.
bool match_plt_expression(const Dwarf_Op* ops, size_t n, CfiRule& rule) {
  static constexpr uint8_t kShape[] = {DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, DW_OP_lit0,
                                       DW_OP_ge,    DW_OP_lit3,   DW_OP_shl,   DW_OP_plus};
  if (n != std::size(kShape)) return false;
  for (size_t i = 0; i < n; ++i) {
    if (i == 4) {
      if (ops[i].atom < DW_OP_lit0 || ops[i].atom > DW_OP_lit31) return false;
    } else if (ops[i].atom != kShape[i]) {
      return false;
    }
  }
  const auto rsp_off = static_cast<int64_t>(ops[0].number);
  if (ops[1].number != 0 || !fits_int32(rsp_off)) return false;
  rule.cfa = CfaRule::kPlt;
  rule.cfa_reg = kRsp;
  rule.cfa_offset = static_cast<int32_t>(rsp_off);
  rule.plt_threshold = static_cast<uint8_t>(ops[4].atom - DW_OP_lit0);
  return true;
}

// A row as libdw presents it: the CFA rule and register rules as lists of
// DWARF operations (see libdw.h). LibdwRow reads them from libdw's
// Dwarf_Frame; InterpretedRow builds the same lists from a CfaState of the
// one-pass interpreter (cfa_program.h), so both convert through one path.
constexpr size_t kRowOpsMax = 12;  // more operations than any convertible rule has

struct LibdwRow {
  Dwarf_Frame* frame;
  bool cfa(Dwarf_Op* /*mem*/, const Dwarf_Op** ops, size_t* n) const {
    Dwarf_Op* out = nullptr;
    if (dwarf_frame_cfa(frame, &out, n) != 0) return false;
    *ops = out;
    return true;
  }
  bool reg(int regno, Dwarf_Op* mem, const Dwarf_Op** ops, size_t* n) const {
    Dwarf_Op* out = nullptr;
    if (dwarf_frame_register(frame, regno, mem, &out, n) != 0) return false;
    *ops = out;
    return true;
  }
};

// The DWARF expression `expr` as libdw interns it, for the operations a
// CfiRule can use (DWARF 5 §2.5.1); false for any other operation (no rule
// could use it either).
bool parse_expression(Bytes expr, Dwarf_Op* mem, size_t* n) {
  ByteReader r(expr);
  while (!r.at_end()) {
    if (*n == kRowOpsMax) return false;
    Dwarf_Op op{};
    op.atom = r.read<uint8_t>().value();
    std::optional<uint64_t> number = 0;
    if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
      auto v = read_sleb128(r);
      number = v ? std::optional<uint64_t>(static_cast<uint64_t>(*v)) : std::nullopt;
    } else if (op.atom == DW_OP_bregx) {
      number = read_uleb128(r);
      auto v = read_sleb128(r);
      if (!v) return false;
      op.number2 = static_cast<uint64_t>(*v);
    } else if (op.atom == DW_OP_plus_uconst) {
      number = read_uleb128(r);
    } else if (!(op.atom >= DW_OP_lit0 && op.atom <= DW_OP_lit31) && op.atom != DW_OP_deref && op.atom != DW_OP_and &&
               op.atom != DW_OP_ge && op.atom != DW_OP_shl && op.atom != DW_OP_plus) {
      return false;
    }
    if (!number) return false;
    op.number = *number;
    mem[(*n)++] = op;
  }
  return true;
}

struct InterpretedRow {
  const CfaState& state;
  bool cfa(Dwarf_Op* mem, const Dwarf_Op** ops, size_t* n) const {
    *ops = mem;
    *n = 0;
    switch (state.cfa) {
      case CfaState::kCfaUndefined: return true;
      case CfaState::kCfaInvalid: return false;
      case CfaState::kCfaOffset:
        mem[0] = Dwarf_Op{};
        mem[0].atom = DW_OP_bregx;
        mem[0].number = state.cfa_register;
        mem[0].number2 = state.cfa_offset;
        *n = 1;
        return true;
      case CfaState::kCfaExpression: return parse_expression(state.cfa_expression, mem, n);
    }
    return false;
  }
  bool reg(int regno, Dwarf_Op* mem, const Dwarf_Op** ops, size_t* n) const {
    const CfaRegisterRule& rule = state.regs[static_cast<size_t>(regno)];
    *ops = mem;
    *n = 0;
    auto push = [&](uint8_t atom, uint64_t number = 0) {
      mem[*n] = Dwarf_Op{};
      mem[*n].atom = atom;
      mem[*n].number = number;
      ++*n;
    };
    switch (rule.kind) {
      case CfaRegisterRule::kUnspecified:
      case CfaRegisterRule::kUndefined: return true;
      case CfaRegisterRule::kSameValue: *ops = nullptr; return true;
      case CfaRegisterRule::kOffset:
      case CfaRegisterRule::kValOffset:
        push(DW_OP_call_frame_cfa);
        if (rule.value != 0) push(DW_OP_plus_uconst, static_cast<uint64_t>(rule.value));
        if (rule.kind == CfaRegisterRule::kValOffset) push(DW_OP_stack_value);
        return true;
      case CfaRegisterRule::kRegister: push(DW_OP_regx, static_cast<uint64_t>(rule.value)); return true;
      case CfaRegisterRule::kExpression:
      case CfaRegisterRule::kValExpression:
        push(DW_OP_call_frame_cfa);
        if (!parse_expression(rule.expression, mem, n) || *n == kRowOpsMax) return false;
        if (rule.kind == CfaRegisterRule::kValExpression) push(DW_OP_stack_value);
        return true;
    }
    return false;
  }
};

// The CFA rule of a row (DWARF 5 §6.4.2.2). A register+offset CFA comes as
// one DW_OP_bregx op (number = register, number2 = offset);
// DW_CFA_def_cfa_expression comes as its ops.
template <typename Row>
bool convert_cfa(const Row& row, CfiRule& rule) {
  Dwarf_Op mem[kRowOpsMax];
  const Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (!row.cfa(mem, &ops, &n) || n == 0 || !ops) return false;  // CFA undefined or invalid
  if (n == 1) {
    auto breg = breg_of(ops[0]);
    return breg && set_register_offset_cfa(rule, breg->first, breg->second);
  }
  if (n == 2 && ops[1].atom == DW_OP_deref) {
    auto breg = breg_of(ops[0]);
    if (!breg || !fits_int32(breg->second)) return false;
    rule.cfa = CfaRule::kDerefReg;
    rule.cfa_reg = breg->first;
    rule.cfa_offset = static_cast<int32_t>(breg->second);
    return true;
  }
  return match_plt_expression(ops, n, rule);
}

// One register's rule (see dwarf_frame_register in libdw.h):
//   nops 0, ops != nullptr       -> undefined
//   nops 0, ops == nullptr       -> same value
//   [call_frame_cfa (plus_uconst off)] (stack_value)  -> at / value CFA+off
//   [call_frame_cfa, bregN off]  -> DW_CFA_expression (libdw pushes the CFA first, DWARF 5 §6.4.2.3)
template <typename Row>
std::optional<std::pair<SavedRule, int64_t>> convert_register(const Row& row, int regno) {
  Dwarf_Op mem[kRowOpsMax];
  const Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (!row.reg(regno, mem, &ops, &n)) return std::nullopt;
  if (n == 0) return std::pair{ops == nullptr ? SavedRule::kSameValue : SavedRule::kUndefined, int64_t{0}};
  if (ops[0].atom != DW_OP_call_frame_cfa) return std::nullopt;
  bool value = false;
  if (ops[n - 1].atom == DW_OP_stack_value) {
    value = true;
    --n;
  }
  if (n == 1) return std::pair{value ? SavedRule::kValCfa : SavedRule::kAtCfa, int64_t{0}};
  if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
    return std::pair{value ? SavedRule::kValCfa : SavedRule::kAtCfa, static_cast<int64_t>(ops[1].number)};
  if (n == 2 && !value) {
    auto breg = breg_of(ops[1]);
    if (breg && breg->first == kRbp) return std::pair{SavedRule::kAtRbp, breg->second};
  }
  return std::nullopt;
}

// The CfiRule of one interpreted row, or nullopt when some part of it has no
// CfiRule equivalent.
template <typename Row>
std::optional<CfiRule> convert_row(const Row& row, uint64_t ra_column, bool signal) {
  if (ra_column != kRip) return std::nullopt;
  CfiRule rule;
  if (!convert_cfa(row, rule)) return std::nullopt;
  for (int slot = 0; slot < kSavedSlotCount; ++slot) {
    auto saved = convert_register(row, kSavedSlotReg[slot]);
    if (!saved || !fits_int16(saved->second)) return std::nullopt;
    rule.saved[slot] = saved->first;
    rule.saved_offset[slot] = static_cast<int16_t>(saved->second);
  }
  // rbx is callee-saved (x86-64 psABI §3.2.1), so a row that does not
  // mention it means "same value". libdw's x86-64 default rules mark DWARF
  // register 0 instead of 3 as same-value (backends/x86_64_cfi.c), so an
  // unmentioned rbx reads as undefined; compilers never emit an explicit
  // DW_CFA_undefined for rbx, so undefined is read as the ABI default.
  if (rule.saved[kSlotRbx] == SavedRule::kUndefined) rule.saved[kSlotRbx] = SavedRule::kSameValue;
  // The caller's rsp is the CFA by definition (x86-64 psABI; libdw's default
  // rule is DW_CFA_val_offset rsp, 0). Anything else cannot be expressed.
  auto rsp = convert_register(row, kRsp);
  if (!rsp) return std::nullopt;
  const bool rsp_is_cfa = (rsp->first == SavedRule::kValCfa && rsp->second == 0) || rsp->first == SavedRule::kUndefined;
  if (!rsp_is_cfa) return std::nullopt;
  if (signal) rule.flags |= kCfiSignalFrame;
  rule.finalize();
  return rule;
}

}  // namespace

std::optional<CfiRule> rule_from_cfa_state(const CfaState& state, uint64_t ra_column, bool signal) {
  return convert_row(InterpretedRow{state}, ra_column, signal);
}

std::optional<CfiRule> rule_from_libdw_frame(Dwarf_Frame* frame, uint64_t ra_column, bool signal) {
  return convert_row(LibdwRow{frame}, ra_column, signal);
}

}  // namespace swprof
