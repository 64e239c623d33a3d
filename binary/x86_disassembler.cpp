#include "binary/x86_disassembler.h"

namespace swprof {
namespace {

// A call or jump whose one operand is an immediate: its destination.
uint64_t direct_target(const CapstoneLibrary& cs, csh handle, const cs_insn& insn) {
  const bool branch = cs.insn_group(handle, &insn, CS_GRP_CALL) || cs.insn_group(handle, &insn, CS_GRP_JUMP);
  if (!branch || !insn.detail) return 0;
  const cs_x86& x = insn.detail->x86;
  return x.op_count == 1 && x.operands[0].type == X86_OP_IMM ? static_cast<uint64_t>(x.operands[0].imm) : 0;
}

}  // namespace

std::optional<X86Disassembler> X86Disassembler::open(AsmSyntax syntax) {
  std::optional<Capstone> capstone = Capstone::open_x86_64();
  if (!capstone) return std::nullopt;
  const size_t value = syntax == AsmSyntax::kAtt ? CS_OPT_SYNTAX_ATT : CS_OPT_SYNTAX_INTEL;
  if (capstone->library().option(capstone->handle(), CS_OPT_SYNTAX, value) != CS_ERR_OK) return std::nullopt;
  X86Disassembler d(std::move(*capstone));
  if (!d.insn_) return std::nullopt;
  return d;
}

X86Disassembler::X86Disassembler(Capstone capstone)
    : capstone_(std::move(capstone)), insn_(capstone_.library().malloc(capstone_.handle())) {}

std::vector<InstructionText> X86Disassembler::disassemble(Bytes code, uint64_t address) {
  const CapstoneLibrary& cs = capstone_.library();
  std::vector<InstructionText> out;
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t at = address;
  while (left > 0) {
    if (!cs.disasm_iter(capstone_.handle(), &p, &left, &at, insn_.get())) {
      out.push_back(InstructionText{at, 1, "(bad)", 0});
      ++p;
      --left;
      ++at;
      continue;
    }
    const cs_insn& insn = *insn_;
    std::string text = insn.mnemonic;
    if (insn.op_str[0]) text.append(" ").append(insn.op_str);
    out.push_back(InstructionText{insn.address, static_cast<uint8_t>(insn.size), std::move(text),
                                  direct_target(cs, capstone_.handle(), insn)});
  }
  return out;
}

}  // namespace swprof
