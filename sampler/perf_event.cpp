#include "sampler/perf_event.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include "common/error.h"

namespace swprof {

perf_event_attr make_attr(const SamplingOptions& options, const AttrChoice& choice) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = options.event.type;
  attr.config = options.event.config;
  if (options.period != 0) {
    attr.sample_period = options.period;
  } else {
    attr.freq = 1;
    attr.sample_freq = options.frequency;
  }
  attr.sample_type = kSampleType;
  if (choice.kernel) {
    // Kernel frames only; user frames are unwound offline from the copied stack.
    attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
    attr.exclude_callchain_user = 1;
  } else {
    attr.exclude_kernel = 1;
  }
  attr.exclude_hv = 1;
  attr.sample_regs_user = kX86_64RegsMask;
  attr.sample_stack_user = options.stack_size;
  attr.disabled = choice.enable_on_exec ? 1 : 0;
  attr.enable_on_exec = choice.enable_on_exec ? 1 : 0;
  attr.inherit = options.inherit ? 1 : 0;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.build_id = choice.build_id ? 1 : 0;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.watermark = 1;
  return attr;
}

perf_event_attr make_offcpu_attr(const SamplingOptions& options, const AttrChoice& choice) {
  const OffCpuSettings settings = options.off_cpu.value_or(OffCpuOptions{}).settings;
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  attr.sample_period = settings.every;
  attr.sample_type = kOffCpuSampleType;
  attr.exclude_callchain_user = 1;
  attr.exclude_hv = 1;
  attr.sample_regs_user = kX86_64RegsMask;
  attr.sample_stack_user = settings.stack_size;
  attr.context_switch = 1;
  attr.sample_id_all = 1;
  attr.disabled = choice.enable_on_exec ? 1 : 0;
  attr.enable_on_exec = choice.enable_on_exec ? 1 : 0;
  attr.inherit = options.inherit ? 1 : 0;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.watermark = 1;
  return attr;
}

std::string describe_offcpu_permission_error(std::optional<int> paranoid) {
  const std::string value = paranoid ? "is " + std::to_string(*paranoid) + " here" : "could not be read";
  return "off-CPU sampling needs kernel sampling: kernel.perf_event_paranoid " + value +
         " (<= 1 needed), or CAP_PERFMON (setcap cap_perfmon,cap_sys_ptrace+ep swprof), or root";
}

UniqueFd open_perf_event(perf_event_attr& attr, pid_t pid, int cpu, int* err) {
  long fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return UniqueFd();
  }
  *err = 0;
  return UniqueFd(static_cast<int>(fd));
}

std::optional<int> perf_event_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

namespace {

bool has_effective_capability(int cap) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[cap / 32].effective >> (cap % 32)) & 1u;
}

}  // namespace

bool kernel_sampling_permitted() {
  if (geteuid() == 0) return true;
  if (has_effective_capability(38 /* CAP_PERFMON */) || has_effective_capability(CAP_SYS_ADMIN))
    return true;
  auto paranoid = perf_event_paranoid();
  return paranoid && *paranoid <= 1;
}

int online_cpu_count() {
  long n = sysconf(_SC_NPROCESSORS_CONF);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::string describe_open_error(int err, const EventSpec& event, pid_t pid) {
  const std::string ev = "'" + event.name + "'";
  switch (err) {
    case EACCES:
    case EPERM: {
      auto paranoid = perf_event_paranoid();
      std::string setting = paranoid ? "kernel.perf_event_paranoid is " + std::to_string(*paranoid)
                                     : "kernel.perf_event_paranoid could not be read";
      return "permission denied opening event " + ev + (pid > 0 ? " on PID " + std::to_string(pid) : "") +
             " (" + setting + "); run as root, grant CAP_PERFMON (setcap cap_perfmon,cap_sys_ptrace+ep swprof), "
             "or lower the setting (sysctl kernel.perf_event_paranoid=1); attaching to another user's "
             "process also needs ptrace permission";
    }
    case ESRCH:
      return "no process with PID " + std::to_string(pid) + " (it may have exited)";
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      if (event.hardware)
        return "event " + ev + " is not supported on this machine (no hardware PMU, as in most VMs); "
               "use a software event such as -e cpu-clock";
      return "event " + ev + " is not supported by this kernel; try -e cpu-clock";
    case EINVAL:
      return "the kernel rejected the event configuration for " + ev +
             " (invalid frequency, period or stack size for this kernel?); try the defaults";
    case EMFILE:
      return "too many open files while opening events; raise the limit (ulimit -n)";
    case EBUSY:
      return "event " + ev + " is busy (another tool holds the PMU exclusively)";
    default:
      return "perf_event_open failed for " + ev + ": " + errno_text(err);
  }
}

}  // namespace swprof
