#include <catch2/catch.hpp>

#include "profile/interrupts.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

CctFrame k(const std::string& name) { return fn(name, "[kernel]", kCctKernel); }

}  // namespace

TEST_CASE("interrupts: entry points of asynchronous interrupts, not system calls or exceptions") {
  for (const char* f : {"asm_sysvec_reschedule_ipi", "asm_sysvec_apic_timer_interrupt", "asm_sysvec_call_function_single",
                        "asm_common_interrupt", "asm_spurious_interrupt", "asm_exc_nmi", "apic_timer_interrupt",
                        "reschedule_interrupt", "common_interrupt", "ret_from_intr"})
    CHECK(is_interrupt_entry(f));
  for (const char* f : {"entry_SYSCALL_64", "entry_SYSCALL_64_after_hwframe", "asm_exc_page_fault",
                        "asm_exc_general_protection", "irqentry_exit_to_user_mode", "finish_task_switch.isra.0",
                        "do_syscall_64", "main", "handle_interrupt_event"})
    CHECK_FALSE(is_interrupt_entry(f));
}

TEST_CASE("interrupts: samples under an interrupt entry count for the frame it interrupted") {
  Profile p;
  // 60 plain user samples; 30 preempted from a reschedule IPI while in work;
  // 10 in a read() system call, 4 of them under a timer interrupt taken in
  // the kernel; 5 page faults (the program's own, kept).
  add_stack(p.tree, {fn("main"), fn("work")}, 60);
  add_stack(p.tree, {fn("main"), fn("work"), k("asm_sysvec_reschedule_ipi"), k("irqentry_exit_to_user_mode"), k("schedule"),
                     k("finish_task_switch.isra.0")},
            30);
  add_stack(p.tree, {fn("main"), fn("read"), k("entry_SYSCALL_64"), k("ksys_read")}, 6);
  add_stack(p.tree, {fn("main"), fn("read"), k("entry_SYSCALL_64"), k("ksys_read"), k("asm_sysvec_apic_timer_interrupt"),
                     k("hrtimer_interrupt")},
            4);
  add_stack(p.tree, {fn("main"), fn("work"), k("asm_exc_page_fault"), k("handle_mm_fault")}, 5);
  const uint64_t weight = p.tree.total_weight();

  CHECK(charge_interrupts_to_interrupted(p) == 34);
  const CallTree& t = p.tree;
  CHECK(t.total() == 105);
  CHECK(t.total_weight() == weight);
  const uint32_t work = find_path(t, {"main", "work"});
  REQUIRE(work != UINT32_MAX);
  CHECK(t.node(work).self == 90);
  CHECK(t.node(work).total == 95);
  CHECK(t.node(work).self_weight == 90 * 1000);
  CHECK(find_path(t, {"main", "work", "asm_sysvec_reschedule_ipi"}) == UINT32_MAX);
  const uint32_t ksys_read = find_path(t, {"main", "read", "entry_SYSCALL_64", "ksys_read"});
  REQUIRE(ksys_read != UINT32_MAX);
  CHECK(t.node(ksys_read).self == 10);
  CHECK(t.node(ksys_read).children.empty());
  const uint32_t fault = find_path(t, {"main", "work", "asm_exc_page_fault", "handle_mm_fault"});
  REQUIRE(fault != UINT32_MAX);
  CHECK(t.node(fault).self == 5);
}

TEST_CASE("interrupts: a profile without interrupt frames is left as it is") {
  Profile p = sample_profile();
  const auto nodes = p.tree.nodes().size();
  CHECK(charge_interrupts_to_interrupted(p) == 0);
  CHECK(p.tree.nodes().size() == nodes);
  CHECK(p.tree.total() == 100);
}
