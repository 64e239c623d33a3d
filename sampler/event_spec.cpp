#include "sampler/event_spec.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>

#include "common/error.h"
#include "sampler/perf_event.h"

namespace swprof {
namespace {

struct KnownEvent {
  const char* name;
  uint32_t type;
  uint64_t config;
};

constexpr KnownEvent kEvents[] = {
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};

const std::map<std::string, std::string> kAliases = {
    {"faults", "page-faults"},        {"cs", "context-switches"},
    {"migrations", "cpu-migrations"}, {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
};

}  // namespace

std::vector<std::string> known_event_names() {
  std::vector<std::string> names;
  for (const auto& e : kEvents) names.emplace_back(e.name);
  return names;
}

EventSpec parse_event(const std::string& raw) {
  std::string name = raw;
  if (auto alias = kAliases.find(name); alias != kAliases.end()) name = alias->second;
  for (const auto& e : kEvents) {
    if (name == e.name) return {e.name, e.type, e.config, e.type == PERF_TYPE_HARDWARE};
  }
  std::string list;
  for (const auto& n : known_event_names()) list += (list.empty() ? "" : ", ") + n;
  throw Error("unknown event '" + raw + "'; known events: " + list);
}

std::optional<uint64_t> max_sample_rate() {
  std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
  uint64_t rate = 0;
  if (in >> rate) return rate;
  return std::nullopt;
}

uint64_t max_sample_record_bytes(uint32_t stack_size) {
  constexpr uint64_t kHeader = 8;
  constexpr uint64_t kFixedFields = 5 * 8;                  // ip, pid+tid, time, cpu+res, period
  constexpr uint64_t kCallchain = 8 + 8 * (127 + 8);        // nr, frames, PERF_CONTEXT_* markers
  const uint64_t regs = 8 + 8 * static_cast<uint64_t>(__builtin_popcountll(kX86_64RegsMask));  // abi + regs
  const uint64_t stack = 8 + stack_size + 8;                // size, bytes, dyn_size
  return std::min<uint64_t>(kHeader + kFixedFields + kCallchain + regs + stack, 0xffff);
}

uint64_t min_ring_bytes(uint32_t stack_size) {
  uint64_t ring = 8192;
  while (ring < 4 * max_sample_record_bytes(stack_size)) ring <<= 1;
  return ring;
}

namespace {

std::string size_text(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

}  // namespace

uint64_t parse_byte_size(const std::string& text, const char* option) {
  size_t used = 0;
  uint64_t value = 0;
  // stoull skips leading spaces and takes "-5" as 2^64 - 5: only digits may start a size.
  const bool digits_first = !text.empty() && text[0] >= '0' && text[0] <= '9';
  try {
    if (digits_first) value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;  // out of range
  }
  if (used == 0)
    throw Error(std::string("invalid ") + option + " '" + text + "': expected a size such as 4096, 512K or 16M");
  std::string suffix = text.substr(used);
  uint64_t scale = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") scale = 1ULL << 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MiB") scale = 1ULL << 20;
  else if (suffix == "G" || suffix == "g" || suffix == "GiB") scale = 1ULL << 30;
  else if (!suffix.empty())
    throw Error(std::string("invalid ") + option + " '" + text + "': unknown unit '" + suffix + "' (use K, M or G)");
  if (value > UINT64_MAX / scale)
    throw Error(std::string("invalid ") + option + " '" + text + "': too large for a size in bytes");
  return value * scale;
}

SamplingOptions make_sampling_options(const std::string& event, std::optional<uint64_t> frequency,
                                      std::optional<uint64_t> period, uint64_t stack_size,
                                      uint64_t buffer_bytes, bool inherit,
                                      std::optional<bool> kernel) {
  SamplingOptions o;
  o.event = parse_event(event);
  o.inherit = inherit;
  o.kernel = kernel;
  if (frequency && period) throw Error("-F and -c cannot be used together: choose a frequency or a period");
  if (period) {
    if (*period == 0) throw Error("invalid -c 0: the sample period must be at least 1");
    o.period = *period;
    o.frequency = 0;
  } else {
    uint64_t f = frequency.value_or(kDefaultFrequency);
    if (f == 0) throw Error("invalid -F 0: the sampling frequency must be at least 1 Hz");
    auto max = max_sample_rate();
    if (max && f > *max)
      throw Error("invalid -F " + std::to_string(f) + ": above kernel.perf_event_max_sample_rate (" +
                  std::to_string(*max) + "); lower -F or raise the sysctl");
    if (f > 1000000) throw Error("invalid -F " + std::to_string(f) + ": at most 1000000 Hz");
    o.frequency = static_cast<uint32_t>(f);
  }
  if (stack_size < 8 || stack_size > kMaxStackSize || stack_size % 8 != 0)
    throw Error("invalid --stack-size " + std::to_string(stack_size) +
                ": must be a multiple of 8 between 8 and " + std::to_string(kMaxStackSize));
  o.stack_size = static_cast<uint32_t>(stack_size);
  if (buffer_bytes != 0) {
    const uint64_t page = 4096;
    if (buffer_bytes < 2 * page || (buffer_bytes & (buffer_bytes - 1)) != 0 || buffer_bytes > (1ULL << 30))
      throw Error("invalid --buffer-size " + std::to_string(buffer_bytes) +
                  ": must be a power of two between 8K and 1G");
    const uint64_t min = min_ring_bytes(o.stack_size);
    if (buffer_bytes < min)
      throw Error("invalid --buffer-size " + size_text(buffer_bytes) + ": with --stack-size " +
                  std::to_string(o.stack_size) + " a sample takes up to " +
                  std::to_string(max_sample_record_bytes(o.stack_size)) +
                  " bytes and the ring must hold 4; use --buffer-size " + size_text(min) +
                  " or more, or a smaller --stack-size");
  }
  o.buffer_bytes = buffer_bytes;
  return o;
}

bool time_based_event(const EventSpec& event) {
  return event.type == PERF_TYPE_SOFTWARE &&
         (event.config == PERF_COUNT_SW_CPU_CLOCK || event.config == PERF_COUNT_SW_TASK_CLOCK);
}

uint64_t parse_duration_ns(const std::string& text, const char* option) {
  const std::string expected = "': expected a duration such as 1ms, 500us, 2s or 0";
  size_t used = 0;
  double value = 0;
  try {
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
      throw std::invalid_argument("not a number");
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error(std::string("invalid ") + option + " '" + text + expected);
  }
  static const std::map<std::string, double> kUnits = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const std::string unit = text.substr(used);
  auto scale = kUnits.find(unit);
  if (unit.empty() && value == 0) return 0;
  if (scale == kUnits.end() || !std::isfinite(value) || value * scale->second > 1e18)
    throw Error(std::string("invalid ") + option + " '" + text + expected);
  return static_cast<uint64_t>(value * scale->second + 0.5);
}

void add_offcpu_options(SamplingOptions& o, bool wall, uint64_t every, uint64_t min_ns, uint64_t stack_size) {
  const char* flag = wall ? "--wall" : "--off-cpu";
  if (!time_based_event(o.event))
    throw Error(std::string(flag) + " adds off-CPU time to on-CPU time, which needs a time-based event; '" +
                o.event.name + "' counts events: use -e cpu-clock or -e task-clock");
  if (o.kernel == false)
    throw Error(std::string(flag) + " needs kernel sampling (the stack is taken in the scheduler); drop --no-kernel");
  if (every == 0 || every > 0xffffffffu)
    throw Error("invalid --off-cpu-every " + std::to_string(every) + ": must be a whole number from 1 to 4294967295");
  if (stack_size < 8 || stack_size > kMaxStackSize || stack_size % 8 != 0)
    throw Error("invalid --off-cpu-stack-size " + std::to_string(stack_size) + ": must be a multiple of 8 between 8 and " +
                std::to_string(kMaxStackSize));
  if (o.buffer_bytes != 0 && o.buffer_bytes < min_ring_bytes(static_cast<uint32_t>(stack_size)))
    throw Error("invalid --buffer-size " + size_text(o.buffer_bytes) + ": with --off-cpu-stack-size " +
                std::to_string(stack_size) + " the ring must be " +
                size_text(min_ring_bytes(static_cast<uint32_t>(stack_size))) + " or more");
  OffCpuOptions off;
  off.wall = wall;
  off.settings.every = static_cast<uint32_t>(every);
  off.settings.min_ns = min_ns;
  off.settings.stack_size = static_cast<uint32_t>(stack_size);
  o.off_cpu = off;
}

}  // namespace swprof
