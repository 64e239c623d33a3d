#include "unwind/walker.h"

#include <cassert>
#include <cstring>

namespace swprof {

namespace {
constexpr uint64_t kPrefetchBytes = 1024;
}  // namespace

void Walker::remember(const Mapping& mapping, uint64_t pc, bool exact, uint64_t tag) {
  const std::optional<StepperGroup::Remembered> r = group_.remembered(mapping, pc, exact);
  if (!r) return;
  Known k;
  k.pc = pc;
  k.tag = tag;
  k.rule = r->rule;
  k.by = r->by;
  if (!r->rule) {
    k.flags = kKnownBottom;
  } else {
    const CfiRule& rule = *r->rule;
    if (rule.saved_offset[kSlotRa] != -8) return;  // a call leaves the return address right below the CFA
    if (rule.cfa_reg == kRbp) k.flags |= kKnownCfaFromBp;
    else if (rule.cfa_reg != kRsp) return;
    k.cfa_offset = rule.cfa_offset;
    if (rule.recover_mask & (1u << kSlotRbp)) {
      k.flags |= kKnownRestoresBp;
      k.bp_offset = rule.saved_offset[kSlotRbp];
    }
  }
  KnownSet& set = known_[known_set(pc)];
  if (set.way[0].pc != pc || set.way[0].tag != tag) set.way[1] = set.way[0];
  set.way[0] = k;
}

void Walker::walk(const Registers& sampled, const Memory& stack, const ProcessMaps& maps, WalkResult& out) {
  if (!sampled.has(kRip) || !sampled.has(kRsp)) {
    out.frames.clear();
    out.end = WalkEnd::kNoRegisters;
    return;
  }
  Frame* const frames = frames_.data();
  const CfiRule** const rules = rules_.data();
  const size_t max_depth = options_.max_depth;
  size_t count = 0;
  auto finish = [&](WalkEnd end) {
    // Frames are plain data: one copy (resize only initializes what is
    // new to `out`'s reused storage).
    out.frames.resize(count);
    std::memcpy(out.frames.data(), frames, count * sizeof(Frame));
    out.end = end;
  };
  frames[count++] = {sampled.pc(), sampled.sp(), StepperKind::kSample, kFrameExactPc};
  const std::optional<WordView> words = stack_words(stack);
  // Most walks read their first frames from the copy's first KiB: fetch it
  // at once, so that when it is not in cache the reads overlap instead of
  // waiting one after another (every frame's address depends on the last).
  if (words) {
    const uint64_t end = std::min<uint64_t>(words->last + 8, kPrefetchBytes);
#pragma GCC unroll 16
    for (uint64_t off = 0; off < kPrefetchBytes; off += 64)
      if (off < end) __builtin_prefetch(words->data + off);
  }
  // The rules of remembered frames are applied to words of the copy.
  const bool use_known = words && options_.remembered_frames;
  const uint64_t tag = maps.id() * 2;  // + exactness
  auto probe = [&](uint64_t pc, bool exact) -> const Known* {
    const KnownSet& set = known_[known_set(pc)];
    for (const Known& k : set.way)
      if (k.pc == pc && k.tag == tag + exact) return &k;
    return nullptr;
  };

  // The current frame: pc, sp and rbp, whether its pc is exact, and either
  // its remembered entry or its mapping.
  uint64_t pc = sampled.pc();
  uint64_t sp = sampled.sp();
  uint64_t bp = sampled.bp();
  bool bp_known = sampled.has(kRbp);
  bool exact = true;
  RecentMappings mappings(maps);
  const Known* known = use_known ? probe(pc, true) : nullptr;
  const Mapping* mapping = known ? nullptr : mappings.find(pc);
  if (!known && !mapping && !stack.read_u64(sp)) return finish(WalkEnd::kNoMappingsYet);

  // Every register of frame `checkpoint_at`; frames after it were
  // remembered frames, their registers rebuilt on demand by applying
  // rules_ again (in regs_[], which never holds the checkpoint).
  const Registers* checkpoint = &sampled;
  size_t checkpoint_at = 0;

  for (;;) {
    if (count >= max_depth) return finish(WalkEnd::kMaxDepth);
    if (known) {
      if (known->flags & kKnownBottom) return finish(WalkEnd::kBottom);
      const bool from_bp = known->flags & kKnownCfaFromBp;
      const uint64_t base = from_bp ? bp : sp;
      const int64_t offset = known->cfa_offset;
      const uint64_t cfa = base + static_cast<uint64_t>(offset);  // the same checks as apply_simple_rule
      const bool overflow = (offset < 0) == (cfa >= base);
      if (!(from_bp && !bp_known) && !overflow && cfa - (1u << 15) <= ~uint64_t{0} - (2u << 15) &&
          words->has_word(cfa - 8)) [[likely]] {
        const uint64_t ra = words->word(cfa, -8);
        if (ra == 0) return finish(WalkEnd::kBottom);  // a zero return address ends every ABI-conforming stack
        if (cfa <= sp) return finish(WalkEnd::kNoProgress);
        const Known* next = probe(ra, false);
        if (!next) {
          mapping = mappings.find(ra - 1);
          if (!mapping || !mapping->executable) return finish(WalkEnd::kUnmappedPc);
        }
        if (known->flags & kKnownRestoresBp) {
          const uint64_t at = cfa + static_cast<uint64_t>(static_cast<int64_t>(known->bp_offset));
          bp_known = words->has_word(at);
          if (bp_known) bp = words->word(at, 0);
        }
        rules[count - 1] = known->rule;
        frames[count++] = {ra, cfa, known->by, 0};
        pc = ra;
        sp = cfa;
        exact = false;
        known = next;
        continue;
      }
      // The rule does not apply here: the steppers decide.
      mapping = mappings.find(exact ? pc : pc - 1);
    }

    // Ask the group, with every register of the current frame.
    const size_t at = count - 1;
    // Two buffers other than the checkpoint's: rebuilt frames alternate
    // between them, the caller goes into the one not holding the frame.
    Registers* spare[2];
    for (int i = 0, n = 0; n < 2; ++i)
      if (&regs_[i] != checkpoint) spare[n++] = &regs_[i];
    const Registers* regs = checkpoint;
    for (size_t i = checkpoint_at; i < at; ++i) {
      Registers* into = regs == spare[0] ? spare[1] : spare[0];
      [[maybe_unused]] const StepResult r = apply_simple_rule(*rules[i], *regs, *words, *into);
      assert(r.status == StepStatus::kSuccess && into->pc() == frames[i + 1].pc && into->sp() == frames[i + 1].sp);
      regs = into;
    }
    Registers& caller = regs == spare[0] ? *spare[1] : *spare[0];
    const GroupResult step = group_.step_frame(*regs, stack, words ? &*words : nullptr, mapping, maps, exact,
                                               static_cast<int>(at), caller);
    if (use_known && mapping && mapping->executable) remember(*mapping, pc, exact, tag + exact);
    if (step.result.status == StepStatus::kStackBottom) return finish(WalkEnd::kBottom);
    if (step.result.status != StepStatus::kSuccess) return finish(step.result.error);
    if (!caller.has(kRip) || !caller.has(kRsp) || caller.pc() == 0)
      return finish(WalkEnd::kBottom);  // a zero return address ends every ABI-conforming stack
    const bool signal = step.result.caller_flags & kFrameSignal;
    const bool moved = caller.sp() != sp || caller.pc() != pc;
    if (!moved || (!signal && caller.sp() <= sp)) return finish(WalkEnd::kNoProgress);
    // The caller's code, looked up once: checked here, used by the next step.
    mapping = mappings.find(signal ? caller.pc() : caller.pc() - 1, mapping);
    // A return address outside code means the step went wrong: drop it.
    if (!mapping || !mapping->executable) return finish(WalkEnd::kUnmappedPc);
    frames[count++] = {caller.pc(), caller.sp(), step.by,
                       static_cast<uint8_t>(step.result.caller_flags | (signal ? kFrameExactPc : 0))};
    checkpoint = &caller;
    checkpoint_at = count - 1;
    pc = caller.pc();
    sp = caller.sp();
    bp = caller.bp();
    bp_known = caller.has(kRbp);
    exact = signal;
    known = use_known ? probe(pc, exact) : nullptr;
  }
}

}  // namespace swprof
