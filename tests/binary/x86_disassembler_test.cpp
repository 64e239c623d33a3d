#include "binary/x86_disassembler.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace swprof;

namespace {

constexpr uint64_t kBase = 0x401000;

std::vector<InstructionText> disassemble(AsmSyntax syntax, const std::vector<uint8_t>& code) {
  std::optional<X86Disassembler> d = X86Disassembler::open(syntax);
  REQUIRE(d);
  return d->disassemble(Bytes(code.data(), code.size()), kBase);
}

}  // namespace

TEST_CASE("X86Disassembler: instructions as text, in AT&T or Intel syntax", "[x86]") {
  const std::vector<uint8_t> code = {0x48, 0xf7, 0xf1,   // div rcx
                                     0x48, 0x89, 0xd0};  // mov rax, rdx
  const std::vector<InstructionText> att = disassemble(AsmSyntax::kAtt, code);
  REQUIRE(att.size() == 2);
  CHECK(att[0].address == kBase);
  CHECK(att[0].size == 3);
  CHECK(att[0].text == "divq %rcx");
  CHECK(att[1].address == kBase + 3);
  CHECK(att[1].text == "movq %rdx, %rax");
  const std::vector<InstructionText> intel = disassemble(AsmSyntax::kIntel, code);
  REQUIRE(intel.size() == 2);
  CHECK(intel[0].text == "div rcx");
  CHECK(intel[1].text == "mov rax, rdx");
}

TEST_CASE("X86Disassembler: a direct call's or jump's target, none for an indirect one", "[x86]") {
  const std::vector<InstructionText> insns = disassemble(AsmSyntax::kAtt, {
                                                             0xe8, 0x0b, 0x00, 0x00, 0x00,  // call kBase + 0x10
                                                             0x75, 0x02,                    // jne kBase + 0x9
                                                             0xff, 0xd0,                    // call *%rax
                                                             0xc3,                          // ret
                                                         });
  REQUIRE(insns.size() == 4);
  CHECK(insns[0].target == kBase + 0x10);
  CHECK(insns[1].target == kBase + 0x9);
  CHECK(insns[2].target == 0);
  CHECK(insns[3].target == 0);
  CHECK(insns[3].text == "retq");
}

TEST_CASE("X86Disassembler: a byte that does not decode is one (bad) instruction, and decoding goes on",
          "[x86]") {
  // 0x06 (push es) does not exist in 64-bit mode; a lone 0x48 prefix at the
  // end has no instruction to prefix.
  const std::vector<InstructionText> insns = disassemble(AsmSyntax::kAtt, {0x06, 0x90, 0x48});
  REQUIRE(insns.size() == 3);
  CHECK(insns[0].text == "(bad)");
  CHECK(insns[0].size == 1);
  CHECK(insns[1].address == kBase + 1);
  CHECK(insns[1].text == "nop");
  CHECK(insns[2].text == "(bad)");
  CHECK(insns[2].address == kBase + 2);
}
