#include "sampler/event_set.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "common/error.h"
#include "sampler/proc.h"

namespace swprof {
namespace {

std::vector<int> online_cpus() {
  std::vector<int> cpus;
  if (auto text = read_text_file("/sys/devices/system/cpu/online")) cpus = parse_cpu_list(*text);
  if (cpus.empty())
    for (int c = 0; c < online_cpu_count(); ++c) cpus.push_back(c);
  return cpus;
}

uint64_t next_pow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view view) {
  const std::string text(view);  // sscanf needs a terminated string
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos < text.size()) {
    int lo = 0, hi = 0, used = 0;
    if (sscanf(text.c_str() + pos, "%d%n", &lo, &used) != 1) break;
    pos += static_cast<size_t>(used);
    hi = lo;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      if (sscanf(text.c_str() + pos, "%d%n", &hi, &used) != 1) break;
      pos += static_cast<size_t>(used);
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    if (pos < text.size() && text[pos] == ',') ++pos;
    else break;
  }
  return cpus;
}

uint64_t default_ring_bytes(const SamplingOptions& o) {
  const uint64_t rate = o.frequency ? o.frequency : 1000;
  const uint64_t per_sample = o.stack_size + 512;
  return std::clamp<uint64_t>(next_pow2(rate * per_sample / 16), 512u << 10, 32u << 20);
}

uint64_t default_offcpu_ring_bytes(uint32_t offcpu_stack_size) {
  constexpr uint64_t kSwitchesPerSecond = 20'000;
  return std::clamp<uint64_t>(next_pow2(kSwitchesPerSecond * (offcpu_stack_size + 512ull) / 16), 1u << 20, 16u << 20);
}

EventSet::EventSet(const SamplingOptions& options, bool enable_on_exec, EventRole role)
    : options_(options), role_(role), cpus_(online_cpus()) {
  choice_.enable_on_exec = enable_on_exec;
  resolve_kernel_choice();
  if (options.buffer_bytes) ring_bytes_ = options.buffer_bytes;
  else if (role_ == EventRole::kOffCpu) ring_bytes_ = default_offcpu_ring_bytes(stack_size());
  else ring_bytes_ = default_ring_bytes(options);
  fds_by_cpu_.resize(cpus_.size());
  rings_.resize(cpus_.size());
}

int EventSet::open_task(pid_t pid) {
  for (size_t i = 0; i < cpus_.size(); ++i) {
    int err = 0;
    UniqueFd fd = open_with_fallbacks(pid, cpus_[i], &err);
    if (!fd.valid()) return err;
    if (int map_err = attach_to_ring(i, fd.get())) return map_err;
    fds_by_cpu_[i].push_back(std::move(fd));
  }
  return 0;
}

void EventSet::set_enabled(bool on) {
  for (auto& fds : fds_by_cpu_)
    for (auto& fd : fds) ioctl(fd.get(), on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

std::vector<pollfd> EventSet::poll_fds() const {
  std::vector<pollfd> out;
  for (size_t i = 0; i < rings_.size(); ++i)
    if (rings_[i].valid()) out.push_back({fds_by_cpu_[i].front().get(), POLLIN, 0});
  return out;
}

void EventSet::describe(SessionSummary& s) const {
  if (role_ == EventRole::kOffCpu) {
    s.offcpu_ring_bytes = ring_bytes_;
    return;
  }
  s.ring_bytes = ring_bytes_;
  s.stack_size = options_.stack_size;
  s.frequency = options_.frequency;
  s.period = options_.period;
  s.time_event = time_based_event(options_.event);
  if (s.time_event) s.on_cpu_ns = total_count();
  s.kernel_samples = choice_.kernel;
  s.kernel_note = kernel_note_;
}

uint64_t EventSet::total_count() const {
  uint64_t total = 0;
  for (const auto& fds : fds_by_cpu_)
    for (const auto& fd : fds) {
      uint64_t count = 0;  // read_format 0: the count alone
      if (read(fd.get(), &count, sizeof count) == static_cast<ssize_t>(sizeof count)) total += count;
    }
  return total;
}

std::string EventSet::describe_setup_error(int err, pid_t pid) const {
  if (mmap_failed_)
    return "cannot map the perf ring buffer (" + errno_text(err) +
           "); lower --buffer-size, raise kernel.perf_event_mlock_kb, or run as root";
  if (role_ == EventRole::kOffCpu) {
    if (err == EACCES || err == EPERM) return describe_offcpu_permission_error(perf_event_paranoid());
    return describe_open_error(err, parse_event("context-switches"), pid);
  }
  return describe_open_error(err, options_.event, pid);
}

uint32_t EventSet::stack_size() const {
  if (role_ == EventRole::kOffCpu && options_.off_cpu) return options_.off_cpu->settings.stack_size;
  return options_.stack_size;
}

perf_event_attr EventSet::attr() const {
  return role_ == EventRole::kOffCpu ? make_offcpu_attr(options_, choice_) : make_attr(options_, choice_);
}

// The off-CPU events need kernel sampling: there is no user-only fallback.
void EventSet::resolve_kernel_choice() {
  if (role_ == EventRole::kOffCpu) {
    choice_.kernel = true;
    return;
  }
  if (options_.kernel.has_value()) {
    choice_.kernel = *options_.kernel;
    if (!choice_.kernel) kernel_note_ = "kernel samples off (--no-kernel): time in syscalls and faults is not sampled";
    return;
  }
  choice_.kernel = kernel_sampling_permitted();
  if (!choice_.kernel) set_kernel_denied_note();
}

void EventSet::set_kernel_denied_note() {
  auto paranoid = perf_event_paranoid();
  kernel_note_ = "kernel samples not permitted (kernel.perf_event_paranoid=" +
                 (paranoid ? std::to_string(*paranoid) : std::string("?")) +
                 "): time in syscalls and faults is not sampled; run as root, grant CAP_PERFMON, "
                 "or set kernel.perf_event_paranoid=1";
}

// When a ring wakes its reader: at every sample (each reserves more than
// --stack-size bytes) when stacks are read past their copies
// (--stack-beyond), so that the recorder can read while the thread is still
// in the frames the copy missed (RingDrainer::set_prompt); else at a
// quarter of the ring.
uint32_t EventSet::wakeup_watermark() const {
  if (role_ == EventRole::kTimer && options_.stack_beyond) return stack_size();
  return static_cast<uint32_t>(std::min<uint64_t>(ring_bytes_ / 4, 1u << 30));
}

UniqueFd EventSet::open_with_fallbacks(pid_t pid, int cpu, int* err) {
  for (;;) {
    perf_event_attr attr = this->attr();
    attr.wakeup_watermark = wakeup_watermark();
    UniqueFd fd = open_perf_event(attr, pid, cpu, err);
    if (fd.valid()) return fd;
    if (*err == EINVAL && choice_.build_id) {
      choice_.build_id = false;  // kernels before 5.12: inode-identified MMAP2
      continue;
    }
    if ((*err == EACCES || *err == EPERM) && choice_.kernel && !options_.kernel.has_value() &&
        role_ == EventRole::kTimer) {
      choice_.kernel = false;
      set_kernel_denied_note();
      continue;
    }
    return fd;
  }
}

// The first event on a CPU owns its ring; later ones write into it.
int EventSet::attach_to_ring(size_t cpu_index, int fd) {
  if (!fds_by_cpu_[cpu_index].empty()) {
    if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fds_by_cpu_[cpu_index].front().get()) != 0) return errno;
    return 0;
  }
  int err = 0;
  // Smaller rings fit under a lower mlock limit, down to the smallest
  // that still holds whole samples.
  for (uint64_t size = ring_bytes_; size >= min_ring_bytes(stack_size()); size /= 2) {
    rings_[cpu_index] = MappedRingBuffer::map(fd, size, &err);
    if (rings_[cpu_index].valid()) {
      ring_bytes_ = size;  // later CPUs start from what fit
      return 0;
    }
    if (err != EPERM && err != ENOMEM) break;
  }
  mmap_failed_ = true;
  return err;
}

}  // namespace swprof
