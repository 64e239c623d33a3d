#pragma once
// The header parts of a perf.data file (the kernel's
// tools/perf/Documentation/perf.data-file-format.txt): the file header, the
// attribute section (one perf_event_attr and its sample ids per event) and
// the feature sections written after the data. Every parser takes the bytes
// of one part and reads them through ByteReader; sizes are checked by the
// caller against the file before anything is allocated.
//
//   perf_file_header   magic "PERFILE2", u64 size (104), u64 attr_size,
//                      sections attrs, data, event_types {u64 offset, size},
//                      u64 adds_features[4] (bit N: feature N present)
//   attrs section      attr_size bytes per event: perf_event_attr, then
//                      {u64 offset, size} of its u64 ids
//   feature sections   {u64 offset, size} per set feature bit, in bit order,
//                      at data.offset + data.size

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

struct PerfFileSection {
  uint64_t offset = 0;
  uint64_t size = 0;
};

inline constexpr size_t kPerfFileHeaderSize = 104;
inline constexpr size_t kPerfPipeHeaderSize = 16;  // `perf record -o -`: no sections

struct PerfFileHeader {
  uint64_t size = 0;
  uint64_t attr_size = 0;
  PerfFileSection attrs;
  PerfFileSection data;
  std::array<uint64_t, 4> features{};

  bool has_feature(unsigned bit) const { return bit < 256 && (features[bit / 64] >> (bit % 64)) & 1; }
};

// nullopt when `raw` (the file's first bytes) holds no whole header.
std::optional<PerfFileHeader> parse_perf_file_header(Bytes raw);

// What swprof uses of a perf_event_attr (include/uapi/linux/perf_event.h).
struct PerfEventAttr {
  uint32_t type = 0;
  uint64_t config = 0;
  uint64_t sample_period = 0;  // the frequency when `freq`
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  bool freq = false;
  bool exclude_kernel = false;
  bool sample_id_all = false;
  uint64_t branch_sample_type = 0;
  uint64_t sample_regs_user = 0;
  uint32_t sample_stack_user = 0;
  std::vector<uint64_t> ids;  // the sample ids of this event (none when an earlier event named the same list)
  std::string name;           // HEADER_EVENT_DESC's, else made from type and config

  // perf's placeholder event for side-band records (software "dummy").
  bool is_dummy() const { return type == 1 && config == 9; }
};

// One attr (its own size field says how long it is, at most `raw`); nullopt
// when cut short.
std::optional<PerfEventAttr> parse_perf_event_attr(Bytes raw);
// "cpu-clock", "cycles", ... for the common events; else "type T config C".
std::string perf_event_default_name(uint32_t type, uint64_t config);

// The feature sections swprof reads (perf's HEADER_* numbers).
enum PerfFeature : unsigned {
  kPerfFeatureBuildId = 2,
  kPerfFeatureHostname = 3,
  kPerfFeatureOsRelease = 4,
  kPerfFeatureArch = 6,
  kPerfFeatureCmdline = 11,
  kPerfFeatureEventDesc = 12,
  kPerfFeatureSampleTime = 21,
  kPerfFeatureCompressed = 27,
};

struct PerfDataFeatures {
  std::string hostname;
  std::string os_release;
  std::string arch;
  std::vector<std::string> cmdline;
  std::vector<std::string> event_names;  // HEADER_EVENT_DESC, in attr order
  std::unordered_map<std::string, std::vector<uint8_t>> build_ids;  // by file name (HEADER_BUILD_ID)
  uint64_t first_sample_time = 0;
  uint64_t last_sample_time = 0;
  uint32_t compression = 0;  // HEADER_COMPRESSED's type: 1 = zstd
};

// Reads feature `bit` from its section's bytes into `out`; false when the
// section is damaged (what it held before the damage is kept).
bool parse_perf_feature(unsigned bit, Bytes raw, PerfDataFeatures& out);

}  // namespace swprof
