#include "unwind/standard_chain.h"

#include "binary/cfi_table.h"
#include "unwind/analysis_stepper.h"
#include "unwind/bottom_stepper.h"
#include "unwind/cfi_stepper.h"
#include "unwind/frame_pointer_stepper.h"
#include "unwind/go_stepper.h"
#include "unwind/libunwind_unwinder.h"
#include "unwind/signal_stepper.h"
#include "unwind/walker.h"
#include "unwind/wanderer_stepper.h"

namespace swprof {

// Compiled CFI tables are shared by every unwinding thread; each binary's
// table is compiled once.
struct SharedUnwindState {
  std::shared_ptr<CfiTableCache> cfi_tables = std::make_shared<CfiTableCache>();
};

namespace {

class ChainWalker : public SampleWalker {
 public:
  ChainWalker(const UnwindOptions& options, std::shared_ptr<SharedUnwindState> shared)
      : shared_(std::move(shared)), walker_(make_steppers(), WalkerOptions{options.max_depth, options.rule_cache}) {}
  void walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps, WalkResult& out) override {
    walker_.walk(regs, stack, maps, out);
  }

 private:
  // In the order they are asked (DESIGN.md, "The stepper chain").
  StepperList make_steppers() {
    StepperList list;
    list.add(std::make_unique<BottomStepper>());
    list.add(std::make_unique<SignalStepper>());
    // Before CFI: an unstripped Go binary's .debug_frame does not know goexit is the bottom.
    list.add(std::make_unique<GoStepper>());
    list.add(std::make_unique<CfiStepper>(shared_->cfi_tables));
    list.add(std::make_unique<FramePointerStepper>());
    list.add(std::make_unique<AnalysisStepper>());
    list.add(std::make_unique<WandererStepper>());
    return list;
  }
  std::shared_ptr<SharedUnwindState> shared_;
  Walker walker_;
};

class ReferenceWalker : public SampleWalker {
 public:
  explicit ReferenceWalker(const UnwindOptions& options) : max_depth_(options.max_depth) {}
  void walk(const Registers& regs, const Memory& stack, const ProcessMaps& maps, WalkResult& out) override {
    out = unwinder_.unwind(regs, stack, maps, max_depth_);
  }

 private:
  size_t max_depth_;
  LibunwindUnwinder unwinder_;
};

}  // namespace

std::shared_ptr<SharedUnwindState> make_shared_unwind_state() { return std::make_shared<SharedUnwindState>(); }

std::unique_ptr<SampleWalker> make_sample_walker(const UnwindOptions& options,
                                                 std::shared_ptr<SharedUnwindState> shared) {
  if (options.unwinder == UnwinderChoice::kLibunwind) return std::make_unique<ReferenceWalker>(options);
  return std::make_unique<ChainWalker>(options, std::move(shared));
}

}  // namespace swprof
