#include "sampler/perf_records.h"

#include <linux/perf_event.h>

#include <bit>
#include <cstddef>

#include "common/hex.h"

namespace swprof {
namespace {

// Size of the sample_id trailer that sample_id_all appends to non-sample records.
size_t sample_id_size(uint64_t sample_type) {
  size_t n = 0;
  for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
                       PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER})
    if (sample_type & bit) n += 8;
  return n;
}

struct SampleId {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time = 0;
  uint32_t cpu = 0;
};

// Reads the trailer at the end of a non-sample record.
std::optional<SampleId> read_sample_id(Bytes raw, const PerfLayout& layout) {
  const size_t n = sample_id_size(layout.sample_type);
  if (raw.size() < sizeof(perf_event_header) + n) return std::nullopt;
  ByteReader r(raw.subspan(raw.size() - n));
  SampleId id;
  if (layout.sample_type & PERF_SAMPLE_IDENTIFIER) r.skip(8);
  if (layout.sample_type & PERF_SAMPLE_TID) {
    id.pid = r.read<uint32_t>().value_or(0);
    id.tid = r.read<uint32_t>().value_or(0);
  }
  if (layout.sample_type & PERF_SAMPLE_TIME) id.time = r.read<uint64_t>().value_or(0);
  if (layout.sample_type & PERF_SAMPLE_ID) r.skip(8);
  if (layout.sample_type & PERF_SAMPLE_STREAM_ID) r.skip(8);
  if (layout.sample_type & PERF_SAMPLE_CPU) id.cpu = r.read<uint32_t>().value_or(0);
  return id;
}

// Body of a non-sample record: after the header, before the sample_id trailer.
std::optional<ByteReader> body_reader(Bytes raw, const PerfLayout& layout) {
  const size_t trailer = sample_id_size(layout.sample_type);
  if (raw.size() < sizeof(perf_event_header) + trailer) return std::nullopt;
  return ByteReader(raw.subspan(sizeof(perf_event_header),
                                raw.size() - sizeof(perf_event_header) - trailer));
}

constexpr uint64_t kContextMax = static_cast<uint64_t>(-4095);  // PERF_CONTEXT_MAX

std::optional<Record> parse_mmap2(Bytes raw, uint16_t misc, const PerfLayout& layout) {
  auto r = body_reader(raw, layout);
  auto id = read_sample_id(raw, layout);
  if (!r || !id) return std::nullopt;
  MappingRecord m;
  m.time = id->time;
  if (!r->read_into(m.pid) || !r->read_into(m.tid) || !r->read_into(m.start) ||
      !r->read_into(m.length) || !r->read_into(m.file_offset))
    return std::nullopt;
  if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    auto size = r->read<uint8_t>();
    if (!size || !r->skip(3)) return std::nullopt;
    auto id_bytes = r->bytes(20);
    if (!id_bytes) return std::nullopt;
    m.build_id_size = std::min<uint8_t>(*size, kBuildIdMax);
    std::memcpy(m.build_id.data(), id_bytes->data(), m.build_id_size);
  } else {
    uint64_t ino_generation = 0;
    if (!r->read_into(m.dev_major) || !r->read_into(m.dev_minor) || !r->read_into(m.inode) ||
        !r->read_into(ino_generation))
      return std::nullopt;
  }
  if (!r->read_into(m.prot) || !r->read_into(m.flags)) return std::nullopt;
  auto path = r->padded_string(r->remaining());
  if (!path) return std::nullopt;
  m.path = std::string(*path);
  return m;
}

std::optional<Record> parse_comm(Bytes raw, uint16_t misc, const PerfLayout& layout) {
  auto r = body_reader(raw, layout);
  auto id = read_sample_id(raw, layout);
  if (!r || !id) return std::nullopt;
  CommRecord c;
  c.time = id->time;
  c.exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  if (!r->read_into(c.pid) || !r->read_into(c.tid)) return std::nullopt;
  auto name = r->padded_string(r->remaining());
  if (!name) return std::nullopt;
  c.comm = std::string(*name);
  return c;
}

std::optional<Record> parse_task(Bytes raw, bool exit, const PerfLayout& layout) {
  auto r = body_reader(raw, layout);
  if (!r) return std::nullopt;
  TaskRecord t;
  t.exit = exit;
  if (!r->read_into(t.pid) || !r->read_into(t.ppid) || !r->read_into(t.tid) ||
      !r->read_into(t.ptid) || !r->read_into(t.time))
    return std::nullopt;
  return t;
}

std::optional<Record> parse_lost(Bytes raw, bool has_id, const PerfLayout& layout) {
  auto r = body_reader(raw, layout);
  auto id = read_sample_id(raw, layout);
  if (!r || !id) return std::nullopt;
  LostRecord l;
  l.time = id->time;
  l.cpu = id->cpu;
  if (has_id && !r->skip(8)) return std::nullopt;
  if (!r->read_into(l.count)) return std::nullopt;
  return l;
}

std::optional<Record> parse_throttle(Bytes raw, bool throttled, const PerfLayout& layout) {
  auto r = body_reader(raw, layout);
  auto id = read_sample_id(raw, layout);
  if (!r || !id) return std::nullopt;
  ThrottleRecord t;
  t.throttled = throttled;
  t.cpu = id->cpu;
  if (!r->read_into(t.time)) return std::nullopt;
  return t;
}

// PERF_RECORD_SWITCH: no body; who, when and where come from the sample_id
// trailer (the off-CPU event's sample_type has TID, TIME and CPU).
std::optional<Record> parse_switch(Bytes raw, uint16_t misc, const PerfLayout& layout) {
  constexpr uint64_t kNeeded = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  if ((layout.sample_type & kNeeded) != kNeeded) return std::nullopt;
  auto id = read_sample_id(raw, layout);
  if (!id) return std::nullopt;
  SwitchRecord sw;
  sw.time = id->time;
  sw.pid = id->pid;
  sw.tid = id->tid;
  sw.cpu = id->cpu;
  sw.out = (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  sw.preempted = sw.out && (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
  return sw;
}

}  // namespace

std::optional<SampleView> parse_perf_sample(Bytes raw, const PerfLayout& layout) {
  ByteReader r(raw);
  auto header = r.read<perf_event_header>();
  if (!header) return std::nullopt;
  SampleView s;
  s.off_cpu = layout.off_cpu;
  const uint16_t cpumode = header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  s.in_kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
  const uint64_t st = layout.sample_type;
  if ((st & PERF_SAMPLE_IDENTIFIER) && !r.skip(8)) return std::nullopt;
  if ((st & PERF_SAMPLE_IP) && !r.read_into(s.ip)) return std::nullopt;
  if ((st & PERF_SAMPLE_TID) && !(r.read_into(s.pid) && r.read_into(s.tid))) return std::nullopt;
  if ((st & PERF_SAMPLE_TIME) && !r.read_into(s.time)) return std::nullopt;
  if ((st & PERF_SAMPLE_ADDR) && !r.skip(8)) return std::nullopt;
  if ((st & PERF_SAMPLE_ID) && !r.skip(8)) return std::nullopt;
  if ((st & PERF_SAMPLE_STREAM_ID) && !r.skip(8)) return std::nullopt;
  if ((st & PERF_SAMPLE_CPU) && !(r.read_into(s.cpu) && r.skip(4))) return std::nullopt;
  if ((st & PERF_SAMPLE_PERIOD) && !r.read_into(s.period)) return std::nullopt;
  if (st & PERF_SAMPLE_CALLCHAIN) {
    auto nr = r.read<uint64_t>();
    if (!nr || *nr > r.remaining() / 8) return std::nullopt;
    auto chain = *r.bytes(*nr * 8);
    // With exclude_callchain_user the chain is [PERF_CONTEXT_KERNEL, k0, k1, ...];
    // keep the addresses after the leading context markers, up to any later marker.
    size_t first = 0;
    auto at = [&](size_t i) {
      uint64_t v;
      std::memcpy(&v, chain.data() + i * 8, 8);
      return v;
    };
    while (first < *nr && at(first) >= kContextMax) ++first;
    size_t last = first;
    while (last < *nr && at(last) < kContextMax) ++last;
    s.kernel_chain = chain.subspan(first * 8, (last - first) * 8);
  }
  if (st & PERF_SAMPLE_REGS_USER) {
    if (!r.read_into(s.abi)) return std::nullopt;
    if (s.abi != PERF_SAMPLE_REGS_ABI_NONE) {
      s.nregs = static_cast<uint32_t>(std::popcount(layout.regs_mask));
      if (s.nregs > kMaxSampleRegs) return std::nullopt;
      for (uint32_t i = 0; i < s.nregs; ++i)
        if (!r.read_into(s.regs[i])) return std::nullopt;
    }
  }
  if (st & PERF_SAMPLE_STACK_USER) {
    // { u64 size; char data[size]; u64 dyn_size; } -- dyn_size is absent when size is 0.
    auto size = r.read<uint64_t>();
    if (!size) return std::nullopt;
    if (*size > 0) {
      auto data = r.bytes(*size);
      auto dyn = r.read<uint64_t>();
      if (!data || !dyn || *dyn > *size) return std::nullopt;
      s.stack = data->first(*dyn);
      s.stack_truncated = *dyn == *size;
    }
  }
  return s;
}

Bytes cut_stack_copy(Bytes raw, const PerfLayout& layout, std::vector<uint8_t>& scratch) {
  if (!(layout.sample_type & PERF_SAMPLE_STACK_USER)) return raw;
  auto header = ByteReader(raw).read<perf_event_header>();
  if (!header || header->type != PERF_RECORD_SAMPLE) return raw;
  const std::optional<SampleView> s = parse_perf_sample(raw, layout);
  if (!s || s->stack_truncated || s->stack.data() == nullptr) return raw;
  // { u64 size; char data[size]; u64 dyn_size; } at the end of the record.
  const size_t data_at = static_cast<size_t>(s->stack.data() - raw.data());
  const uint64_t size = ByteReader(raw.subspan(data_at - 8)).read<uint64_t>().value_or(0);
  if (data_at + size + 8 != raw.size()) return raw;
  const uint64_t dyn_size = s->stack.size();
  const uint64_t keep = (dyn_size + 8) / 8 * 8;  // the multiple of 8 above dyn_size
  if (keep >= size) return raw;
  scratch.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(data_at + keep));
  ByteWriter w(scratch);
  w.put<uint64_t>(dyn_size);
  w.patch<uint16_t>(offsetof(perf_event_header, size), static_cast<uint16_t>(scratch.size()));
  w.patch<uint64_t>(data_at - 8, keep);
  return Bytes(scratch.data(), scratch.size());
}

ParsedPerfRecord parse_perf_record(Bytes raw, const PerfLayout& layout) {
  ParsedPerfRecord out;
  ByteReader r(raw);
  auto header = r.read<perf_event_header>();
  if (!header) {
    out.malformed = true;
    return out;
  }
  out.type = header->type;
  std::optional<Record> rec;
  bool known = true;
  switch (header->type) {
    case PERF_RECORD_SAMPLE:
      if (auto s = parse_perf_sample(raw, layout)) rec = *s;
      break;
    case PERF_RECORD_MMAP2: rec = parse_mmap2(raw, header->misc, layout); break;
    case PERF_RECORD_COMM: rec = parse_comm(raw, header->misc, layout); break;
    case PERF_RECORD_FORK: rec = parse_task(raw, false, layout); break;
    case PERF_RECORD_EXIT: rec = parse_task(raw, true, layout); break;
    case PERF_RECORD_LOST: rec = parse_lost(raw, true, layout); break;
    case PERF_RECORD_LOST_SAMPLES: rec = parse_lost(raw, false, layout); break;
    case PERF_RECORD_THROTTLE: rec = parse_throttle(raw, true, layout); break;
    case PERF_RECORD_UNTHROTTLE: rec = parse_throttle(raw, false, layout); break;
    case PERF_RECORD_SWITCH: rec = parse_switch(raw, header->misc, layout); break;
    default: known = false; break;
  }
  out.malformed = known && !rec;
  out.record = std::move(rec);
  return out;
}

std::string MappingRecord::build_id_hex() const { return to_hex(Bytes(build_id.data(), build_id_size)); }

}  // namespace swprof
