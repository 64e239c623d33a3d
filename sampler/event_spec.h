#pragma once
// What to sample: the event, its rate and how much user stack to copy.
// Validation lives here so the CLI and tests share it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recording/recording_format.h"

namespace swprof {

struct EventSpec {
  std::string name;    // canonical name, e.g. "cpu-clock"
  uint32_t type = 0;   // perf_event_attr.type
  uint64_t config = 0; // perf_event_attr.config
  bool hardware = false;
};

// Looks up an event by name ("cpu-clock", "cycles", "page-faults", ...).
// Throws Error naming the known events when the name is unknown.
EventSpec parse_event(const std::string& name);
std::vector<std::string> known_event_names();

inline constexpr uint32_t kDefaultFrequency = 999;

// Binaries found only inside a process's mount namespace are embedded into
// the recording up to this many bytes in all (--embed-max).
inline constexpr uint64_t kDefaultEmbedMaxBytes = uint64_t{256} << 20;

// The JIT perf map of each recorded process is copied into the recording up
// to this many bytes (--perf-map-max), and all of them together up to
// kPerfMapsPerRecording times that.
inline constexpr uint64_t kDefaultPerfMapMaxBytes = uint64_t{64} << 20;
inline constexpr uint64_t kPerfMapsPerRecording = 4;

// Off-CPU sampling (--off-cpu, --wall): a stack at each switch-out of a
// thread, and the switch records that time its waits.
inline constexpr uint32_t kDefaultOffCpuStackSize = 8192;
inline constexpr uint64_t kDefaultOffCpuMinNs = 1'000'000;

struct OffCpuOptions {
  OffCpuSettings settings{1, kDefaultOffCpuMinNs, kDefaultOffCpuStackSize};
  bool wall = false;  // reports weigh on-CPU + off-CPU time by default (else off-CPU time)
  const char* default_weight() const { return wall ? "wall" : "off-cpu"; }
};

struct SamplingOptions {
  EventSpec event;
  uint32_t frequency = kDefaultFrequency;  // samples per second; 0 when period is used
  uint64_t period = 0;                     // events per sample; 0 when frequency is used
  uint32_t stack_size = kDefaultStackSize;
  // Bytes read past a truncated copy from the live thread (Recorder::read_past_copies); 0: none.
  uint32_t stack_beyond = kDefaultStackBeyond;
  bool inherit = true;                     // follow threads and children
  std::optional<bool> kernel;              // nullopt: on when permitted
  uint64_t buffer_bytes = 0;               // per-CPU ring buffer; 0: sized from the rate
  uint64_t embed_max_bytes = kDefaultEmbedMaxBytes;
  uint64_t perf_map_max_bytes = kDefaultPerfMapMaxBytes;
  std::optional<OffCpuOptions> off_cpu;    // also sample switch-outs (a second event per task and CPU)
};

// Validates -F / -c / --stack-size / --buffer-size and fills SamplingOptions.
// `frequency`/`period` are the raw user values (0 = not given).
SamplingOptions make_sampling_options(const std::string& event, std::optional<uint64_t> frequency,
                                      std::optional<uint64_t> period, uint64_t stack_size,
                                      uint64_t buffer_bytes, bool inherit,
                                      std::optional<bool> kernel);

// Validates --off-cpu-every / --off-cpu-min / --off-cpu-stack-size against the
// on-CPU options (a time-based event, kernel samples not switched off, a
// --buffer-size that holds off-CPU samples) and sets `sampling.off_cpu`.
// Throws Error with one line naming the option.
void add_offcpu_options(SamplingOptions& sampling, bool wall, uint64_t every, uint64_t min_ns, uint64_t stack_size);

// Whether the event measures time (cpu-clock, task-clock): on-CPU and
// off-CPU weights are then both nanoseconds.
bool time_based_event(const EventSpec& event);

// Parses a duration such as "1ms", "500us", "2s", "250ns" or "0" into
// nanoseconds; throws Error naming `option` on garbage, a negative value or a
// number without a unit (other than 0).
uint64_t parse_duration_ns(const std::string& text, const char* option);

// The largest sample record the kernel writes into the ring for this stack
// size: header, ip/tid/time/cpu/period, a kernel callchain (perf's default
// kernel.perf_event_max_stack of 127 frames plus context markers), the user
// registers and the stack copy; the kernel caps a record at 65535 bytes.
uint64_t max_sample_record_bytes(uint32_t stack_size);
// The smallest ring buffer for this stack size: a power of two (at least 8K)
// that holds four of the largest samples, so that the reader, woken at a
// quarter full, always finds whole samples and leaves room for the next.
uint64_t min_ring_bytes(uint32_t stack_size);

// Parses "512K", "16M", "4096" into bytes; throws Error on garbage.
uint64_t parse_byte_size(const std::string& text, const char* option);

// kernel.perf_event_max_sample_rate, or nullopt when unreadable.
std::optional<uint64_t> max_sample_rate();

}  // namespace swprof
