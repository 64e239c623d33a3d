#include "sampler/perf_event.h"

#include <catch2/catch.hpp>

#include "sampler/event_spec.h"

using namespace swprof;

namespace {

SamplingOptions offcpu_options(uint64_t every, uint64_t stack_size) {
  SamplingOptions o = make_sampling_options("cpu-clock", std::nullopt, std::nullopt, kDefaultStackSize, 0, true,
                                            std::nullopt);
  add_offcpu_options(o, false, every, 0, stack_size);
  return o;
}

}  // namespace

TEST_CASE("the off-CPU event samples switch-outs with kernel chain, user regs and stack, and no period",
          "[perf_event]") {
  AttrChoice choice;
  choice.enable_on_exec = true;
  const perf_event_attr a = make_offcpu_attr(offcpu_options(4, 16384), choice);
  CHECK(a.type == PERF_TYPE_SOFTWARE);
  CHECK(a.config == PERF_COUNT_SW_CONTEXT_SWITCHES);
  CHECK(a.sample_period == 4);
  CHECK(a.freq == 0);
  CHECK(a.sample_type == kOffCpuSampleType);
  CHECK((a.sample_type & PERF_SAMPLE_PERIOD) == 0);  // PERIOD would sample every switch
  CHECK((a.sample_type & PERF_SAMPLE_CALLCHAIN) != 0);
  CHECK(a.exclude_callchain_user == 1);
  CHECK(a.exclude_kernel == 0);  // the switch happens in the kernel
  CHECK(a.sample_regs_user == kX86_64RegsMask);
  CHECK(a.sample_stack_user == 16384);
  CHECK(a.context_switch == 1);
  CHECK(a.sample_id_all == 1);
  CHECK(a.inherit == 1);
  CHECK(a.enable_on_exec == 1);
  CHECK(a.disabled == 1);
  CHECK(a.use_clockid == 1);
  CHECK(a.clockid == CLOCK_MONOTONIC);
  CHECK(a.watermark == 1);
  CHECK(a.mmap == 0);
  CHECK(a.mmap2 == 0);
  CHECK(a.comm == 0);
  CHECK(a.task == 0);

  SamplingOptions no_inherit = offcpu_options(1, 8192);
  no_inherit.inherit = false;
  const perf_event_attr attach = make_offcpu_attr(no_inherit, AttrChoice{});
  CHECK(attach.inherit == 0);
  CHECK(attach.enable_on_exec == 0);
  CHECK(attach.disabled == 0);
}

TEST_CASE("a refused off-CPU event is one line naming the paranoid value and the ways out", "[perf_event]") {
  const std::string text = describe_offcpu_permission_error(2);
  CHECK(text == "off-CPU sampling needs kernel sampling: kernel.perf_event_paranoid is 2 here (<= 1 needed), or "
                "CAP_PERFMON (setcap cap_perfmon,cap_sys_ptrace+ep swprof), or root");
  CHECK(describe_offcpu_permission_error(std::nullopt).find("could not be read") != std::string::npos);
  CHECK(text.find('\n') == std::string::npos);
}
