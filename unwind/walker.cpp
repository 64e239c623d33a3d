#include "unwind/walker.h"

#include <cassert>
#include <cstring>

#include "unwind/cfi_rule_apply.h"
#include "unwind/walk_guards.h"

namespace swprof {

namespace {

constexpr uint64_t kPrefetchBytes = 4096;

// The copied stack as fast rules read it; without a word when it is not
// one buffer (then no fast rule applies: every frame asks the steppers, or
// applies its rule through checked reads).
WordView stack_words(const Memory& stack) {
  const std::optional<ContiguousView> view = stack.contiguous();
  const std::optional<WordView> words = view ? WordView::of(*view) : std::nullopt;
  return words.value_or(WordView{});
}

// Most walks read their frames from the copy's first 4 KiB: fetch them at
// once, so that when they are not in cache the reads overlap instead of
// waiting one after another (every frame's address depends on the last).
// 4 KiB, not 1: a compiler's deep stacks (cc1plus) walked over stacks out
// of cache took 10-20 % less time, xz's the same, stacks in cache the same
// (bench/RESULTS.md); 8 KiB cost xz a third more (memory bandwidth).
[[gnu::always_inline]] inline void prefetch_top(const WordView& words) {
  if (!words.data) return;
  const uint64_t end = std::min<uint64_t>(words.last + 8, kPrefetchBytes);
#pragma GCC unroll 64
  for (uint64_t off = 0; off < kPrefetchBytes; off += 64)
    if (off < end) __builtin_prefetch(words.data + off);
}

// Nothing was copied at sp and the pc is where a thread inside execve has it.
[[gnu::noinline, gnu::cold]] bool inside_execve(const Registers& r, const Memory& stack, const Mapping* pc_mapping) {
  return sampled_inside_execve(r.pc(), r.sp(), stack, pc_mapping);
}

}  // namespace

// The current frame: the registers fast rules use, where it is, and its
// cached rule (nullptr: none). Apart from the rest of the walk: these are
// the values every step depends on.
struct Walker::Cursor {
  FrameCore frame;
  FrameAddress at = FrameAddress::exact_pc(0);
  const UnwindRule* rule = nullptr;
};

enum class Walker::Flow : uint8_t {
  kNext,  // a caller frame was added: step it
  kAsk,   // the cached rule does not decide this frame: ask the steppers
  kEnd,   // the walk ends (Walk::end says why)
};

struct Walker::Walk {
  Walk(Walker& walker, const Registers& sampled_regs, const Memory& copied, const ProcessMaps& process_maps,
       RecentMappings& recent)
      : sampled(sampled_regs), stack(copied), maps(process_maps), words(stack_words(copied)), mappings(recent),
        space(process_maps.id()), use_cache(walker.options_.rule_cache), max_depth(walker.options_.max_depth),
        frames(walker.frames_.data()), rows(walker.rows_.data()), full(&sampled_regs) {}

  const Registers& sampled;
  const Memory& stack;
  const ProcessMaps& maps;
  const WordView words;  // data == nullptr: not one buffer
  // By reference: its slots are written at a computed index, which would
  // keep the whole walk's state in memory.
  RecentMappings& mappings;
  const uint64_t space;  // the rule cache's key for these maps
  // The walker's options and buffers, in locals: a frame's byte-sized
  // fields may alias anything, so members would be read again after each.
  const bool use_cache;
  const size_t max_depth;
  Frame* const frames;
  const CfiRule** const rows;

  const Mapping* mapping = nullptr;  // the current frame's (found when asking)
  size_t count = 0;  // frames so far

  // Every register of frame `full_at`; the frames after it were stepped
  // by fast rules (rows_[full_at..]).
  const Registers* full;
  size_t full_at = 0;

  WalkEnd end = WalkEnd::kBottom;
  Flow stop(WalkEnd why) {
    end = why;
    return Flow::kEnd;
  }
};

void Walker::walk(const Registers& sampled, const Memory& stack, const ProcessMaps& maps, WalkResult& out) {
  RecentMappings mappings(maps);
  Walk w(*this, sampled, stack, maps, mappings);
  out.end = run(w);
  // A walk that made no frame may be a sample inside execve whose old maps
  // are still current (checked here, off the path of every other walk).
  if (w.count == 1 && out.end != WalkEnd::kBottom && out.end != WalkEnd::kNoMappingsYet) [[unlikely]]
    if (inside_execve(sampled, stack, maps.find(sampled.pc()))) out.end = WalkEnd::kNoMappingsYet;
  // A read past the copy, when nothing was copied at the sampled sp, is no
  // copy too short: say so (a larger --stack-size would not help).
  if (out.end == WalkEnd::kStackExhausted && !stack.read_u64(sampled.sp())) [[unlikely]]
    out.end = WalkEnd::kNoStackCopied;
  // Frames are plain data: one copy (resize only initializes what is new
  // to `out`'s reused storage).
  out.frames.resize(w.count);
  if (w.count) std::memcpy(out.frames.data(), frames_.data(), w.count * sizeof(Frame));  // data() may be null
}

[[gnu::always_inline]] inline WalkEnd Walker::run(Walk& w) {
  Cursor c;
  if (start(w, c) == Flow::kEnd) return w.end;
  for (;;) {
    if (w.count >= w.max_depth) return WalkEnd::kMaxDepth;
    Flow flow = c.rule ? step_cached(w, c, *c.rule) : Flow::kAsk;
    if (flow == Flow::kAsk) flow = step_asking(w, c);
    if (flow == Flow::kEnd) return w.end;
  }
}

// Frame 0: the sampled registers.
[[gnu::always_inline]] inline Walker::Flow Walker::start(Walk& w, Cursor& c) {
  const Registers& r = w.sampled;
  if (!r.has(kRip) || !r.has(kRsp)) return w.stop(WalkEnd::kNoRegisters);
  w.frames[w.count++] = {r.pc(), r.sp(), StepperKind::kSample, kFrameExactPc};
  prefetch_top(w.words);
  c.frame = {r.pc(), r.sp(), r.bp(), r.has(kRbp)};
  c.at = FrameAddress::exact_pc(r.pc());
  c.rule = lookup(w, c.at);
  if (!c.rule) w.mapping = w.mappings.find(r.pc());
  if (!c.rule && !w.mapping && !w.stack.read_u64(r.sp())) return w.stop(WalkEnd::kNoMappingsYet);
  return Flow::kNext;
}

[[gnu::always_inline]] inline const UnwindRule* Walker::lookup(const Walk& w, FrameAddress at) const {
  return w.use_cache ? cache_.find(w.space, at) : nullptr;
}

// A cached rule: the bottom, or a fast rule applied to rip, rsp and rbp.
[[gnu::always_inline]] inline Walker::Flow Walker::step_cached(Walk& w, Cursor& c, const UnwindRule& rule) {
  if (!rule.fast()) [[unlikely]] {
    if (rule.kind == RuleKind::kBottom) return w.stop(WalkEnd::kBottom);
    return rule.kind == RuleKind::kEnd ? w.stop(static_cast<WalkEnd>(rule.cfa_offset)) : Flow::kAsk;
  }
  // Without words (a stack that is not one buffer) no read succeeds.
  const std::optional<FrameCore> stepped = apply_fast_rule(rule, c.frame, w.words);
  if (!stepped) [[unlikely]]
    return Flow::kAsk;
  const FrameCore& caller = *stepped;
  if (ends_stack(caller.pc)) return w.stop(WalkEnd::kBottom);
  if (!sp_went_up(c.frame.sp, caller.sp)) return w.stop(WalkEnd::kNoProgress);
  w.rows[w.count - 1] = rule.row;
  const FrameAddress at = FrameAddress::return_address(caller.pc);
  // A rule was cached: the cache is on.
  return enter_caller(w, c, caller, at, cache_.find(w.space, at), rule.by, 0);
}

// Records the caller frame and makes it current, with its cached rule or
// (when it has none) its mapping, which must be code.
[[gnu::always_inline]] inline Walker::Flow Walker::enter_caller(Walk& w, Cursor& c, const FrameCore& caller, FrameAddress at,
                                                                const UnwindRule* rule, StepperKind by, uint8_t flags) {
  if (!rule) [[unlikely]] {
    w.mapping = w.mappings.find(at.lookup_pc(), w.mapping);
    // A return address outside code means the step went wrong: drop it.
    if (!is_code(w.mapping)) return w.stop(WalkEnd::kUnmappedPc);
  }
  w.frames[w.count++] = {caller.pc, caller.sp, by, flags};
  c.frame = caller;
  c.at = at;
  c.rule = rule;
  return Flow::kNext;
}

// The steppers (or the cached rule, with every register) decide the frame.
[[gnu::always_inline]] inline Walker::Flow Walker::step_asking(Walk& w, Cursor& c) {
  w.mapping = w.mappings.find(c.at.lookup_pc(), w.mapping);
  const Registers& regs = full_registers(w);
  Registers& caller = spare_registers(w, regs);
  const StepInput in{regs, w.stack, w.mapping, w.maps, c.at, static_cast<int>(w.count - 1)};
  const StepperList::Asked asked = ask(w, c, in, caller);
  const StepAnswer& answer = asked.answer;
  if (answer.kind == StepKind::kBottom) return w.stop(WalkEnd::kBottom);
  if (answer.kind != StepKind::kCaller) return w.stop(answer.failure);
  if (!caller.has(kRip) || !caller.has(kRsp) || ends_stack(caller.pc())) return w.stop(WalkEnd::kBottom);
  const bool signal = answer.caller_flags & kFrameSignal;
  if (!moved(c.frame.pc, c.frame.sp, caller.pc(), caller.sp()) || (!signal && !sp_went_up(c.frame.sp, caller.sp())))
    return w.stop(WalkEnd::kNoProgress);
  w.full = &caller;
  w.full_at = w.count;
  const FrameAddress at = FrameAddress::of(caller.pc(), signal);
  return enter_caller(w, c, {caller.pc(), caller.sp(), caller.bp(), caller.has(kRbp)}, at, lookup(w, at),
                      asked.by, static_cast<uint8_t>(answer.caller_flags | (signal ? kFrameExactPc : 0)));
}

// With a cached rule: the rule applied to every register, else the
// steppers from first_to_ask(). Without: every stepper, and the answer's
// rule cached for the frame's address.
[[gnu::always_inline]] inline StepperList::Asked Walker::ask(Walk& w, const Cursor& c, const StepInput& in, Registers& caller) {
  if (c.rule) {
    const Applied a = apply_rule(*c.rule, in.regs, in.stack, caller);
    // A read past the copy ends the walk too (stepper_list.h).
    if (a.kind == StepKind::kCaller || a.kind == StepKind::kBottom ||
        (a.kind == StepKind::kFailed && a.failure == WalkEnd::kStackExhausted))
      return {StepAnswer::of(a), c.rule->by, {}};
    ++stepper_asks_;
    return steppers_.ask(in, caller, c.rule->first_to_ask());
  }
  ++stepper_asks_;
  StepperList::Asked asked = steppers_.ask(in, caller);
  if (w.use_cache && asked.rule && is_code(w.mapping)) cache_.insert(w.space, c.at, *asked.rule);
  return asked;
}

// Every register of the current frame: those of the last frame a stepper
// made (or the sample), with the rows of the fast rules after it applied
// again, alternating between the two buffers that do not hold w.full.
[[gnu::always_inline]] inline const Registers& Walker::full_registers(const Walk& w) const {
  const Registers* regs = w.full;
  for (size_t i = w.full_at; i + 1 < w.count; ++i) {
    Registers& into = spare_registers(w, *regs);
    [[maybe_unused]] const Applied r = apply_simple_rule(*w.rows[i], *regs, w.words, into);
    assert(r.kind == StepKind::kCaller && into.pc() == w.frames[i + 1].pc && into.sp() == w.frames[i + 1].sp);
    regs = &into;
  }
  return *regs;
}

// A buffer holding neither w.full nor `regs`.
[[gnu::always_inline]] inline Registers& Walker::spare_registers(const Walk& w, const Registers& regs) const {
  for (Registers& r : regs_)
    if (&r != w.full && &r != &regs) return r;
  return regs_[0];  // not reached: three buffers, two excluded
}

}  // namespace swprof
