#pragma once
// Parsing of raw perf ring-buffer records (include/uapi/linux/perf_event.h,
// enum perf_event_type) for the attributes make_attr() sets: sample_type =
// kSampleType (+ CALLCHAIN when kernel samples are on) and sample_id_all,
// and for make_offcpu_attr(): kOffCpuSampleType, whose samples are taken at
// switch-outs, plus PERF_RECORD_SWITCH records (context_switch).

#include <cstdint>
#include <optional>
#include <vector>

#include "common/byte_reader.h"
#include "recording/records.h"

namespace swprof {

struct PerfLayout {
  uint64_t sample_type = 0;
  uint64_t regs_mask = 0;
  bool off_cpu = false;  // the ring of the off-CPU event: its samples are switch-outs
};

// What a raw record turned out to be; nullopt in `record` for types swprof
// does not keep (and for malformed records, counted by the caller).
struct ParsedPerfRecord {
  uint32_t type = 0;
  bool malformed = false;
  std::optional<Record> record;
};

ParsedPerfRecord parse_perf_record(Bytes raw, const PerfLayout& layout);

std::optional<SampleView> parse_perf_sample(Bytes raw, const PerfLayout& layout);

// A sample's user stack copy takes --stack-size bytes in the ring whatever
// the thread used; the kernel says how many are valid (dyn_size). This is
// the same record with the copy cut just past them (to the next multiple of
// 8 above dyn_size, so that a copy --stack-size did not cut still reads as
// whole), written into `scratch`; or `raw` itself when there is nothing to
// cut: not a sample, no stack copy, a full one, a stack that is not the
// record's last field, or a record that does not parse (its reader counts it).
Bytes cut_stack_copy(Bytes raw, const PerfLayout& layout, std::vector<uint8_t>& scratch);

}  // namespace swprof
