#pragma once
// x86-64 instructions as text, for people (`swprof annotate`): Capstone's
// mnemonic and operands in AT&T syntax (as objdump and `perf annotate`
// print them) or Intel syntax, and the target of each direct call or jump so
// that a view can name it. The unwinder's decoder (x86_decoder.h) classifies
// instructions instead and never makes text.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary/x86_decoder.h"
#include "common/byte_reader.h"

namespace swprof {

enum class AsmSyntax : uint8_t { kAtt, kIntel };

struct InstructionText {
  uint64_t address = 0;
  uint8_t size = 0;
  std::string text;     // "divq %rcx", "div rcx"; "(bad)" for a byte that does not decode
  uint64_t target = 0;  // a direct call's or jump's destination; 0 otherwise
};

class X86Disassembler {
 public:
  // nullopt when Capstone cannot be loaded (capstone_load_problem()) or opened.
  static std::optional<X86Disassembler> open(AsmSyntax syntax);

  // The instructions of `code` (whose first byte is at `address`), one
  // after another to its end: a byte that does not decode is one "(bad)"
  // instruction, and decoding goes on after it, as objdump does.
  std::vector<InstructionText> disassemble(Bytes code, uint64_t address);

 private:
  explicit X86Disassembler(Capstone capstone);

  Capstone capstone_;
  CsInsnPtr insn_;  // declared after capstone_: freed before the handle closes
};

}  // namespace swprof
