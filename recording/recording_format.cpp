#include "recording/recording_format.h"

#include <sys/utsname.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_read.h"

namespace swprof {

bool is_perf_data(const void* head, size_t size) {
  return size >= sizeof kPerfDataMagic && std::memcmp(head, kPerfDataMagic, sizeof kPerfDataMagic) == 0;
}

std::string perf_data_not_recording(const std::string& path) {
  return "'" + path + "' is a perf.data file, not a swprof recording (PerfDataReader reads it)";
}

uint64_t monotonic_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void stamp_header(RecordingHeader& header) {
  utsname u;
  if (uname(&u) == 0) {
    header.host = u.nodename;
    header.kernel_release = u.release;
  }
  header.start_unix_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  header.start_monotonic_ns = monotonic_now_ns();
  header.swprof_version = SWPROF_VERSION;
}

std::string RecordingHeader::to_json() const {
  nlohmann::json j = {
      {"mode", mode},
      {"command", command},
      {"target_pid", target_pid},
      {"event", event},
      {"frequency", frequency},
      {"period", period},
      {"stack_size", stack_size},
      {"regs_mask", regs_mask},
      {"kernel_samples", kernel_samples},
      {"kernel_note", kernel_note},
      {"host", host},
      {"kernel_release", kernel_release},
      {"start_unix_ns", start_unix_ns},
      {"start_monotonic_ns", start_monotonic_ns},
      {"swprof_version", swprof_version},
      {"default_weight", default_weight},
  };
  if (off_cpu)
    j["off_cpu"] = {{"every", off_cpu_settings.every},
                    {"min_ns", off_cpu_settings.min_ns},
                    {"stack_size", off_cpu_settings.stack_size}};
  // Names come from the system; never let bad UTF-8 abort the dump.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RecordingHeader RecordingHeader::from_json(const std::string& text) {
  try {
    const auto j = parse_json_limited(text);
    if (!j.is_object()) throw Error("not a JSON object");
    RecordingHeader h;
    h.mode = j.value("mode", "");
    h.command = j.value("command", std::vector<std::string>{});
    h.target_pid = json_number_or(j, "target_pid", int64_t{0});
    h.event = j.value("event", "");
    h.frequency = json_number_or(j, "frequency", uint32_t{0});
    h.period = json_number_or(j, "period", uint64_t{0});
    h.stack_size = json_number_or(j, "stack_size", uint32_t{0});
    if (h.stack_size > kMaxStackSize)
      throw Error("field stack_size: expected an integer from 0 to " + std::to_string(kMaxStackSize) + ", got " +
                  std::to_string(h.stack_size));
    h.regs_mask = json_number_or(j, "regs_mask", uint64_t{0});
    h.kernel_samples = j.value("kernel_samples", false);
    h.kernel_note = j.value("kernel_note", "");
    h.host = j.value("host", "");
    h.kernel_release = j.value("kernel_release", "");
    h.start_unix_ns = json_number_or(j, "start_unix_ns", uint64_t{0});
    h.start_monotonic_ns = json_number_or(j, "start_monotonic_ns", uint64_t{0});
    h.swprof_version = j.value("swprof_version", "");
    h.default_weight = j.value("default_weight", "cpu");
    if (h.default_weight != "cpu" && h.default_weight != "off-cpu" && h.default_weight != "wall")
      throw Error("field default_weight: expected cpu, off-cpu or wall, got '" + h.default_weight + "'");
    if (auto it = j.find("off_cpu"); it != j.end() && it->is_object()) {
      h.off_cpu = true;
      h.off_cpu_settings.every = json_number_or(*it, "every", uint32_t{1});
      h.off_cpu_settings.min_ns = json_number_or(*it, "min_ns", uint64_t{0});
      h.off_cpu_settings.stack_size = json_number_or(*it, "stack_size", uint32_t{0});
      if (h.off_cpu_settings.stack_size > kMaxStackSize)
        throw Error("field off_cpu.stack_size: expected an integer from 0 to " + std::to_string(kMaxStackSize));
    }
    return h;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("damaged recording header: ") + e.what());
  } catch (const Error& e) {
    throw Error(std::string("damaged recording header: ") + e.what());
  }
}

}  // namespace swprof
