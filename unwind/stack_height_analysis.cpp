#include "unwind/stack_height_analysis.h"

#include <algorithm>

namespace swprof {

namespace {

using RbpRule = StackHeight::RbpRule;

// Offsets beyond this are not stack frames: treat them as unknown.
constexpr int64_t kMaxOffset = int64_t{1} << 24;

// How much an edge into a state is trusted. Where two states disagree, the
// more trusted one wins; equally trusted ones merge to "unknown".
enum class Trust : uint8_t {
  kGuess = 0,    // seeded into code no edge reaches
  kWeak = 1,     // reached only through a call's fall-through (the callee may not return)
  kStrong = 2,   // reached from the entry through jumps and plain fall-through
};

// The dataflow fact before one instruction.
struct State {
  StackHeight h;
  Trust trust = Trust::kStrong;

  bool operator==(const State&) const = default;
};

State entry_state() {
  State s;
  s.h.cfa_from_rsp = 8;  // rsp points at the return address
  s.h.rbp = RbpRule::kSameValue;
  return s;
}

std::optional<int32_t> plus(std::optional<int32_t> a, int64_t delta) {
  if (!a || delta > kMaxOffset || delta < -kMaxOffset) return std::nullopt;
  const int64_t v = *a + delta;
  if (v > kMaxOffset || v < -kMaxOffset) return std::nullopt;
  return static_cast<int32_t>(v);
}

// The stack slot at rsp + disp, as an offset from the CFA.
std::optional<int32_t> slot_at_rsp(const StackHeight& h, int64_t disp) {
  if (!h.cfa_from_rsp) return std::nullopt;
  return plus(-*h.cfa_from_rsp, disp);
}

bool callee_saved(int reg) {
  return reg == kRbx || reg == kRbp || reg == kR12 || reg == kR13 || reg == kR14 || reg == kR15;
}

void set_rbp_rule(StackHeight& h, RbpRule rule, int32_t slot = 0) {
  h.rbp = rule;
  h.rbp_slot = rule == RbpRule::kSaved ? slot : 0;  // one representation per fact
}

// rbp gets a value that is not the caller's and not a frame pointer.
void clobber_rbp(StackHeight& h) {
  h.cfa_from_rbp.reset();
  if (h.rbp == RbpRule::kSameValue) set_rbp_rule(h, RbpRule::kUnknown);
}

// rbp is loaded from the stack slot at CFA + slot.
void load_rbp(StackHeight& h, std::optional<int32_t> slot) {
  const bool restores = h.rbp == RbpRule::kSaved && slot && *slot == h.rbp_slot;
  clobber_rbp(h);
  if (restores) set_rbp_rule(h, RbpRule::kSameValue);
}

// rbp is stored to the stack slot at CFA + slot.
void store_rbp(StackHeight& h, std::optional<int32_t> slot) {
  if (h.rbp != RbpRule::kSameValue || !slot) return;
  set_rbp_rule(h, RbpRule::kSaved, *slot);
}

void push(StackHeight& h, int64_t size, int reg) {
  h.cfa_from_rsp = plus(h.cfa_from_rsp, size);
  if (reg == kRbp) store_rbp(h, slot_at_rsp(h, 0));
}

void pop(StackHeight& h, int64_t size, int reg) {
  const std::optional<int32_t> slot = slot_at_rsp(h, 0);
  h.cfa_from_rsp = plus(h.cfa_from_rsp, -size);
  if (reg == kRbp) load_rbp(h, slot);
}

void forget_cfa_reg(StackHeight& h) {
  h.cfa_reg = -1;
  h.cfa_from_reg = 0;
}

void forget_cfa_slot(StackHeight& h) {
  h.cfa_slot.reset();
  h.cfa_from_slot = 0;
}

// rsp moves by `delta` bytes (negative: down): the slot holding the copy of
// an old rsp is that much nearer.
void move_rsp(StackHeight& h, int64_t delta) {
  h.cfa_from_rsp = plus(h.cfa_from_rsp, -delta);
  h.cfa_slot = plus(h.cfa_slot, -delta);
  if (!h.cfa_slot) h.cfa_from_slot = 0;
}

// A kOther instruction: the registers it writes, and the copies of rsp it makes.
void transfer_other(StackHeight& h, const X86Insn& insn) {
  if (insn.clobbers_rsp) {
    h.cfa_from_rsp.reset();
    forget_cfa_slot(h);
  }
  if (insn.clobbers_rbp) clobber_rbp(h);
  if (h.cfa_reg >= 0 && ((insn.writes >> h.cfa_reg) & 1u)) forget_cfa_reg(h);
  if (insn.rsp_copy >= 0 && insn.rsp_copy != kRbp && h.cfa_from_rsp) {
    if (const std::optional<int32_t> off = plus(h.cfa_from_rsp, -insn.imm)) {
      h.cfa_reg = insn.rsp_copy;
      h.cfa_from_reg = *off;
    }
  }
  if (insn.stored >= 0 && h.cfa_slot && *h.cfa_slot == insn.imm) forget_cfa_slot(h);  // the copy overwritten
  if (insn.stored >= 0 && insn.stored == h.cfa_reg) {
    h.cfa_slot = static_cast<int32_t>(insn.imm);
    h.cfa_from_slot = h.cfa_from_reg;
  }
}

constexpr uint32_t kEveryGpr = (1u << kRip) - 1;

// The GPRs an instruction writes, as the caller's-registers rule counts them.
uint32_t writes_of(const X86Insn& insn) {
  const auto bit = [](int reg) { return reg >= 0 && reg < kRip ? 1u << reg : 0u; };
  switch (insn.op) {
    case X86Op::kOther: return insn.writes | (insn.clobbers_rsp ? bit(kRsp) : 0) | (insn.clobbers_rbp ? bit(kRbp) : 0);
    case X86Op::kPop: return bit(kRsp) | (insn.reg >= 0 ? bit(insn.reg) : kEveryGpr);
    case X86Op::kLeave:
    case X86Op::kSetRbpFromRsp:
    case X86Op::kLoadRbp: return bit(kRsp) | bit(kRbp);
    case X86Op::kCall:
    case X86Op::kInvalid: return kEveryGpr;
    default: return bit(kRsp);
  }
}

// `kept_across_calls`: caller-saved registers the function itself restores
// rsp from (`mov rsp, reg`): its own code relies on its callees (internal
// helpers of hand-written assembly) leaving them alone.
StackHeight transfer(StackHeight h, const X86Insn& insn, uint32_t kept_across_calls) {
  h.written |= writes_of(insn);
  switch (insn.op) {
    case X86Op::kPush:
      h.cfa_slot = plus(h.cfa_slot, insn.imm);
      push(h, insn.imm, insn.reg);
      break;
    case X86Op::kPop:
      h.cfa_slot = plus(h.cfa_slot, -insn.imm);
      if (insn.reg == h.cfa_reg) forget_cfa_reg(h);
      pop(h, insn.imm, insn.reg);
      break;
    case X86Op::kAddRsp: move_rsp(h, insn.imm); break;
    case X86Op::kSetRspFromReg:
      h.cfa_from_rsp = h.cfa_reg >= 0 && insn.reg == h.cfa_reg ? std::optional<int32_t>(h.cfa_from_reg) : std::nullopt;
      forget_cfa_slot(h);
      break;
    case X86Op::kLoadRsp:
      h.cfa_from_rsp = h.cfa_slot && *h.cfa_slot == insn.imm ? std::optional<int32_t>(h.cfa_from_slot) : std::nullopt;
      forget_cfa_slot(h);
      break;
    case X86Op::kCall:
      if (h.cfa_reg >= 0 && !callee_saved(h.cfa_reg) && !((kept_across_calls >> h.cfa_reg) & 1u))
        forget_cfa_reg(h);  // the callee may write it
      break;
    case X86Op::kSetRbpFromRsp: {
      // rbp = rsp + imm, so CFA = rbp - imm + cfa_from_rsp.
      const std::optional<int32_t> frame = plus(h.cfa_from_rsp, -insn.imm);
      clobber_rbp(h);
      h.cfa_from_rbp = frame;
      break;
    }
    case X86Op::kSetRspFromRbp:
      h.cfa_from_rsp = plus(h.cfa_from_rbp, -insn.imm);
      forget_cfa_slot(h);
      break;
    case X86Op::kLoadRbp: load_rbp(h, slot_at_rsp(h, insn.imm)); break;
    case X86Op::kStoreRbp: store_rbp(h, slot_at_rsp(h, insn.imm)); break;
    case X86Op::kLeave:
      h.cfa_from_rsp = h.cfa_from_rbp;
      forget_cfa_slot(h);
      pop(h, 8, kRbp);
      break;
    case X86Op::kAlignRsp:
      h.cfa_from_rsp.reset();
      forget_cfa_slot(h);
      break;
    case X86Op::kOther: transfer_other(h, insn); break;
    default: break;  // control flow and endbr64 leave rsp and rbp alone
  }
  return h;
}

bool same_rbp(const StackHeight& a, const StackHeight& b) { return a.rbp == b.rbp && a.rbp_slot == b.rbp_slot; }

// Equally trusted states: what they disagree on becomes unknown.
StackHeight meet(StackHeight a, const StackHeight& b) {
  if (a.cfa_from_rsp != b.cfa_from_rsp) a.cfa_from_rsp.reset();
  if (a.cfa_from_rbp != b.cfa_from_rbp) a.cfa_from_rbp.reset();
  if (a.cfa_reg != b.cfa_reg || a.cfa_from_reg != b.cfa_from_reg) forget_cfa_reg(a);
  if (a.cfa_slot != b.cfa_slot || a.cfa_from_slot != b.cfa_from_slot) forget_cfa_slot(a);
  if (!same_rbp(a, b)) set_rbp_rule(a, RbpRule::kUnknown);
  a.written |= b.written;
  return a;
}

// Merges `in` into `into`; true when `into` changed.
bool merge(State& into, const State& in) {
  if (in.trust < into.trust) return false;
  State merged;
  merged.trust = in.trust;
  merged.h = in.trust > into.trust ? in.h : meet(into.h, in.h);
  if (merged == into) return false;
  into = merged;
  return true;
}

// The forward dataflow over one function's reachable instructions.
class Dataflow {
 public:
  Dataflow(X86Decoder& decoder, Bytes code, uint64_t start, uint32_t kept_across_calls = 0)
      : decoder_(decoder), code_(code), start_(start), end_(start + code.size()), kept_across_calls_(kept_across_calls) {}

  // The registers reached code restores rsp from (kSetRspFromReg).
  uint32_t rsp_restored_from() const {
    uint32_t mask = 0;
    for (const Node& n : nodes_)
      if (n.has_state && n.insn.op == X86Op::kSetRspFromReg && n.insn.reg >= 0) mask |= 1u << n.insn.reg;
    return mask;
  }

  // False when the work bound was hit (the result would be partial).
  bool run() {
    flow(start_, entry_state());
    if (!drain()) return false;
    if (const std::optional<State> s = unreached_code_state()) return seed_unreached(*s);
    return true;
  }

  std::vector<FunctionStackHeights::Entry> entries() const {
    std::vector<FunctionStackHeights::Entry> out;
    out.reserve(nodes_.size());
    for (const Node& n : nodes_)
      if (n.has_state && n.insn.op != X86Op::kInvalid) out.push_back({n.insn.addr, n.insn.size, n.state.h});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.addr < b.addr; });
    return out;
  }
  size_t work() const { return work_; }

 private:
  struct Node {
    X86Insn insn;
    State state;
    bool has_state = false;
    bool queued = false;
  };

  bool in_range(uint64_t addr) const { return addr >= start_ && addr < end_; }

  // The index of the node at addr, decoding it on first use; nullopt outside the function.
  std::optional<size_t> node_at(uint64_t addr) {
    if (!in_range(addr)) return std::nullopt;
    auto [it, inserted] = index_.try_emplace(addr, static_cast<uint32_t>(nodes_.size()));
    if (inserted) nodes_.push_back({decoder_.decode(code_, start_, addr), State{}, false, false});
    return it->second;
  }

  // An edge into `to` carrying state `s`.
  void flow(uint64_t to, const State& s) {
    const std::optional<size_t> i = node_at(to);
    if (!i) return;
    Node& n = nodes_[*i];
    if (!n.has_state) {
      n.state = s;
      n.has_state = true;
    } else if (!merge(n.state, s)) {
      return;
    }
    if (!n.queued) {
      n.queued = true;
      worklist_.push_back(static_cast<uint32_t>(*i));
    }
  }

  bool drain() {
    while (!worklist_.empty()) {
      if (++work_ > StackHeightAnalysis::kMaxWork) return false;
      const uint32_t i = worklist_.back();
      worklist_.pop_back();
      nodes_[i].queued = false;
      step(nodes_[i].insn, nodes_[i].state);
    }
    return true;
  }

  // By value: flow() may grow nodes_.
  void step(const X86Insn insn, State out) {
    out.h = transfer(out.h, insn, kept_across_calls_);
    if (insn.op == X86Op::kJump || insn.op == X86Op::kCondJump) flow(insn.target, out);
    if (!insn.falls_through()) return;
    if (insn.op == X86Op::kCall) out.trust = std::min(out.trust, Trust::kWeak);
    flow(insn.end(), out);
  }

  // The state for code no edge reached: the agreed state at the indirect
  // jumps that are not tail calls (switch tables), else at the calls
  // (landing pads run at the height of the call that threw).
  std::optional<State> unreached_code_state() const {
    const StackHeight entry = entry_state().h;
    std::optional<StackHeight> at_jumps, at_calls;
    for (const Node& n : nodes_) {
      if (!n.has_state) continue;
      if (n.insn.op == X86Op::kIndirectJump && !(n.state.h == entry))
        at_jumps = at_jumps ? meet(*at_jumps, n.state.h) : n.state.h;
      else if (n.insn.op == X86Op::kCall)
        at_calls = at_calls ? meet(*at_calls, n.state.h) : n.state.h;
    }
    const std::optional<StackHeight>& pick = at_jumps ? at_jumps : at_calls;
    if (!pick || !pick->known()) return std::nullopt;
    State s{*pick, Trust::kGuess};
    s.h.written = kEveryGpr;  // what ran before is not known
    return s;
  }

  // Sweeps the function linearly; each instruction no edge reached gets `s`.
  bool seed_unreached(const State& s) {
    for (uint64_t addr = start_; addr < end_;) {
      const size_t i = *node_at(addr);
      const X86Insn insn = nodes_[i].insn;
      if (insn.op == X86Op::kInvalid) {
        addr += 1;
        continue;
      }
      if (!nodes_[i].has_state) {
        flow(addr, s);
        if (!drain()) return false;
      }
      addr = insn.end();
    }
    return true;
  }

  X86Decoder& decoder_;
  Bytes code_;
  uint64_t start_, end_;
  std::vector<Node> nodes_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<uint32_t> worklist_;
  size_t work_ = 0;
  uint32_t kept_across_calls_;
};

}  // namespace

StackHeight FunctionStackHeights::at(uint64_t addr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), addr, [](uint64_t a, const Entry& e) { return a < e.addr; });
  if (it == entries_.begin()) return {};
  --it;
  if (addr >= it->addr + it->size) return {};
  return it->height;
}

FunctionStackHeights StackHeightAnalysis::analyze_function(Bytes code, uint64_t start) {
  FunctionStackHeights out;
  if (!decoder_.ok() || code.empty()) return out;
  Dataflow first(decoder_, code, start);
  bool complete = first.run();
  // Restoring rsp from a register: once more, keeping that register's copy
  // of rsp over calls.
  std::optional<Dataflow> second;
  if (const uint32_t kept = complete ? first.rsp_restored_from() : 0) {
    second.emplace(decoder_, code, start, kept);
    complete = second->run();
  }
  const Dataflow& flow = second ? *second : first;
  out.work_ = flow.work();
  if (complete) out.entries_ = flow.entries();
  return out;
}

StackHeight StackHeightAnalysis::analyze(Bytes code, uint64_t start, uint64_t pc) {
  return analyze_function(code, start).at(pc);
}

const FunctionStackHeights& StackHeightAnalysis::function(const ElfBinary& binary, const FunctionBounds& fn) {
  const Key key{&binary, fn.start};
  for (const RecentFunction& r : recent_)
    if (r.key == key) return r.heights;
  const size_t size = std::min<uint64_t>(fn.end - fn.start, kMaxFunctionBytes);
  FunctionStackHeights heights = analyze_function(binary.code_at(fn.start, size), fn.start);
  if (recent_.size() < kRecentFunctions) {
    recent_.push_back({key, std::move(heights)});
    return recent_.back().heights;
  }
  RecentFunction& slot = recent_[next_recent_];
  next_recent_ = (next_recent_ + 1) % kRecentFunctions;
  slot = {key, std::move(heights)};
  return slot.heights;
}

StackHeight StackHeightAnalysis::at(const ElfBinary& binary, const FunctionBounds& fn, uint64_t pc) {
  const Key key{&binary, pc};
  if (auto it = by_pc_.find(key); it != by_pc_.end()) return it->second;
  const StackHeight h = function(binary, fn).at(pc);
  if (by_pc_.size() >= max_cached_pcs_) by_pc_.clear();
  by_pc_.emplace(key, h);
  return h;
}

}  // namespace swprof
