#include "unwind/stepper_list.h"

#include <catch2/catch.hpp>

#include "support/fake_maps.h"
#include "support/stepped.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::vector<uint8_t> kNoStack;
const BufferMemory kEmptyStack(0x7000, Bytes(kNoStack.data(), 0));

struct Recorder {
  std::vector<StepperKind> asked;
  std::unique_ptr<FrameStepper> stepper(StepperKind k, Stepped out) {
    return std::make_unique<ScriptedStepper>(k, [this, k, out](const StepInput&) {
      asked.push_back(k);
      return out;
    });
  }
};

Stepped by_pc(Stepped s, UnwindRule rule) {
  s.cache = AnswerCache::kRule;
  s.rule = rule;
  return s;
}
Stepped not_mine_by_pc() { return stepped(StepAnswer::not_mine_by_pc(), Registers{}); }

}  // namespace

TEST_CASE("stepper list: list order, fallthrough on not_mine and failure", "[stepper_list]") {
  auto maps = fake_code_maps();
  Recorder rec;
  StepperList list;
  list.add(rec.stepper(StepperKind::kBottom, not_mine_here()));
  list.add(rec.stepper(StepperKind::kCfi, failed_with(WalkEnd::kNoUnwindInfo)));
  list.add(rec.stepper(StepperKind::kAnalysis, caller_is(regs_at(0x401100, 0x7100))));
  Registers r = regs_at(0x401000, 0x7000);
  StepInput in{r, kEmptyStack, maps.find(0x401000), maps, FrameAddress::exact_pc(r.pc()), 0};
  Registers caller;
  StepperList::Asked out = list.ask(in, caller);
  CHECK(out.answer.kind == StepKind::kCaller);
  CHECK(out.by == StepperKind::kAnalysis);
  CHECK(caller.pc() == 0x401100);
  CHECK(rec.asked == std::vector<StepperKind>{StepperKind::kBottom, StepperKind::kCfi, StepperKind::kAnalysis});

  StepperList failing;
  failing.add(rec.stepper(StepperKind::kCfi, failed_with(WalkEnd::kNoUnwindInfo)));
  failing.add(rec.stepper(StepperKind::kFramePointer, failed_with(WalkEnd::kBadFramePointer)));
  StepperList::Asked bad = failing.ask(in, caller);
  CHECK(bad.answer.kind == StepKind::kFailed);
  CHECK(bad.answer.failure == WalkEnd::kNoUnwindInfo);
  CHECK(bad.by == StepperKind::kCfi);

  SECTION("asking from a position skips the steppers before it") {
    rec.asked.clear();
    out = list.ask(in, caller, 2);
    CHECK(out.answer.kind == StepKind::kCaller);
    CHECK(rec.asked == std::vector<StepperKind>{StepperKind::kAnalysis});
  }
}

TEST_CASE("stepper list: a read past the copied stack decides: no later stepper guesses", "[stepper_list]") {
  auto maps = fake_code_maps();
  Recorder rec;
  StepperList list;
  list.add(rec.stepper(StepperKind::kCfi, not_mine_here()));
  list.add(rec.stepper(StepperKind::kFramePointer, failed_with(WalkEnd::kStackExhausted)));
  list.add(rec.stepper(StepperKind::kAnalysis, failed_with(WalkEnd::kNoUnwindInfo)));
  list.add(rec.stepper(StepperKind::kWanderer, caller_is(regs_at(0x401100, 0x7100))));
  Registers r = regs_at(0x401000, 0x7000);
  StepInput in{r, kEmptyStack, maps.find(0x401000), maps, FrameAddress::return_address(r.pc()), 1};
  Registers caller;
  const StepperList::Asked out = list.ask(in, caller);
  CHECK(out.answer.kind == StepKind::kFailed);
  CHECK(out.answer.failure == WalkEnd::kStackExhausted);
  CHECK(out.by == StepperKind::kFramePointer);
  CHECK(rec.asked == std::vector<StepperKind>{StepperKind::kCfi, StepperKind::kFramePointer});
}

TEST_CASE("stepper list: the rule to cache is the first claimer's, when every stepper before it decided by pc",
          "[stepper_list]") {
  auto maps = fake_code_maps();
  Recorder rec;
  Registers r = regs_at(0x401000, 0x7000);
  StepInput in{r, kEmptyStack, maps.find(0x401000), maps, FrameAddress::return_address(r.pc()), 1};
  Registers caller;
  UnwindRule sp_rule;
  sp_rule.kind = RuleKind::kCfaSp;
  sp_rule.cfa_offset = 16;

  SECTION("a rule after not_mine by pc") {
    StepperList list;
    list.add(rec.stepper(StepperKind::kBottom, not_mine_by_pc()));
    list.add(rec.stepper(StepperKind::kCfi, by_pc(caller_is(regs_at(0x401100, 0x7010)), sp_rule)));
    const StepperList::Asked out = list.ask(in, caller);
    REQUIRE(out.rule);
    CHECK(out.rule->kind == RuleKind::kCfaSp);
    CHECK(out.rule->cfa_offset == 16);
    CHECK(out.rule->by == StepperKind::kCfi);
  }
  SECTION("an uncacheable answer after not_mine by pc: ask from it") {
    StepperList list;
    list.add(rec.stepper(StepperKind::kBottom, not_mine_by_pc()));
    list.add(rec.stepper(StepperKind::kSignal, not_mine_by_pc()));
    list.add(rec.stepper(StepperKind::kFramePointer, caller_is(regs_at(0x401100, 0x7010))));
    const StepperList::Asked out = list.ask(in, caller);
    REQUIRE(out.rule);
    CHECK(*out.rule == UnwindRule::ask_from(2));
  }
  SECTION("a failure by rule is cached too (applying it fails again, then the steppers after it are asked)") {
    StepperList list;
    list.add(rec.stepper(StepperKind::kCfi, by_pc(failed_with(WalkEnd::kNoUnwindInfo), sp_rule)));
    list.add(rec.stepper(StepperKind::kFramePointer, caller_is(regs_at(0x401100, 0x7010))));
    const StepperList::Asked out = list.ask(in, caller);
    CHECK(out.answer.kind == StepKind::kCaller);
    REQUIRE(out.rule);
    CHECK(out.rule->kind == RuleKind::kCfaSp);
    CHECK(out.rule->by == StepperKind::kCfi);
  }
  SECTION("nothing after a not_mine that looked at more than the pc") {
    StepperList list;
    list.add(rec.stepper(StepperKind::kFramePointer, not_mine_here()));
    list.add(rec.stepper(StepperKind::kCfi, by_pc(caller_is(regs_at(0x401100, 0x7010)), sp_rule)));
    CHECK_FALSE(list.ask(in, caller).rule);
  }
  SECTION("nothing when every stepper passes") {
    StepperList list;
    list.add(rec.stepper(StepperKind::kCfi, not_mine_by_pc()));
    const StepperList::Asked out = list.ask(in, caller);
    CHECK(out.answer.kind == StepKind::kFailed);
    CHECK(out.answer.failure == WalkEnd::kNoUnwindInfo);
    CHECK_FALSE(out.rule);
  }
}
