#pragma once
// perf_event_open(2) wrapper: attribute construction, opening with readable
// errors, and the RAII owner of an event fd.

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/unique_fd.h"
#include "sampler/event_spec.h"

namespace swprof {

// x86-64 user registers copied with every sample (PERF_SAMPLE_REGS_USER):
// AX BX CX DX SI DI BP SP IP FLAGS CS SS and R8..R15 (bit numbers from
// arch/x86/include/uapi/asm/perf_regs.h; DS/ES/FS/GS are not sampled on x86-64).
inline constexpr uint64_t kX86_64RegsMask = 0xfffULL | (0xffULL << 16);
inline constexpr int kRegBp = 6;
inline constexpr int kRegSp = 7;
inline constexpr int kRegIp = 8;

// Records every event carries (sample_type); the order of fields in a sample
// follows include/uapi/linux/perf_event.h, "PERF_RECORD_SAMPLE".
inline constexpr uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                        PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

// The off-CPU event's samples: no PERIOD, which would make the kernel sample
// every context switch whatever sample_period says (kernel/events/core.c,
// perf_swevent_event), and the kernel chain, which tells why the thread waits.
inline constexpr uint64_t kOffCpuSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                              PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN |
                                              PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

struct AttrChoice {
  bool kernel = true;          // sample kernel-mode too (and record the kernel callchain)
  bool enable_on_exec = false; // start disabled; the kernel enables at exec
  bool build_id = true;        // MMAP2 records carry build-ids (Linux 5.12+)
};

perf_event_attr make_attr(const SamplingOptions& options, const AttrChoice& choice);

// The off-CPU event: a sample (kOffCpuSampleType, user registers, the top of
// the user stack and the kernel chain) at every `every`-th switch-out of a
// thread, taken in the context of the thread going off the CPU, and
// PERF_RECORD_SWITCH records at every switch-out and switch-in (context_switch).
// Kernel mode is never excluded: the switch happens there, and with
// exclude_kernel the kernel drops every sample. No MMAP2/COMM/task records:
// the timer event delivers those. Needs options.off_cpu.
perf_event_attr make_offcpu_attr(const SamplingOptions& options, const AttrChoice& choice);

// The one line for an off-CPU event the kernel refused (EACCES/EPERM) at
// this kernel.perf_event_paranoid value (nullopt: unreadable).
std::string describe_offcpu_permission_error(std::optional<int> paranoid);

// Opens one event. Returns the fd or, on failure, an invalid fd and errno in *err.
UniqueFd open_perf_event(perf_event_attr& attr, pid_t pid, int cpu, int* err);

// One line telling what went wrong and what to do, for a failed open.
std::string describe_open_error(int err, const EventSpec& event, pid_t pid);

// kernel.perf_event_paranoid, or nullopt when unreadable.
std::optional<int> perf_event_paranoid();

// Whether kernel-mode samples are permitted to this process.
bool kernel_sampling_permitted();

int online_cpu_count();

}  // namespace swprof
