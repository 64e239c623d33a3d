#pragma once
// Turns one record of a perf.data file's data section into swprof's Record
// (records.h), by the layout its event's perf_event_attr gives
// (include/uapi/linux/perf_event.h, enum perf_event_type). One handler per
// record type. What swprof does not use is skipped with a reason, which the
// reader counts; a record cut short inside is skipped as damaged.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"
#include "recording/perf_data_header.h"
#include "recording/records.h"

namespace swprof {

// perf's own record types in the data section (tools/perf/util/event.h).
inline constexpr uint32_t kPerfUserTypeStart = 64;  // perf's own types are these and above
inline constexpr uint32_t kPerfRecordFinishedRound = 68;
inline constexpr uint32_t kPerfRecordAuxtrace = 71;
inline constexpr uint32_t kPerfRecordTracingData = 66;
inline constexpr uint32_t kPerfRecordCompressed = 81;
inline constexpr uint32_t kPerfRecordCompressed2 = 83;  // newer perf: u64 data_size before the data

// PerfParsed::skipped of a sample of the reported event that cannot be read.
inline constexpr const char* kDamagedSamples = "damaged samples";

struct PerfParsed {
  std::optional<Record> record;
  // Why there is no record, when the record is to be counted as skipped;
  // empty for records with nothing to tell (FINISHED_ROUND, ...).
  std::string skipped;
  // A kernel or module mapping (pid -1): no record of its own (skipped),
  // but what the reader knows of the recorded kernel (RecordedKernel).
  std::optional<MappingRecord> kernel_mapping;
};

class PerfRecordParser {
 public:
  // `attrs` must outlive the parser; samples of attrs[reported] become
  // SampleViews, samples of the others are skipped. `x86_64`: the machine
  // that recorded is x86-64 (else samples are skipped).
  PerfRecordParser(const std::vector<PerfEventAttr>& attrs, size_t reported, bool x86_64);

  // `raw` is one whole record, header included. Views in the result point
  // into `raw`.
  PerfParsed parse(Bytes raw);

  // Where the copy of the user stack of a sample of the reported event
  // begins (the offset of its u64 size) in a record whose first bytes are
  // `head`; nullopt for other records, samples without a stack copy, and
  // when `head` is too short or damaged before it. (Lets a reader fetch only
  // the part of a large copy that holds stack, dyn_size bytes.)
  std::optional<size_t> user_stack_offset(Bytes head) const;

 private:
  struct Trailer {
    uint32_t pid = 0;
    uint32_t tid = 0;
    uint64_t time = 0;
    uint32_t cpu = 0;
  };
  const PerfEventAttr* attr_of_sample(Bytes raw) const;
  const PerfEventAttr& attr_of_trailer(Bytes raw) const;
  // The body of a non-sample record (between its header and its sample_id
  // trailer) and the trailer; nullopt when the record is too short.
  std::optional<ByteReader> body(Bytes raw, Trailer& trailer) const;

  bool sample_head(ByteReader& r, const PerfEventAttr& a, SampleView& s) const;
  PerfParsed sample(Bytes raw, uint16_t misc);
  PerfParsed mmap(Bytes raw, uint16_t misc);
  PerfParsed mmap2(Bytes raw, uint16_t misc);
  PerfParsed comm(Bytes raw, uint16_t misc);
  PerfParsed task(Bytes raw, bool exit);
  PerfParsed lost(Bytes raw, bool has_id);
  PerfParsed throttle(Bytes raw, bool throttled);

  const std::vector<PerfEventAttr>& attrs_;
  size_t reported_;
  bool x86_64_;
  std::unordered_map<uint64_t, size_t> by_id_;
};

}  // namespace swprof
