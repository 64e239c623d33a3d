#include "recording/record_codec.h"

namespace swprof {
namespace {

constexpr uint16_t kSampleInKernel = 1;
constexpr uint16_t kSampleTruncated = 2;
constexpr uint16_t kSampleOffCpu = 4;
constexpr uint16_t kSampleIpSpOnly = 8;
constexpr uint16_t kSampleBeyond = 16;
constexpr uint16_t kSampleBeyondChanged = 32;
constexpr uint16_t kSwitchOut = 1;
constexpr uint16_t kSwitchPreempted = 2;
constexpr uint16_t kSwitchSynthesized = 4;
constexpr uint16_t kMappingSynthesized = 1;
constexpr uint16_t kCommExec = 1;

uint64_t sample_sp(const SampleView& s) { return s.nregs > kSampleSpIndex ? s.regs[kSampleSpIndex] : 0; }

}  // namespace

const char* record_type_name(RecordType type) {
  switch (type) {
    case RecordType::kSample: return "sample";
    case RecordType::kMapping: return "mapping";
    case RecordType::kComm: return "comm";
    case RecordType::kFork: return "fork";
    case RecordType::kExit: return "exit";
    case RecordType::kLost: return "lost";
    case RecordType::kThrottle: return "throttle";
    case RecordType::kUnthrottle: return "unthrottle";
    case RecordType::kImage: return "image";
    case RecordType::kEnd: return "end";
    case RecordType::kSwitch: return "switch";
    case RecordType::kOffCpuRepeat: return "off-cpu repeat";
    case RecordType::kFlush: return "flush";
    case RecordType::kOffCpuSampleTime: return "off-cpu sample time";
  }
  return "unknown";
}

RecordType record_type_of(const Record& record) {
  return std::visit(
      [](const auto& rec) {
        using T = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<T, SampleView>) return RecordType::kSample;
        else if constexpr (std::is_same_v<T, MappingRecord>) return RecordType::kMapping;
        else if constexpr (std::is_same_v<T, CommRecord>) return RecordType::kComm;
        else if constexpr (std::is_same_v<T, TaskRecord>) return rec.exit ? RecordType::kExit : RecordType::kFork;
        else if constexpr (std::is_same_v<T, LostRecord>) return RecordType::kLost;
        else if constexpr (std::is_same_v<T, ThrottleRecord>) return rec.throttled ? RecordType::kThrottle : RecordType::kUnthrottle;
        else if constexpr (std::is_same_v<T, ImageRecord>) return RecordType::kImage;
        else if constexpr (std::is_same_v<T, SwitchRecord>) return RecordType::kSwitch;
        else if constexpr (std::is_same_v<T, OffCpuRepeatRecord>) return RecordType::kOffCpuRepeat;
        else if constexpr (std::is_same_v<T, FlushRecord>) return RecordType::kFlush;
        else return RecordType::kEnd;
      },
      record);
}

void RecordEncoder::encode_sample(const SampleView& s, ByteWriter& w) {
  w.put(s.time);
  w.put(s.pid);
  w.put(s.tid);
  w.put(s.cpu);
  w.put(static_cast<uint32_t>(s.abi));
  w.put(s.period);
  w.put(s.ip);
  w.put(static_cast<uint16_t>(s.nregs));
  w.put(static_cast<uint16_t>(s.kernel_depth()));
  for (uint32_t i = 0; i < s.nregs; ++i) w.put(s.regs[i]);
  w.put_bytes(s.kernel_chain);
  Bytes stored = stacks_.encode(s.tid, sample_sp(s), s.stack);
  w.put(static_cast<uint32_t>(s.stack.size()));
  w.put(static_cast<uint32_t>(stored.size()));
  w.put_bytes(stored);
  if (s.stack_beyond) w.put(s.stack_beyond);  // flag kSampleBeyond
  if (s.stack_beyond && !s.beyond_changed.empty()) {  // flag kSampleBeyondChanged
    w.put(static_cast<uint16_t>(s.beyond_changed.size()));
    w.put_bytes(s.beyond_changed);
    w.put(std::min(s.beyond_delay_us, kMaxStackReadDelayUs));
  }
}

void RecordEncoder::encode_off_cpu_sample_time(const SampleView& s, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  w.put(static_cast<uint32_t>(kRecordHeaderSize + 16));
  w.put(static_cast<uint16_t>(RecordType::kOffCpuSampleTime));
  w.put(uint16_t{0});
  w.put(s.time);
  w.put(s.pid);
  w.put(s.tid);
}

void RecordEncoder::encode(const Record& record, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  const size_t start = w.size();
  w.put<uint32_t>(0);  // size, patched below
  w.put(static_cast<uint16_t>(record_type_of(record)));
  const size_t flags_at = w.size();
  w.put<uint16_t>(0);   // flags, patched below
  uint16_t flags = 0;
  std::visit(
      [&](const auto& rec) {
        using T = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<T, SampleView>) {
          flags = (rec.in_kernel ? kSampleInKernel : 0) | (rec.stack_truncated ? kSampleTruncated : 0) |
                  (rec.off_cpu ? kSampleOffCpu : 0) | (rec.ip_sp_only ? kSampleIpSpOnly : 0) |
                  (rec.stack_beyond ? kSampleBeyond : 0) |
                  (rec.stack_beyond && !rec.beyond_changed.empty() ? kSampleBeyondChanged : 0);
          encode_sample(rec, w);
        } else if constexpr (std::is_same_v<T, MappingRecord>) {
          flags = rec.synthesized ? kMappingSynthesized : 0;
          w.put(rec.time); w.put(rec.pid); w.put(rec.tid);
          w.put(rec.start); w.put(rec.length); w.put(rec.file_offset);
          w.put(rec.prot); w.put(rec.flags); w.put(rec.dev_major); w.put(rec.dev_minor);
          w.put(rec.inode); w.put(rec.build_id_size); w.put(rec.build_id);
          w.put_string(rec.path);
        } else if constexpr (std::is_same_v<T, CommRecord>) {
          flags = rec.exec ? kCommExec : 0;
          w.put(rec.time); w.put(rec.pid); w.put(rec.tid);
          w.put_string(rec.comm);
        } else if constexpr (std::is_same_v<T, TaskRecord>) {
          w.put(rec.time); w.put(rec.pid); w.put(rec.ppid); w.put(rec.tid); w.put(rec.ptid);
        } else if constexpr (std::is_same_v<T, LostRecord>) {
          w.put(rec.time); w.put(rec.cpu); w.put(rec.count);
        } else if constexpr (std::is_same_v<T, ThrottleRecord>) {
          w.put(rec.time); w.put(rec.cpu);
        } else if constexpr (std::is_same_v<T, ImageRecord>) {
          w.put_string(rec.name);
          w.put(static_cast<uint32_t>(rec.bytes.size()));
          w.put_bytes(rec.bytes);
        } else if constexpr (std::is_same_v<T, EndRecord>) {
          w.put_string(rec.json);
        } else if constexpr (std::is_same_v<T, SwitchRecord>) {
          flags = (rec.out ? kSwitchOut : 0) | (rec.preempted ? kSwitchPreempted : 0) |
                  (rec.synthesized ? kSwitchSynthesized : 0);
          w.put(rec.time); w.put(rec.pid); w.put(rec.tid); w.put(rec.cpu);
        } else if constexpr (std::is_same_v<T, OffCpuRepeatRecord>) {
          w.put(rec.time); w.put(rec.pid); w.put(rec.tid); w.put(rec.ref_time);
        } else if constexpr (std::is_same_v<T, FlushRecord>) {
          w.put(rec.time);
        }
      },
      record);
  w.patch(start, static_cast<uint32_t>(w.size() - start));
  w.patch(flags_at, flags);
}

std::optional<Record> RecordDecoder::decode_sample(ByteReader& r, uint16_t flags) {
  SampleView s;
  s.in_kernel = flags & kSampleInKernel;
  s.stack_truncated = flags & kSampleTruncated;
  s.off_cpu = flags & kSampleOffCpu;
  s.ip_sp_only = flags & kSampleIpSpOnly;
  uint32_t abi = 0;
  uint16_t nregs = 0;
  uint16_t nkernel = 0;
  if (!r.read_into(s.time) || !r.read_into(s.pid) || !r.read_into(s.tid) || !r.read_into(s.cpu) ||
      !r.read_into(abi) || !r.read_into(s.period) || !r.read_into(s.ip) || !r.read_into(nregs) ||
      !r.read_into(nkernel))
    return std::nullopt;
  if (nregs > kMaxSampleRegs) return std::nullopt;
  s.abi = abi;
  s.nregs = nregs;
  for (uint32_t i = 0; i < nregs; ++i)
    if (!r.read_into(s.regs[i])) return std::nullopt;
  auto chain = r.bytes(size_t{nkernel} * 8);
  uint32_t stack_size = 0;
  uint32_t stored_size = 0;
  if (!chain || !r.read_into(stack_size) || !r.read_into(stored_size)) return std::nullopt;
  auto stored = r.bytes(stored_size);
  if (!stored) return std::nullopt;
  if ((flags & kSampleBeyond) && !r.read_into(s.stack_beyond)) return std::nullopt;
  // The kernel's part within the recording's --stack-size; the part read past it within kMaxStackBeyond.
  if (s.stack_beyond > kMaxStackBeyond || s.stack_beyond > stack_size ||
      stack_size - s.stack_beyond > max_stack_size_)
    return std::nullopt;
  if (flags & kSampleBeyondChanged) {
    // One bit per word of the kernel's copy's end, up to kMaxStackReread bytes of it.
    uint16_t changed_bytes = 0;
    if (!s.stack_beyond || !r.read_into(changed_bytes) || changed_bytes == 0 ||
        changed_bytes > kMaxStackReread / 64 || size_t{changed_bytes} * 64 > stack_size - s.stack_beyond)
      return std::nullopt;
    auto changed = r.bytes(changed_bytes);
    if (!changed || !r.read_into(s.beyond_delay_us) || s.beyond_delay_us > kMaxStackReadDelayUs) return std::nullopt;
    s.beyond_changed = *changed;
  }
  auto stack = stacks_.decode(s.tid, sample_sp(s), stack_size, *stored);
  if (!stack) return std::nullopt;
  s.kernel_chain = *chain;
  s.stack = *stack;
  if (!stack->empty()) s.stack_owner = stacks_.last_buffer();
  return s;
}

namespace {

std::optional<Record> decode_mapping(ByteReader& r, uint16_t flags) {
  MappingRecord m;
  m.synthesized = flags & kMappingSynthesized;
  if (!r.read_into(m.time) || !r.read_into(m.pid) || !r.read_into(m.tid) || !r.read_into(m.start) ||
      !r.read_into(m.length) || !r.read_into(m.file_offset) || !r.read_into(m.prot) || !r.read_into(m.flags) ||
      !r.read_into(m.dev_major) || !r.read_into(m.dev_minor) || !r.read_into(m.inode) ||
      !r.read_into(m.build_id_size) || !r.read_into(m.build_id) || m.build_id_size > kBuildIdMax)
    return std::nullopt;
  auto path = read_string(r);
  if (!path) return std::nullopt;
  m.path = std::string(*path);
  return m;
}

std::optional<Record> decode_comm(ByteReader& r, uint16_t flags) {
  CommRecord c;
  c.exec = flags & kCommExec;
  if (!r.read_into(c.time) || !r.read_into(c.pid) || !r.read_into(c.tid)) return std::nullopt;
  auto name = read_string(r);
  if (!name) return std::nullopt;
  c.comm = std::string(*name);
  return c;
}

// kFork and kExit share one body.
std::optional<Record> decode_task(ByteReader& r, RecordType type) {
  TaskRecord t;
  t.exit = type == RecordType::kExit;
  if (!r.read_into(t.time) || !r.read_into(t.pid) || !r.read_into(t.ppid) || !r.read_into(t.tid) ||
      !r.read_into(t.ptid))
    return std::nullopt;
  return t;
}

std::optional<Record> decode_lost(ByteReader& r) {
  LostRecord l;
  if (!r.read_into(l.time) || !r.read_into(l.cpu) || !r.read_into(l.count)) return std::nullopt;
  return l;
}

// kThrottle and kUnthrottle share one body.
std::optional<Record> decode_throttle(ByteReader& r, RecordType type) {
  ThrottleRecord t;
  t.throttled = type == RecordType::kThrottle;
  if (!r.read_into(t.time) || !r.read_into(t.cpu)) return std::nullopt;
  return t;
}

std::optional<Record> decode_image(ByteReader& r) {
  auto name = read_string(r);
  auto n = r.read<uint32_t>();
  if (!name || !n) return std::nullopt;
  auto bytes = r.bytes(*n);
  if (!bytes) return std::nullopt;
  ImageRecord img;
  img.name = std::string(*name);
  img.bytes = *bytes;
  return img;
}

std::optional<Record> decode_switch(ByteReader& r, uint16_t flags) {
  SwitchRecord s;
  s.out = flags & kSwitchOut;
  s.preempted = flags & kSwitchPreempted;
  s.synthesized = flags & kSwitchSynthesized;
  if (!r.read_into(s.time) || !r.read_into(s.pid) || !r.read_into(s.tid) || !r.read_into(s.cpu))
    return std::nullopt;
  return s;
}

std::optional<Record> decode_off_cpu_repeat(ByteReader& r) {
  OffCpuRepeatRecord o;
  if (!r.read_into(o.time) || !r.read_into(o.pid) || !r.read_into(o.tid) || !r.read_into(o.ref_time))
    return std::nullopt;
  return o;
}

std::optional<Record> decode_flush(ByteReader& r) {
  FlushRecord f;
  if (!r.read_into(f.time)) return std::nullopt;
  return f;
}

std::optional<Record> decode_off_cpu_sample_time(ByteReader& r) {
  SampleView s;
  s.off_cpu = true;
  if (!r.read_into(s.time) || !r.read_into(s.pid) || !r.read_into(s.tid)) return std::nullopt;
  return s;
}

std::optional<Record> decode_end(ByteReader& r) {
  auto json = read_string(r);
  if (!json) return std::nullopt;
  return EndRecord{std::string(*json)};
}

}  // namespace

std::optional<Record> RecordDecoder::decode_body(ByteReader& r, RecordType type, uint16_t flags) {
  switch (type) {
    case RecordType::kSample: return decode_sample(r, flags);
    case RecordType::kMapping: return decode_mapping(r, flags);
    case RecordType::kComm: return decode_comm(r, flags);
    case RecordType::kFork:
    case RecordType::kExit: return decode_task(r, type);
    case RecordType::kLost: return decode_lost(r);
    case RecordType::kThrottle:
    case RecordType::kUnthrottle: return decode_throttle(r, type);
    case RecordType::kImage: return decode_image(r);
    case RecordType::kEnd: return decode_end(r);
    case RecordType::kSwitch: return decode_switch(r, flags);
    case RecordType::kOffCpuRepeat: return decode_off_cpu_repeat(r);
    case RecordType::kFlush: return decode_flush(r);
    case RecordType::kOffCpuSampleTime: return decode_off_cpu_sample_time(r);
  }
  return std::nullopt;
}

bool RecordDecoder::known_type(RecordType type) {
  return static_cast<uint16_t>(type) >= static_cast<uint16_t>(RecordType::kSample) &&
         static_cast<uint16_t>(type) <= static_cast<uint16_t>(RecordType::kOffCpuSampleTime);
}

DecodeResult RecordDecoder::decode(ByteReader& outer) {
  DecodeResult result;
  auto size = outer.read<uint32_t>();
  if (!size || *size < kRecordHeaderSize) return result;
  auto body = outer.bytes(*size - 4);
  if (!body) return result;
  ByteReader r(*body);
  const auto type = static_cast<RecordType>(r.read<uint16_t>().value());
  const uint16_t flags = r.read<uint16_t>().value();
  if (!known_type(type)) {
    result.status = DecodeResult::Status::kUnknownType;
    return result;
  }
  std::optional<Record> rec = decode_body(r, type, flags);
  if (!rec) return result;
  result.status = DecodeResult::Status::kOk;
  result.type = type;
  result.record = std::move(*rec);
  return result;
}

}  // namespace swprof
