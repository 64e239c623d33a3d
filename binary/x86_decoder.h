#pragma once
// Capstone (x86-64) for the binary-analysis steppers: a move-only owner of
// the `csh` handle, an owner of one `cs_insn` buffer, and X86Decoder, which
// decodes one instruction into the little the unwinder needs to know about it
// (X86Insn): what it does to rsp and rbp, and where control goes next.
//
// Capstone reports operands in Intel order (destination first).

#include "binary/capstone_library.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "binary/dwarf_regs.h"
#include "common/byte_reader.h"

namespace swprof {

// Owns a Capstone handle; closes it on destruction. Move-only.
class Capstone {
 public:
  // x86-64 with instruction details on; nullopt when Capstone cannot be
  // loaded (capstone_load_problem()) or opened.
  static std::optional<Capstone> open_x86_64() {
    const CapstoneLibrary* cs = capstone_library();
    if (!cs) return std::nullopt;
    csh h = 0;
    if (cs->open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) return std::nullopt;
    Capstone c(cs, h);
    if (cs->option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) return std::nullopt;
    return c;
  }

  Capstone(Capstone&& other) noexcept : cs_(other.cs_), handle_(std::exchange(other.handle_, 0)) {}
  Capstone& operator=(Capstone&& other) noexcept {
    if (this != &other) {
      close();
      cs_ = other.cs_;
      handle_ = std::exchange(other.handle_, 0);
    }
    return *this;
  }
  Capstone(const Capstone&) = delete;
  Capstone& operator=(const Capstone&) = delete;
  ~Capstone() { close(); }

  csh handle() const { return handle_; }
  const CapstoneLibrary& library() const { return *cs_; }

 private:
  Capstone(const CapstoneLibrary* cs, csh h) : cs_(cs), handle_(h) {}
  void close() {
    if (handle_ != 0) cs_->close(&handle_);
    handle_ = 0;
  }

  const CapstoneLibrary* cs_ = nullptr;
  csh handle_ = 0;
};

struct CsInsnDeleter {
  void operator()(cs_insn* insn) const {
    if (const CapstoneLibrary* cs = capstone_library()) cs->free(insn, 1);
  }
};
// One instruction buffer from cs_malloc(), for cs_disasm_iter().
using CsInsnPtr = std::unique_ptr<cs_insn, CsInsnDeleter>;

// What an instruction does, as far as stack unwinding cares.
enum class X86Op : uint8_t {
  kOther,         // touches neither rsp nor rbp (unless `clobbers_*`), falls through
  kEndbr,         // endbr64
  kPush,          // rsp -= imm (the operand size); `reg` is the pushed register
  kPop,           // rsp += imm; `reg` is the popped register
  kAddRsp,        // rsp += imm (add/sub rsp, imm; lea rsp, [rsp + imm])
  kSetRbpFromRsp, // rbp = rsp + imm (mov rbp, rsp; lea rbp, [rsp + imm])
  kSetRspFromRbp, // rsp = rbp + imm (mov rsp, rbp; lea rsp, [rbp + imm])
  kLoadRbp,       // rbp = *(rsp + imm)
  kStoreRbp,      // *(rsp + imm) = rbp
  kLeave,         // rsp = rbp; pop rbp
  kSetRspFromReg, // rsp = `reg` (mov rsp, reg; also clobbers_rsp, for readers that do not model it)
  kLoadRsp,       // rsp = *(rsp + imm) (mov rsp, [rsp + imm]; also clobbers_rsp)
  kAlignRsp,      // and rsp, imm: the new height depends on rsp's value
  kCall,          // rsp unchanged once the callee returns
  kJump,          // direct jmp to `target`
  kCondJump,      // jcc/loop/jrcxz to `target`, or fall through
  kIndirectJump,  // jmp through a register or memory
  kReturn,
  kStop,          // hlt, ud2, int3: no successor
  kInvalid,       // could not decode
};

struct X86Insn {
  uint64_t addr = 0;
  uint8_t size = 0;
  X86Op op = X86Op::kInvalid;
  int8_t reg = -1;       // kPush/kPop/kSetRspFromReg: DWARF register number, -1 when not a GPR
  bool clobbers_rsp = false;  // kOther: writes rsp in a way not modelled
  bool clobbers_rbp = false;  // kOther: writes rbp in a way not modelled
  // kOther: `mov reg, rsp` / `lea reg, [rsp + imm]` put rsp + imm in rsp_copy;
  // `mov [rsp + imm], reg` stores 64-bit register `stored` (-1: neither).
  int8_t rsp_copy = -1;
  int8_t stored = -1;
  uint32_t writes = 0;   // kOther: the GPRs written (a bit per DWARF number; every one when unknown)
  int64_t imm = 0;
  uint64_t target = 0;   // kJump, kCondJump, kCall (0 when indirect)
  // An address or constant put in register `ref_reg` (DWARF number), set only
  // for `lea reg, [rip + d]` (ref = the address), `mov reg, imm` (ref = imm)
  // and `mov reg, [rip + d]` (ref = the address read, ref_is_load); -1 else.
  uint64_t ref = 0;
  int8_t ref_reg = -1;
  bool ref_is_load = false;

  uint64_t end() const { return addr + size; }
  bool falls_through() const {
    switch (op) {
      case X86Op::kJump:
      case X86Op::kIndirectJump:
      case X86Op::kReturn:
      case X86Op::kStop:
      case X86Op::kInvalid:
        return false;
      default:
        return true;
    }
  }
};

namespace x86_detail {

// DWARF number of a 64-bit GPR, -1 for anything else.
inline int8_t dwarf_gpr(unsigned reg) {
  switch (reg) {
    case X86_REG_RAX: return kRax;
    case X86_REG_RDX: return kRdx;
    case X86_REG_RCX: return kRcx;
    case X86_REG_RBX: return kRbx;
    case X86_REG_RSI: return kRsi;
    case X86_REG_RDI: return kRdi;
    case X86_REG_RBP: return kRbp;
    case X86_REG_RSP: return kRsp;
    case X86_REG_R8: return kR8;
    case X86_REG_R9: return kR9;
    case X86_REG_R10: return kR10;
    case X86_REG_R11: return kR11;
    case X86_REG_R12: return kR12;
    case X86_REG_R13: return kR13;
    case X86_REG_R14: return kR14;
    case X86_REG_R15: return kR15;
    default: return -1;
  }
}

// DWARF number of a 64-bit GPR or of its 32-bit low half, -1 for anything else.
inline int8_t dwarf_gpr_wide(unsigned reg) {
  switch (reg) {
    case X86_REG_EAX: return kRax;
    case X86_REG_EDX: return kRdx;
    case X86_REG_ECX: return kRcx;
    case X86_REG_EBX: return kRbx;
    case X86_REG_ESI: return kRsi;
    case X86_REG_EDI: return kRdi;
    case X86_REG_R8D: return kR8;
    case X86_REG_R9D: return kR9;
    default: return dwarf_gpr(reg);
  }
}

// DWARF number of the general-purpose register that `reg` is all or part of
// (al, ah, ax, eax and rax are all rax; r8b..r8 are r8), -1 for anything else.
inline int8_t dwarf_gpr_of_any_width(unsigned reg) {
  switch (reg) {
    case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: case X86_REG_EAX: case X86_REG_RAX: return kRax;
    case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: case X86_REG_EDX: case X86_REG_RDX: return kRdx;
    case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: case X86_REG_ECX: case X86_REG_RCX: return kRcx;
    case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: case X86_REG_EBX: case X86_REG_RBX: return kRbx;
    case X86_REG_SIL: case X86_REG_SI: case X86_REG_ESI: case X86_REG_RSI: return kRsi;
    case X86_REG_DIL: case X86_REG_DI: case X86_REG_EDI: case X86_REG_RDI: return kRdi;
    case X86_REG_BPL: case X86_REG_BP: case X86_REG_EBP: case X86_REG_RBP: return kRbp;
    case X86_REG_SPL: case X86_REG_SP: case X86_REG_ESP: case X86_REG_RSP: return kRsp;
    case X86_REG_R8B: case X86_REG_R8W: case X86_REG_R8D: case X86_REG_R8: return kR8;
    case X86_REG_R9B: case X86_REG_R9W: case X86_REG_R9D: case X86_REG_R9: return kR9;
    case X86_REG_R10B: case X86_REG_R10W: case X86_REG_R10D: case X86_REG_R10: return kR10;
    case X86_REG_R11B: case X86_REG_R11W: case X86_REG_R11D: case X86_REG_R11: return kR11;
    case X86_REG_R12B: case X86_REG_R12W: case X86_REG_R12D: case X86_REG_R12: return kR12;
    case X86_REG_R13B: case X86_REG_R13W: case X86_REG_R13D: case X86_REG_R13: return kR13;
    case X86_REG_R14B: case X86_REG_R14W: case X86_REG_R14D: case X86_REG_R14: return kR14;
    case X86_REG_R15B: case X86_REG_R15W: case X86_REG_R15D: case X86_REG_R15: return kR15;
    default: return -1;
  }
}

inline bool is_rsp_family(unsigned reg) {
  return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP || reg == X86_REG_SPL;
}
inline bool is_rbp_family(unsigned reg) {
  return reg == X86_REG_RBP || reg == X86_REG_EBP || reg == X86_REG_BP || reg == X86_REG_BPL;
}

inline bool is_reg(const cs_x86_op& op, unsigned reg) { return op.type == X86_OP_REG && op.reg == reg; }

// [base + disp] with no index and no segment.
inline bool is_mem_base(const cs_x86_op& op, unsigned base) {
  return op.type == X86_OP_MEM && op.mem.base == base && op.mem.index == X86_REG_INVALID &&
         op.mem.segment == X86_REG_INVALID;
}

// One classifier per instruction family. Each returns true when it has
// classified the instruction, false when the instruction is not of the form
// it models (then it is kOther, checked for clobbers). All inline: decode()
// is on the analysis stepper's hot path.

inline bool set_op(X86Insn& out, X86Op op, int64_t imm = 0) {
  out.op = op;
  out.imm = imm;
  return true;
}

inline bool direct(const cs_x86& x) { return x.op_count == 1 && x.operands[0].type == X86_OP_IMM; }

// call: its target when direct, 0 otherwise.
inline bool classify_call(const cs_x86& x, X86Insn& out) {
  out.op = X86Op::kCall;
  if (direct(x)) out.target = static_cast<uint64_t>(x.operands[0].imm);
  return true;
}

inline bool classify_jmp(const cs_x86& x, X86Insn& out) {
  if (!direct(x)) return set_op(out, X86Op::kIndirectJump);
  out.op = X86Op::kJump;
  out.target = static_cast<uint64_t>(x.operands[0].imm);
  return true;
}

// push reg/mem/imm: rsp -= the operand's size (8 for an immediate).
inline bool classify_push(const cs_x86& x, X86Insn& out) {
  if (x.op_count != 1) return false;
  const cs_x86_op& op = x.operands[0];
  set_op(out, X86Op::kPush, op.type == X86_OP_IMM || op.size == 0 ? 8 : op.size);
  if (op.type == X86_OP_REG) out.reg = dwarf_gpr(op.reg);
  return true;
}

// pop reg/mem: rsp += the operand's size; not a pop into rsp or through rsp.
inline bool classify_pop(const cs_x86& x, X86Insn& out) {
  if (x.op_count != 1) return false;
  const cs_x86_op& op = x.operands[0];
  if ((op.type == X86_OP_REG && is_rsp_family(op.reg)) || (op.type == X86_OP_MEM && op.mem.base == X86_REG_RSP))
    return false;
  set_op(out, X86Op::kPop, op.size == 0 ? 8 : op.size);
  if (op.type == X86_OP_REG) out.reg = dwarf_gpr(op.reg);
  return true;
}

// add/sub/and rsp, imm.
inline bool is_rsp_imm(const cs_x86& x) {
  return x.op_count == 2 && is_reg(x.operands[0], X86_REG_RSP) && x.operands[1].type == X86_OP_IMM;
}

inline bool classify_add_rsp(unsigned id, const cs_x86& x, X86Insn& out) {
  if (!is_rsp_imm(x)) return false;
  const int64_t imm = x.operands[1].imm;
  return set_op(out, X86Op::kAddRsp, id == X86_INS_ADD ? imm : -imm);
}

inline bool classify_and_rsp(const cs_x86& x, X86Insn& out) {
  return is_rsp_imm(x) && set_op(out, X86Op::kAlignRsp, x.operands[1].imm);
}

// Notes the address or constant a `lea`/`mov` puts in a register (X86Insn::ref).
// Never classifies: the caller goes on to check for clobbers.
inline bool note_ref(const cs_x86_op& dst, const cs_x86_op& src, bool load, X86Insn& out) {
  if (dst.type != X86_OP_REG) return false;
  if (src.type == X86_OP_IMM) {
    out.ref = dst.size == 4 ? static_cast<uint32_t>(src.imm) : static_cast<uint64_t>(src.imm);
  } else if (is_mem_base(src, X86_REG_RIP)) {
    out.ref = out.end() + static_cast<uint64_t>(src.mem.disp);
    out.ref_is_load = load;
  } else {
    return false;
  }
  out.ref_reg = dwarf_gpr_wide(dst.reg);
  return false;
}

// Notes a copy of rsp into another 64-bit register (X86Insn::rsp_copy).
// Never classifies, as note_ref.
inline bool note_rsp_copy(const cs_x86_op& dst, int64_t disp, X86Insn& out) {
  if (dst.type != X86_OP_REG || dwarf_gpr(dst.reg) < 0) return false;
  out.rsp_copy = dwarf_gpr(dst.reg);
  out.imm = disp;
  return false;
}

inline bool classify_lea(const cs_x86& x, X86Insn& out) {
  if (x.op_count != 2) return false;
  const cs_x86_op& dst = x.operands[0];
  const cs_x86_op& src = x.operands[1];
  if (is_reg(dst, X86_REG_RSP) && is_mem_base(src, X86_REG_RSP)) return set_op(out, X86Op::kAddRsp, src.mem.disp);
  if (is_reg(dst, X86_REG_RSP) && is_mem_base(src, X86_REG_RBP))
    return set_op(out, X86Op::kSetRspFromRbp, src.mem.disp);
  if (is_reg(dst, X86_REG_RBP) && is_mem_base(src, X86_REG_RSP))
    return set_op(out, X86Op::kSetRbpFromRsp, src.mem.disp);
  if (is_mem_base(src, X86_REG_RSP)) return note_rsp_copy(dst, src.mem.disp, out);
  return src.type == X86_OP_MEM && note_ref(dst, src, false, out);
}

inline bool classify_mov(const cs_x86& x, X86Insn& out) {
  if (x.op_count != 2) return false;
  const cs_x86_op& dst = x.operands[0];
  const cs_x86_op& src = x.operands[1];
  if (is_reg(dst, X86_REG_RBP) && is_reg(src, X86_REG_RSP)) return set_op(out, X86Op::kSetRbpFromRsp);
  if (is_reg(dst, X86_REG_RSP) && is_reg(src, X86_REG_RBP)) return set_op(out, X86Op::kSetRspFromRbp);
  if (is_reg(dst, X86_REG_RBP) && is_mem_base(src, X86_REG_RSP) && src.size == 8)
    return set_op(out, X86Op::kLoadRbp, src.mem.disp);
  if (is_mem_base(dst, X86_REG_RSP) && is_reg(src, X86_REG_RBP)) return set_op(out, X86Op::kStoreRbp, dst.mem.disp);
  // A realigned stack's way back (x86inc's PROLOGUE): the old rsp in a
  // register or a stack slot, and rsp restored from there.
  if (is_reg(dst, X86_REG_RSP) && src.type == X86_OP_REG && dwarf_gpr(src.reg) >= 0) {
    out.reg = dwarf_gpr(src.reg);
    out.clobbers_rsp = true;
    return set_op(out, X86Op::kSetRspFromReg);
  }
  if (is_reg(dst, X86_REG_RSP) && is_mem_base(src, X86_REG_RSP) && src.size == 8) {
    out.clobbers_rsp = true;
    return set_op(out, X86Op::kLoadRsp, src.mem.disp);
  }
  if (is_reg(src, X86_REG_RSP)) return note_rsp_copy(dst, 0, out);
  if (is_mem_base(dst, X86_REG_RSP) && src.type == X86_OP_REG && dwarf_gpr(src.reg) >= 0) {
    out.stored = dwarf_gpr(src.reg);
    out.imm = dst.mem.disp;
    return false;
  }
  return note_ref(dst, src, true, out);
}

// A VEX- or EVEX-encoded instruction at code[0] (after at most one 0x67 or
// segment prefix): its length and the registers it may write, for the ones
// Capstone 4 cannot decode (AVX-512's kmov with a GPR, in x264's asm) or
// whose register accesses it cannot tell (masked EVEX forms). size 0 when
// code does not start with one. In 64-bit mode 0xc4, 0xc5 and 0x62 always
// begin a VEX or EVEX prefix.
struct VexInsn {
  size_t size = 0;
  uint32_t gpr_writes = 0;  // the GPRs it may write (a bit per DWARF number)
};

// The DWARF number of a GPR by its hardware number (rax 0, rcx 1, ... r15 15).
inline int8_t gpr_by_encoding(unsigned n) {
  static constexpr int8_t kByEncoding[16] = {kRax, kRcx, kRdx, kRbx, kRsp, kRbp, kRsi, kRdi,
                                             kR8,  kR9,  kR10, kR11, kR12, kR13, kR14, kR15};
  return kByEncoding[n & 15];
}

// Whether a VEX/EVEX opcode may write a general-purpose register (in any of
// its register fields): the moves and extracts into GPRs, mask-register
// ops, conversions to integers, BMI1/BMI2. Every other one writes only
// vector or mask registers, memory or flags.
inline bool vex_may_write_gpr(unsigned map, uint8_t opcode) {
  switch (map) {
    case 1: return opcode == 0x50 || opcode == 0x7e || opcode == 0xc5 || opcode == 0xd7 || opcode == 0x2c ||
                   opcode == 0x2d || (opcode >= 0x90 && opcode <= 0x99);
    case 2: return opcode >= 0xf0 && opcode <= 0xf7;
    case 3: return opcode == 0x14 || opcode == 0x16 || opcode == 0x17 || opcode == 0xf0;
    default: return true;
  }
}

inline VexInsn vex_instruction(Bytes code) {
  size_t i = 0;
  if (i < code.size() && (code[i] == 0x67 || code[i] == 0x2e || code[i] == 0x3e || code[i] == 0x26 || code[i] == 0x36 ||
                          code[i] == 0x64 || code[i] == 0x65))
    ++i;
  if (i >= code.size()) return {};
  unsigned map = 0;
  bool r_ext = false, b_ext = false;
  uint8_t vvvv = 0;
  if (code[i] == 0xc5 && i + 1 < code.size()) {
    map = 1;
    r_ext = !(code[i + 1] & 0x80);
    vvvv = static_cast<uint8_t>((~code[i + 1] >> 3) & 15);
    i += 2;
  } else if ((code[i] == 0xc4 || code[i] == 0x62) && i + 2 < code.size()) {
    const bool evex = code[i] == 0x62;
    map = code[i + 1] & (evex ? 0x03 : 0x1f);
    r_ext = !(code[i + 1] & 0x80);
    b_ext = !(code[i + 1] & 0x20);
    vvvv = static_cast<uint8_t>((~code[i + 2] >> 3) & 15);
    i += evex ? 4 : 3;
  } else {
    return {};
  }
  if (map < 1 || map > 3 || i >= code.size()) return {};
  const uint8_t opcode = code[i++];
  if (map == 1 && opcode == 0x77) return {i, 0};  // vzeroupper/vzeroall: no ModRM
  if (i >= code.size()) return {};
  const uint8_t modrm = code[i++];
  const unsigned mod = modrm >> 6, rm = modrm & 7;
  if (mod != 3 && rm == 4) {
    if (i >= code.size()) return {};
    if (mod == 0 && (code[i] & 7) == 5) i += 4;  // SIB without base: disp32
    ++i;
  }
  if (mod == 0 && rm == 5) i += 4;  // rip-relative
  if (mod == 1) i += 1;
  if (mod == 2) i += 4;
  const bool imm8 = map == 3 || (map == 1 && ((opcode >= 0x70 && opcode <= 0x73) || opcode == 0xc2 ||
                                              (opcode >= 0xc4 && opcode <= 0xc6)));
  if (imm8) i += 1;
  if (i > code.size() || i > 15) return {};
  VexInsn out{i, 0};
  if (vex_may_write_gpr(map, opcode)) {
    out.gpr_writes |= 1u << gpr_by_encoding(((modrm >> 3) & 7) | (r_ext ? 8 : 0));
    out.gpr_writes |= 1u << gpr_by_encoding(vvvv);
    if (mod == 3) out.gpr_writes |= 1u << gpr_by_encoding(rm | (b_ext ? 8 : 0));
  }
  return out;
}

}  // namespace x86_detail

// Decodes single x86-64 instructions. Not thread-safe: one per thread.
class X86Decoder {
 public:
  X86Decoder() : capstone_(Capstone::open_x86_64()) {
    if (capstone_) insn_.reset(capstone_->library().malloc(capstone_->handle()));
  }
  bool ok() const { return capstone_ && insn_; }

  // The general-purpose registers (a bit per DWARF number) that the
  // instruction decode() last decoded writes, explicitly or implicitly, at
  // any width; every register when Capstone cannot tell.
  uint32_t written_gprs() const;
  // Whether that instruction is `enter` (whose writes Capstone 4 leaves out).
  bool last_is_enter() const { return ok() && insn_->id == X86_INS_ENTER; }

  // The instruction at `addr`, where code[0] is at address `code_addr`;
  // kInvalid when addr is outside the code or the bytes do not decode.
  X86Insn decode(Bytes code, uint64_t code_addr, uint64_t addr) {
    X86Insn out;
    out.addr = addr;
    if (!ok() || addr < code_addr || addr - code_addr >= code.size()) return out;
    const uint8_t* p = code.data() + (addr - code_addr);
    size_t n = code.size() - (addr - code_addr);
    uint64_t a = addr;
    if (!capstone_->library().disasm_iter(capstone_->handle(), &p, &n, &a, insn_.get())) return vex_fallback(code, code_addr, out);
    out.size = static_cast<uint8_t>(insn_->size);
    classify(*insn_, out);
    return out;
  }

 private:
  // Fills out.op and its operands (out.addr and out.size are set).
  void classify(const cs_insn& insn, X86Insn& out) const;
  // By instruction id; false when the instruction is none of those modelled.
  bool classify_known(const cs_insn& insn, X86Insn& out) const;
  // Jumps and returns Capstone knows by group only (jcc, ...).
  bool classify_by_group(const cs_insn& insn, X86Insn& out) const;
  // Any other write to rsp or rbp, explicit or implicit.
  void note_clobbers(const cs_insn& insn, X86Insn& out) const;
  // A VEX/EVEX instruction Capstone could not decode: kOther of its length,
  // writing the GPRs its register fields may name (x86_detail::vex_instruction).
  static X86Insn vex_fallback(Bytes code, uint64_t code_addr, X86Insn out) {
    const x86_detail::VexInsn v = x86_detail::vex_instruction(code.subspan(out.addr - code_addr));
    if (v.size == 0) return out;
    out.size = static_cast<uint8_t>(v.size);
    out.op = X86Op::kOther;
    note_vex_writes(v, out);
    return out;
  }
  static void note_vex_writes(const x86_detail::VexInsn& v, X86Insn& out) {
    out.writes = v.gpr_writes;
    out.clobbers_rsp = (v.gpr_writes >> kRsp) & 1u;
    out.clobbers_rbp = (v.gpr_writes >> kRbp) & 1u;
  }

  std::optional<Capstone> capstone_;
  CsInsnPtr insn_;  // declared after capstone_: freed before the handle closes
};

inline void X86Decoder::classify(const cs_insn& insn, X86Insn& out) const {
  out.op = X86Op::kOther;
  if (!classify_known(insn, out)) note_clobbers(insn, out);
}

inline bool X86Decoder::classify_known(const cs_insn& insn, X86Insn& out) const {
  using namespace x86_detail;
  const cs_x86& x = insn.detail->x86;
  switch (insn.id) {
    case X86_INS_ENDBR64: return set_op(out, X86Op::kEndbr);
    case X86_INS_CALL: return classify_call(x, out);
    case X86_INS_RET:
    case X86_INS_RETF:
    case X86_INS_RETFQ:
    case X86_INS_IRET:
    case X86_INS_IRETD:
    case X86_INS_IRETQ: return set_op(out, X86Op::kReturn);
    case X86_INS_HLT:
    case X86_INS_UD2:
    case X86_INS_UD2B:
    case X86_INS_INT3: return set_op(out, X86Op::kStop);
    case X86_INS_JMP: return classify_jmp(x, out);
    case X86_INS_PUSHFQ: return set_op(out, X86Op::kPush, 8);
    case X86_INS_POPFQ: return set_op(out, X86Op::kPop, 8);
    case X86_INS_PUSH: return classify_push(x, out);
    case X86_INS_POP: return classify_pop(x, out);
    case X86_INS_ADD:
    case X86_INS_SUB: return classify_add_rsp(insn.id, x, out);
    case X86_INS_AND: return classify_and_rsp(x, out);
    case X86_INS_LEAVE: return set_op(out, X86Op::kLeave);
    case X86_INS_LEA: return classify_lea(x, out);
    case X86_INS_MOV: return classify_mov(x, out);
    default: return classify_by_group(insn, out);
  }
}

inline bool X86Decoder::classify_by_group(const cs_insn& insn, X86Insn& out) const {
  using namespace x86_detail;
  const cs_x86& x = insn.detail->x86;
  if (capstone_->library().insn_group(capstone_->handle(), &insn, CS_GRP_JUMP)) {
    if (!direct(x)) return set_op(out, X86Op::kIndirectJump);
    out.op = X86Op::kCondJump;
    out.target = static_cast<uint64_t>(x.operands[0].imm);
    return true;
  }
  if (capstone_->library().insn_group(capstone_->handle(), &insn, CS_GRP_RET)) return set_op(out, X86Op::kReturn);
  return false;
}

inline uint32_t X86Decoder::written_gprs() const {
  constexpr uint32_t kEvery = (1u << kRip) - 1;
  if (!ok() || !insn_->detail) return kEvery;
  cs_regs read{}, written{};
  uint8_t nread = 0, nwritten = 0;
  if (capstone_->library().regs_access(capstone_->handle(), insn_.get(), read, &nread, written, &nwritten) != CS_ERR_OK) return kEvery;
  uint32_t mask = 0;
  for (uint8_t i = 0; i < nwritten; ++i)
    if (const int8_t r = x86_detail::dwarf_gpr_of_any_width(written[i]); r >= 0) mask |= 1u << r;
  return mask;
}

inline void X86Decoder::note_clobbers(const cs_insn& insn, X86Insn& out) const {
  using namespace x86_detail;
  cs_regs read{}, written{};
  uint8_t nread = 0, nwritten = 0;
  if (capstone_->library().regs_access(capstone_->handle(), &insn, read, &nread, written, &nwritten) != CS_ERR_OK) {
    const VexInsn v = vex_instruction(Bytes(insn.bytes, insn.size));
    if (v.size == insn.size) return note_vex_writes(v, out);
    out.clobbers_rsp = out.clobbers_rbp = true;  // cannot tell: assume the worst
    out.writes = (1u << kRip) - 1;
    return;
  }
  for (uint8_t i = 0; i < nwritten; ++i) {
    out.clobbers_rsp |= is_rsp_family(written[i]);
    out.clobbers_rbp |= is_rbp_family(written[i]);
    if (const int8_t r = dwarf_gpr_of_any_width(written[i]); r >= 0) out.writes |= 1u << r;
  }
}

}  // namespace swprof
