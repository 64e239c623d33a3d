#include "binary/cfi_rule_conversion.h"

#include <dwarf.h>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace swprof;

namespace {

// A function's entry: the x86-64 ABI's default rules (callee-saved
// registers unchanged), then what a CIE's initial instructions add:
// CFA = rsp + 8, the return address at CFA - 8.
CfaState entry_state() {
  auto state = cie_initial_state(CieProgram{});
  REQUIRE(state);
  state->cfa = CfaState::kCfaOffset;
  state->cfa_register = kRsp;
  state->cfa_offset = 8;
  state->regs[kRip] = {CfaRegisterRule::kOffset, -8, {}};
  return *state;
}

std::string converted(const CfaState& state, uint64_t ra_column = kRip, bool signal = false) {
  auto rule = rule_from_cfa_state(state, ra_column, signal);
  return rule ? describe(*rule) : "none";
}

}  // namespace

TEST_CASE("interpreted rows convert to CfiRules, and rows without an equivalent do not", "[cfi]") {
  CfaState state = entry_state();
  CHECK(converted(state) == "cfa=rsp+8 ra=[cfa-8]");
  CHECK(converted(state, kRip, true) == "cfa=rsp+8 ra=[cfa-8] signal");
  CHECK(converted(state, kRax) == "none");  // the return address must be in rip's column

  // push rbp; mov rbp, rsp
  state.cfa_register = kRbp;
  state.cfa_offset = 16;
  state.regs[kRbp] = {CfaRegisterRule::kOffset, -16, {}};
  CHECK(converted(state) == "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16]");

  // GCC's DRAP: CFA = *(r10 - 8) would be DW_OP_breg10 -8; DW_OP_deref.
  const std::vector<uint8_t> drap = {DW_OP_breg10, 0x78, DW_OP_deref};
  state.cfa = CfaState::kCfaExpression;
  state.cfa_expression = Bytes(drap.data(), drap.size());
  CHECK(converted(state) == "cfa=[r10-8] ra=[cfa-8] rbp=[cfa-16]");

  // An expression no CfiRule can express.
  const std::vector<uint8_t> other = {DW_OP_breg7, 0x08, DW_OP_lit1, DW_OP_plus, DW_OP_deref};
  state.cfa_expression = Bytes(other.data(), other.size());
  CHECK(converted(state) == "none");

  state.cfa = CfaState::kCfaUndefined;
  CHECK(converted(state) == "none");
}
