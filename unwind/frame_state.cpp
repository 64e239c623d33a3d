#include "unwind/frame_state.h"

#include <algorithm>

namespace swprof {

namespace {

// Bound on the epilogue sweep, in instructions.
constexpr size_t kMaxSweepInstructions = 100000;

bool restores_rbp(const X86Insn& insn) {
  return (insn.op == X86Op::kPop && insn.reg == kRbp) || insn.op == X86Op::kLeave;
}

bool leaves_function(const X86Insn& insn) {
  return insn.op == X86Op::kReturn || insn.op == X86Op::kJump || insn.op == X86Op::kIndirectJump;
}

bool is_filler(const X86Insn& insn) {
  return insn.op == X86Op::kOther && !insn.clobbers_rsp && !insn.clobbers_rbp;
}

// The first instruction at or after `addr` that is not filler (nor endbr64).
X86Insn skip_filler(X86Decoder& decoder, Bytes code, uint64_t start, uint64_t addr) {
  X86Insn insn = decoder.decode(code, start, addr);
  while (is_filler(insn) || insn.op == X86Op::kEndbr) insn = decoder.decode(code, start, insn.end());
  return insn;
}

// Sets kind, after_push and after_mov from the prologue. Compilers schedule
// unrelated instructions around `push rbp` and `mov rbp, rsp`
// (`push rbp; xor eax, eax; mov rbp, rsp`): skip those.
void read_prologue(X86Decoder& decoder, Bytes code, uint64_t start, FunctionFrameLayout& out) {
  const Bytes prologue = code.first(std::min(code.size(), FrameStateHelper::kPrologueBytes));
  const X86Insn push = skip_filler(decoder, prologue, start, start);
  if (push.op != X86Op::kPush || push.reg != kRbp) return;
  out.after_push = push.end();
  const X86Insn mov = skip_filler(decoder, prologue, start, out.after_push);
  if (mov.op == X86Op::kSetRbpFromRsp && mov.imm == 0) {
    out.kind = FrameKind::kStandard;
    out.after_mov = mov.end();
  } else {
    out.kind = FrameKind::kSaveFpOnly;
  }
}

// Linear sweep: every `pop rbp` / `leave` followed by a `ret` or a tail jump,
// with only filler between (compilers schedule the computation of the
// return value after `leave`), is an epilogue.
void find_epilogues(X86Decoder& decoder, Bytes code, uint64_t start, FunctionFrameLayout& out) {
  const uint64_t end = start + code.size();
  uint64_t restored_at = 0;  // after the last `pop rbp` / `leave`; 0: none pending
  size_t count = 0;
  for (uint64_t addr = start; addr < end && count < kMaxSweepInstructions; ++count) {
    const X86Insn insn = decoder.decode(code, start, addr);
    if (insn.op == X86Op::kInvalid) {
      restored_at = 0;
      addr += 1;
      continue;
    }
    if (restores_rbp(insn)) {
      restored_at = insn.end();
    } else if (restored_at != 0) {
      if (leaves_function(insn)) {
        out.epilogues.push_back({restored_at, insn.addr});
        restored_at = 0;
      } else if (!is_filler(insn)) {
        restored_at = 0;
      }
    }
    addr = insn.end();
  }
}

}  // namespace

const char* frame_kind_name(FrameKind kind) {
  switch (kind) {
    case FrameKind::kNoFrame: return "no_frame";
    case FrameKind::kStandard: return "standard";
    case FrameKind::kSaveFpOnly: return "savefp_only";
  }
  return "?";
}

const char* frame_setup_name(FrameSetup setup) {
  switch (setup) {
    case FrameSetup::kUnset: return "unset";
    case FrameSetup::kHalfset: return "halfset";
    case FrameSetup::kSet: return "set";
  }
  return "?";
}

FrameSetup FunctionFrameLayout::setup_at(uint64_t pc) const {
  if (kind == FrameKind::kNoFrame || pc < after_push) return FrameSetup::kUnset;
  for (const UnsetRange& e : epilogues)
    if (pc >= e.from && pc <= e.to) return FrameSetup::kUnset;
  if (kind == FrameKind::kSaveFpOnly || pc < after_mov) return FrameSetup::kHalfset;
  return FrameSetup::kSet;
}

FunctionFrameLayout analyze_frame_layout(X86Decoder& decoder, Bytes code, uint64_t start) {
  FunctionFrameLayout out;
  out.start = start;
  read_prologue(decoder, code, start, out);
  if (out.kind != FrameKind::kNoFrame) find_epilogues(decoder, code, start, out);
  return out;
}

const FunctionFrameLayout* FrameStateHelper::layout(const ElfBinary& binary, const FunctionBounds& fn) {
  const Key key{&binary, fn.start};
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (cache_.size() >= max_functions_) cache_.clear();
    const size_t size = std::min<uint64_t>(fn.end - fn.start, kMaxFunctionBytes);
    const Bytes code = binary.code_at(fn.start, size);
    Entry entry;
    entry.readable = !code.empty();
    if (entry.readable) entry.layout = analyze_frame_layout(decoder_, code, fn.start);
    it = cache_.emplace(key, std::move(entry)).first;
  }
  return it->second.readable ? &it->second.layout : nullptr;
}

std::optional<FrameState> FrameStateHelper::state_at(const ElfBinary& binary, const FunctionBounds& fn, uint64_t pc) {
  const FunctionFrameLayout* l = layout(binary, fn);
  if (!l) return std::nullopt;
  return l->state_at(pc);
}

FrameState FrameStateHelper::state_at(Bytes code, uint64_t start, uint64_t pc) {
  return analyze_frame_layout(decoder_, code, start).state_at(pc);
}

}  // namespace swprof
