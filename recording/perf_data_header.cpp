#include "recording/perf_data_header.h"

#include <linux/perf_event.h>

#include <cstring>

#include "recording/records.h"
#include "recording/recording_format.h"

namespace swprof {
namespace {

// perf_event_attr's flag bits (the bitfield after read_format).
constexpr uint64_t kAttrFreq = 1ull << 10;
constexpr uint64_t kAttrExcludeKernel = 1ull << 5;
constexpr uint64_t kAttrSampleIdAll = 1ull << 18;
// Offsets of the fields after the flags; an older, shorter attr lacks them.
constexpr size_t kAttrBranchSampleType = 72;
constexpr size_t kAttrSampleRegsUser = 80;
constexpr size_t kAttrSampleStackUser = 88;

constexpr uint16_t kBuildIdSizeValid = 1u << 15;  // PERF_RECORD_MISC_BUILD_ID_SIZE
constexpr size_t kMaxStrings = 4096;

template <typename T>
T field_at(Bytes raw, size_t at) {
  T v{};
  if (at + sizeof(T) <= raw.size()) std::memcpy(&v, raw.data() + at, sizeof(T));
  return v;
}

// perf_header_string: u32 len, then len bytes (NUL-terminated, padded).
std::optional<std::string> read_header_string(ByteReader& r) {
  auto len = r.read<uint32_t>();
  if (!len) return std::nullopt;
  auto text = r.padded_string(*len);
  if (!text) return std::nullopt;
  return std::string(*text);
}

bool read_string_feature(ByteReader r, std::string& out) {
  auto s = read_header_string(r);
  if (!s) return false;
  out = std::move(*s);
  return true;
}

// perf_header_string_list: u32 nr, then nr strings.
bool read_string_list(ByteReader r, std::vector<std::string>& out) {
  auto nr = r.read<uint32_t>();
  if (!nr || *nr > kMaxStrings) return false;
  for (uint32_t i = 0; i < *nr; ++i) {
    auto s = read_header_string(r);
    if (!s) return false;
    out.push_back(std::move(*s));
  }
  return true;
}

// u32 nr, u32 attr_size; per event: attr, u32 nr_ids, string name, u64 ids[nr_ids].
bool read_event_desc(ByteReader r, std::vector<std::string>& names) {
  auto nr = r.read<uint32_t>();
  auto attr_size = r.read<uint32_t>();
  if (!nr || !attr_size || *nr > kMaxStrings) return false;
  for (uint32_t i = 0; i < *nr; ++i) {
    if (!r.skip(*attr_size)) return false;
    auto nr_ids = r.read<uint32_t>();
    if (!nr_ids) return false;
    auto name = read_header_string(r);
    if (!name || *nr_ids > r.remaining() / 8 || !r.skip(size_t{*nr_ids} * 8)) return false;
    names.push_back(std::move(*name));
  }
  return true;
}

// A sequence of build_id events: perf_event_header, s32 pid, u8 build_id[24]
// (byte 20: the size when misc says so), then the file name.
bool read_build_ids(ByteReader r, std::unordered_map<std::string, std::vector<uint8_t>>& out) {
  while (!r.at_end()) {
    auto type = r.read<uint32_t>();
    auto misc = r.read<uint16_t>();
    auto size = r.read<uint16_t>();
    constexpr size_t kFixed = 8 + 4 + 24;
    if (!type || !misc || !size || *size < kFixed || *size - 8u > r.remaining()) return false;
    ByteReader e(*r.bytes(*size - 8u));
    e.skip(4);  // pid
    Bytes id = *e.bytes(24);
    size_t id_size = (*misc & kBuildIdSizeValid) ? std::min<size_t>(id[20], kBuildIdMax) : kBuildIdMax;
    // Without a size, perf pads shorter ids (md5: 16 bytes) with zeros.
    if (!(*misc & kBuildIdSizeValid))
      while (id_size > 0 && id[id_size - 1] == 0) --id_size;
    auto name = e.padded_string(e.remaining());
    if (id_size && name && !name->empty()) out[std::string(*name)].assign(id.begin(), id.begin() + id_size);
  }
  return true;
}

}  // namespace

std::optional<PerfFileHeader> parse_perf_file_header(Bytes raw) {
  ByteReader r(raw);
  PerfFileHeader h;
  PerfFileSection event_types;
  if (!r.skip(sizeof kPerfDataMagic) || !r.read_into(h.size) || !r.read_into(h.attr_size) ||
      !r.read_into(h.attrs) || !r.read_into(h.data) || !r.read_into(event_types) || !r.read_into(h.features))
    return std::nullopt;
  return h;
}

std::optional<PerfEventAttr> parse_perf_event_attr(Bytes raw) {
  const auto size = field_at<uint32_t>(raw, 4);
  // PERF_ATTR_SIZE_VER0 (64 bytes) is the oldest attr perf writes.
  if (raw.size() < PERF_ATTR_SIZE_VER0 || (size && size < PERF_ATTR_SIZE_VER0)) return std::nullopt;
  const Bytes attr = raw.first(size ? std::min<size_t>(size, raw.size()) : raw.size());
  PerfEventAttr a;
  a.type = field_at<uint32_t>(attr, 0);
  a.config = field_at<uint64_t>(attr, 8);
  a.sample_period = field_at<uint64_t>(attr, 16);
  a.sample_type = field_at<uint64_t>(attr, 24);
  a.read_format = field_at<uint64_t>(attr, 32);
  const auto flags = field_at<uint64_t>(attr, 40);
  a.freq = flags & kAttrFreq;
  a.exclude_kernel = flags & kAttrExcludeKernel;
  a.sample_id_all = flags & kAttrSampleIdAll;
  a.branch_sample_type = field_at<uint64_t>(attr, kAttrBranchSampleType);
  a.sample_regs_user = field_at<uint64_t>(attr, kAttrSampleRegsUser);
  a.sample_stack_user = field_at<uint32_t>(attr, kAttrSampleStackUser);
  a.name = perf_event_default_name(a.type, a.config);
  return a;
}

std::string perf_event_default_name(uint32_t type, uint64_t config) {
  static const char* const kSoftware[] = {"cpu-clock", "task-clock", "page-faults", "context-switches",
                                          "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
                                          "emulation-faults", "dummy"};
  static const char* const kHardware[] = {"cycles", "instructions", "cache-references", "cache-misses",
                                          "branches", "branch-misses", "bus-cycles"};
  if (type == PERF_TYPE_SOFTWARE && config < std::size(kSoftware)) return kSoftware[config];
  if (type == PERF_TYPE_HARDWARE && config < std::size(kHardware)) return kHardware[config];
  return "type " + std::to_string(type) + " config " + std::to_string(config);
}

bool parse_perf_feature(unsigned bit, Bytes raw, PerfDataFeatures& out) {
  ByteReader r(raw);
  switch (bit) {
    case kPerfFeatureBuildId: return read_build_ids(r, out.build_ids);
    case kPerfFeatureHostname: return read_string_feature(r, out.hostname);
    case kPerfFeatureOsRelease: return read_string_feature(r, out.os_release);
    case kPerfFeatureArch: return read_string_feature(r, out.arch);
    case kPerfFeatureCmdline: return read_string_list(r, out.cmdline);
    case kPerfFeatureEventDesc: return read_event_desc(r, out.event_names);
    case kPerfFeatureSampleTime: return r.read_into(out.first_sample_time) && r.read_into(out.last_sample_time);
    case kPerfFeatureCompressed: return r.skip(4) && r.read_into(out.compression);
    default: return true;
  }
}

}  // namespace swprof
