#include "recording/record_codec.h"

namespace swprof {
namespace {

constexpr uint16_t kSampleInKernel = 1;
constexpr uint16_t kSampleTruncated = 2;
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
          flags = (rec.in_kernel ? kSampleInKernel : 0) | (rec.stack_truncated ? kSampleTruncated : 0);
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
  if (stack_size > max_stack_size_) return std::nullopt;
  auto stored = r.bytes(stored_size);
  if (!stored) return std::nullopt;
  auto stack = stacks_.decode(s.tid, sample_sp(s), stack_size, *stored);
  if (!stack) return std::nullopt;
  s.kernel_chain = *chain;
  s.stack = *stack;
  return s;
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
  std::optional<Record> rec;
  switch (type) {
    case RecordType::kSample: rec = decode_sample(r, flags); break;
    case RecordType::kMapping: {
      MappingRecord m;
      m.synthesized = flags & kMappingSynthesized;
      if (r.read_into(m.time) && r.read_into(m.pid) && r.read_into(m.tid) && r.read_into(m.start) &&
          r.read_into(m.length) && r.read_into(m.file_offset) && r.read_into(m.prot) &&
          r.read_into(m.flags) && r.read_into(m.dev_major) && r.read_into(m.dev_minor) &&
          r.read_into(m.inode) && r.read_into(m.build_id_size) && r.read_into(m.build_id) &&
          m.build_id_size <= kBuildIdMax) {
        if (auto path = read_string(r)) {
          m.path = std::string(*path);
          rec = std::move(m);
        }
      }
      break;
    }
    case RecordType::kComm: {
      CommRecord c;
      c.exec = flags & kCommExec;
      if (r.read_into(c.time) && r.read_into(c.pid) && r.read_into(c.tid)) {
        if (auto name = read_string(r)) {
          c.comm = std::string(*name);
          rec = std::move(c);
        }
      }
      break;
    }
    case RecordType::kFork:
    case RecordType::kExit: {
      TaskRecord t;
      t.exit = type == RecordType::kExit;
      if (r.read_into(t.time) && r.read_into(t.pid) && r.read_into(t.ppid) && r.read_into(t.tid) &&
          r.read_into(t.ptid))
        rec = t;
      break;
    }
    case RecordType::kLost: {
      LostRecord l;
      if (r.read_into(l.time) && r.read_into(l.cpu) && r.read_into(l.count)) rec = l;
      break;
    }
    case RecordType::kThrottle:
    case RecordType::kUnthrottle: {
      ThrottleRecord t;
      t.throttled = type == RecordType::kThrottle;
      if (r.read_into(t.time) && r.read_into(t.cpu)) rec = t;
      break;
    }
    case RecordType::kImage: {
      ImageRecord img;
      auto name = read_string(r);
      auto n = r.read<uint32_t>();
      if (name && n) {
        if (auto bytes = r.bytes(*n)) {
          img.name = std::string(*name);
          img.bytes = *bytes;
          rec = std::move(img);
        }
      }
      break;
    }
    case RecordType::kEnd: {
      if (auto json = read_string(r)) rec = EndRecord{std::string(*json)};
      break;
    }
    default:
      result.status = DecodeResult::Status::kUnknownType;
      return result;
  }
  if (!rec) return result;
  result.status = DecodeResult::Status::kOk;
  result.record = std::move(*rec);
  return result;
}

}  // namespace swprof
