#include "binary/cfi_rule.h"

namespace swprof {

namespace {

const char* dwarf_reg_name(unsigned reg) {
  static constexpr const char* kNames[kRegCount] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
                                                    "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
  return reg < kRegCount ? kNames[reg] : "?";
}

std::string signed_offset(int64_t off) { return (off < 0 ? "-" : "+") + std::to_string(off < 0 ? -off : off); }

std::string describe_saved(SavedRule how, int64_t off) {
  switch (how) {
    case SavedRule::kUndefined: return "undef";
    case SavedRule::kSameValue: return "same";
    case SavedRule::kAtCfa: return "[cfa" + signed_offset(off) + "]";
    case SavedRule::kValCfa: return "cfa" + signed_offset(off);
    case SavedRule::kAtRbp: return "[rbp" + signed_offset(off) + "]";
  }
  return "?";
}

}  // namespace

std::string describe(const CfiRule& rule) {
  const std::string base = std::string(dwarf_reg_name(rule.cfa_reg)) + signed_offset(rule.cfa_offset);
  std::string out = "cfa=";
  switch (rule.cfa) {
    case CfaRule::kRspOffset:
    case CfaRule::kRbpOffset:
    case CfaRule::kRegOffset: out += base; break;
    case CfaRule::kDerefReg: out += "[" + base + "]"; break;
    case CfaRule::kPlt: out += "plt(" + base + ",k=" + std::to_string(rule.plt_threshold) + ")"; break;
  }
  out += " ra=" + describe_saved(rule.ra(), rule.saved_offset[kSlotRa]);
  for (int slot = kSlotRbp; slot < kSavedSlotCount; ++slot) {
    if (rule.saved[slot] == SavedRule::kSameValue) continue;
    out += std::string(" ") + dwarf_reg_name(kSavedSlotReg[slot]) + "=" + describe_saved(rule.saved[slot], rule.saved_offset[slot]);
  }
  if (rule.flags & kCfiSignalFrame) out += " signal";
  return out;
}

}  // namespace swprof
