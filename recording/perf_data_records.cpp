#include "recording/perf_data_records.h"

#include <linux/perf_event.h>
#include <sys/mman.h>

#include <bit>
#include <cstring>

namespace swprof {
namespace {

constexpr uint64_t kContextMax = static_cast<uint64_t>(-4095);  // PERF_CONTEXT_MAX: markers are above
constexpr uint32_t kNoPid = 0xffffffffu;                        // the kernel's own mappings
// The registers swprof's samples hold, in this bit order (perf's
// PERF_REG_X86_*: AX..SS, R8..R15); the same as the sampler's kX86_64RegsMask.
constexpr uint64_t kSampleRegsMask = 0xfffULL | (0xffULL << 16);

std::string skipped_record_name(uint32_t type) {
  return "records of type " + std::to_string(type);
}

size_t trailer_size(uint64_t sample_type) {
  size_t n = 0;
  for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
                       PERF_SAMPLE_IDENTIFIER})
    n += (sample_type & bit) ? 8 : 0;
  return n;
}

uint64_t u64_at(Bytes raw, size_t at) {
  uint64_t v = 0;
  if (at + 8 <= raw.size()) std::memcpy(&v, raw.data() + at, 8);
  return v;
}

// The read_format values of PERF_SAMPLE_READ.
size_t read_values_size(uint64_t read_format, ByteReader r) {
  const size_t extra = 8 * (((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) +
                            ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0));
  const size_t per_value = 8 * (1 + ((read_format & PERF_FORMAT_ID) != 0) + ((read_format & PERF_FORMAT_LOST) != 0));
  if (!(read_format & PERF_FORMAT_GROUP)) return extra + per_value;
  const uint64_t nr = r.read<uint64_t>().value_or(UINT64_MAX);
  if (nr > r.remaining() / per_value) return SIZE_MAX;
  return 8 + extra + nr * per_value;
}

// The kernel and user parts of a callchain: the addresses after
// PERF_CONTEXT_KERNEL (resp. PERF_CONTEXT_USER) up to the next marker.
void split_callchain(Bytes chain, SampleView& s) {
  const size_t n = chain.size() / 8;
  uint64_t context = 0;
  size_t i = 0;
  while (i < n) {
    const uint64_t v = u64_at(chain, i * 8);
    if (v >= kContextMax) {
      context = v;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < n && u64_at(chain, end * 8) < kContextMax) ++end;
    const Bytes part = chain.subspan(i * 8, (end - i) * 8);
    if (context == PERF_CONTEXT_KERNEL && s.kernel_chain.empty()) s.kernel_chain = part;
    if (context == PERF_CONTEXT_USER && s.user_chain.empty()) s.user_chain = part;
    i = end;
  }
}

// PERF_SAMPLE_REGS_USER: {u64 abi; u64 regs[popcount(mask)]}, placed in
// swprof's register order. Registers the file lacks leave only ip and sp.
bool read_user_regs(ByteReader& r, uint64_t mask, SampleView& s) {
  if (!r.read_into(s.abi)) return false;
  if (s.abi == PERF_SAMPLE_REGS_ABI_NONE) return true;
  for (uint64_t bits = mask; bits; bits &= bits - 1) {
    const unsigned bit = static_cast<unsigned>(std::countr_zero(bits));
    auto v = r.read<uint64_t>();
    if (!v) return false;
    if (bit < 64 && ((kSampleRegsMask >> bit) & 1))
      s.regs[static_cast<size_t>(std::popcount(kSampleRegsMask & ((1ull << bit) - 1)))] = *v;
  }
  s.nregs = static_cast<uint32_t>(std::popcount(kSampleRegsMask));
  s.ip_sp_only = (mask & kSampleRegsMask) != kSampleRegsMask;
  return true;
}

// Kernel and module mappings are no process's: the reader keeps what they
// tell of the recorded kernel.
PerfParsed kernel_mapping(MappingRecord m) { return {std::nullopt, "kernel and module mappings", std::move(m)}; }

}  // namespace

PerfRecordParser::PerfRecordParser(const std::vector<PerfEventAttr>& attrs, size_t reported, bool x86_64)
    : attrs_(attrs), reported_(reported), x86_64_(x86_64) {
  for (size_t i = 0; i < attrs.size(); ++i)
    for (uint64_t id : attrs[i].ids) by_id_.emplace(id, i);
}

const PerfEventAttr* PerfRecordParser::attr_of_sample(Bytes raw) const {
  if (attrs_.size() == 1) return &attrs_[0];
  const uint64_t st = attrs_.empty() ? 0 : attrs_[0].sample_type;
  size_t at = sizeof(perf_event_header);
  if (!(st & PERF_SAMPLE_IDENTIFIER)) {
    if (!(st & PERF_SAMPLE_ID)) return attrs_.empty() ? nullptr : &attrs_[0];
    for (uint64_t bit : {PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR})
      at += (st & bit) ? 8 : 0;
  }
  if (at + 8 > raw.size()) return nullptr;
  auto it = by_id_.find(u64_at(raw, at));
  return it == by_id_.end() ? nullptr : &attrs_[it->second];
}

const PerfEventAttr& PerfRecordParser::attr_of_trailer(Bytes raw) const {
  if (attrs_.size() > 1 && (attrs_[0].sample_type & PERF_SAMPLE_IDENTIFIER) && raw.size() >= 16) {
    auto it = by_id_.find(u64_at(raw, raw.size() - 8));
    if (it != by_id_.end()) return attrs_[it->second];
  }
  return attrs_[0];
}

std::optional<ByteReader> PerfRecordParser::body(Bytes raw, Trailer& t) const {
  const PerfEventAttr& a = attr_of_trailer(raw);
  const size_t n = a.sample_id_all ? trailer_size(a.sample_type) : 0;
  if (raw.size() < sizeof(perf_event_header) + n) return std::nullopt;
  ByteReader r(raw.subspan(raw.size() - n));
  const uint64_t st = a.sample_type;
  if (n) {
    if (st & PERF_SAMPLE_TID) r.read_into(t.pid), r.read_into(t.tid);
    if (st & PERF_SAMPLE_TIME) r.read_into(t.time);
    if (st & PERF_SAMPLE_ID) r.skip(8);
    if (st & PERF_SAMPLE_STREAM_ID) r.skip(8);
    if (st & PERF_SAMPLE_CPU) r.read_into(t.cpu);
  }
  return ByteReader(raw.subspan(sizeof(perf_event_header), raw.size() - sizeof(perf_event_header) - n));
}

PerfParsed PerfRecordParser::parse(Bytes raw) {
  ByteReader r(raw);
  const auto header = r.read<perf_event_header>();
  if (!header || attrs_.empty()) return {std::nullopt, "damaged records"};
  switch (header->type) {
    case PERF_RECORD_SAMPLE: return sample(raw, header->misc);
    case PERF_RECORD_MMAP: return mmap(raw, header->misc);
    case PERF_RECORD_MMAP2: return mmap2(raw, header->misc);
    case PERF_RECORD_COMM: return comm(raw, header->misc);
    case PERF_RECORD_FORK: return task(raw, false);
    case PERF_RECORD_EXIT: return task(raw, true);
    case PERF_RECORD_LOST: return lost(raw, true);
    case PERF_RECORD_LOST_SAMPLES: return lost(raw, false);
    case PERF_RECORD_THROTTLE: return throttle(raw, true);
    case PERF_RECORD_UNTHROTTLE: return throttle(raw, false);
    case kPerfRecordFinishedRound: return {};
    default:
      // perf's own records (attrs, id index, thread and cpu maps, time
      // conversion, stat, finished init: 64 and up) tell a report nothing.
      return {std::nullopt, header->type >= 64 && header->type < 100 ? std::string() : skipped_record_name(header->type)};
  }
}

// The fields of a sample up to PERF_SAMPLE_STACK_USER, in perf_event.h's
// order (those swprof does not use are skipped by their size); false when
// the record is damaged (or, for a record's first bytes, cut before).
bool PerfRecordParser::sample_head(ByteReader& r, const PerfEventAttr& a, SampleView& s) const {
  const uint64_t st = a.sample_type;
  if ((st & PERF_SAMPLE_IDENTIFIER) && !r.skip(8)) return false;
  if ((st & PERF_SAMPLE_IP) && !r.read_into(s.ip)) return false;
  if ((st & PERF_SAMPLE_TID) && !(r.read_into(s.pid) && r.read_into(s.tid))) return false;
  if ((st & PERF_SAMPLE_TIME) && !r.read_into(s.time)) return false;
  if ((st & PERF_SAMPLE_ADDR) && !r.skip(8)) return false;
  if ((st & PERF_SAMPLE_ID) && !r.skip(8)) return false;
  if ((st & PERF_SAMPLE_STREAM_ID) && !r.skip(8)) return false;
  if ((st & PERF_SAMPLE_CPU) && !(r.read_into(s.cpu) && r.skip(4))) return false;
  if ((st & PERF_SAMPLE_PERIOD) && !r.read_into(s.period)) return false;
  if ((st & PERF_SAMPLE_READ) && !r.skip(read_values_size(a.read_format, r))) return false;
  if (st & PERF_SAMPLE_CALLCHAIN) {
    auto nr = r.read<uint64_t>();
    if (!nr || *nr > r.remaining() / 8) return false;
    split_callchain(*r.bytes(*nr * 8), s);
  }
  if (st & PERF_SAMPLE_RAW) {
    auto size = r.read<uint32_t>();
    if (!size || !r.skip(*size)) return false;
  }
  if (st & PERF_SAMPLE_BRANCH_STACK) {
    // {u64 nr; u64 hw_idx (when asked); perf_branch_entry lbr[nr]} (24 bytes each)
    auto nr = r.read<uint64_t>();
    if (!nr || ((a.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !r.skip(8)) ||
        *nr > r.remaining() / 24 || !r.skip(*nr * 24))
      return false;
  }
  return !(st & PERF_SAMPLE_REGS_USER) || read_user_regs(r, a.sample_regs_user, s);
}

// PERF_RECORD_SAMPLE.
PerfParsed PerfRecordParser::sample(Bytes raw, uint16_t misc) {
  const PerfEventAttr* a = attr_of_sample(raw);
  if (!a) return {std::nullopt, "samples of unknown events"};
  if (a != &attrs_[reported_]) return {std::nullopt, "samples of event '" + a->name + "'"};
  if (!x86_64_) return {std::nullopt, "samples of another architecture"};
  ByteReader r(raw.subspan(sizeof(perf_event_header)));
  SampleView s;
  const uint16_t cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
  s.in_kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
  s.period = a->freq ? 0 : a->sample_period;
  const PerfParsed damaged{std::nullopt, kDamagedSamples};
  if (!sample_head(r, *a, s)) return damaged;
  if (s.abi == PERF_SAMPLE_REGS_ABI_32) return {std::nullopt, "samples of 32-bit processes"};
  if (a->sample_type & PERF_SAMPLE_STACK_USER) {
    // {u64 size; char data[size]; u64 dyn_size} -- dyn_size only when size is not 0.
    auto size = r.read<uint64_t>();
    if (!size) return damaged;
    if (*size) {
      auto data = r.bytes(*size);
      auto dyn = r.read<uint64_t>();
      if (!data || !dyn || *dyn > *size) return damaged;
      s.stack = data->first(*dyn);
      s.stack_truncated = *dyn == *size;
    }
  }
  // A stack to unwind wins over the chain (perf's dwarf mode copies both).
  if (s.abi != PERF_SAMPLE_REGS_ABI_NONE && !s.stack.empty()) s.user_chain = {};
  // Without a call graph (`perf record` without -g), the sampled address
  // alone: a chain of one frame, the kernel's or the user code's.
  if (!(a->sample_type & PERF_SAMPLE_CALLCHAIN) && s.stack.empty() && (a->sample_type & PERF_SAMPLE_IP)) {
    const size_t ip_at = sizeof(perf_event_header) + ((a->sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0);
    (s.in_kernel ? s.kernel_chain : s.user_chain) = raw.subspan(ip_at, 8);
  }
  return {s, {}};
}

std::optional<size_t> PerfRecordParser::user_stack_offset(Bytes head) const {
  ByteReader r(head);
  const auto header = r.read<perf_event_header>();
  if (!header || header->type != PERF_RECORD_SAMPLE || attrs_.empty() || !x86_64_) return std::nullopt;
  const PerfEventAttr* a = attr_of_sample(head);
  if (a != &attrs_[reported_] || !(a->sample_type & PERF_SAMPLE_STACK_USER)) return std::nullopt;
  SampleView s;
  if (!sample_head(r, *a, s) || s.abi == PERF_SAMPLE_REGS_ABI_32 || r.remaining() < 8) return std::nullopt;
  return r.offset();
}

// PERF_RECORD_MMAP: pid, tid, addr, len, pgoff, filename. No protection
// bits: code unless misc says data (skipped, as MMAP2's without PROT_EXEC).
PerfParsed PerfRecordParser::mmap(Bytes raw, uint16_t misc) {
  Trailer t;
  auto r = body(raw, t);
  MappingRecord m;
  if (!r || !r->read_into(m.pid) || !r->read_into(m.tid) || !r->read_into(m.start) || !r->read_into(m.length) ||
      !r->read_into(m.file_offset))
    return {std::nullopt, "damaged records"};
  m.time = t.time;
  m.path = std::string(r->padded_string(r->remaining()).value_or(""));
  if (m.pid == kNoPid) return kernel_mapping(std::move(m));
  // perf asks for data mappings too (mmap_data); swprof's recordings keep code only.
  if (misc & PERF_RECORD_MISC_MMAP_DATA) return {std::nullopt, "data mappings"};
  m.prot = PROT_READ | PROT_EXEC;
  m.flags = MAP_PRIVATE;
  return {m, {}};
}

// PERF_RECORD_MMAP2: as MMAP, then device and inode (or, with
// PERF_RECORD_MISC_MMAP_BUILD_ID, the build-id), prot, flags, filename.
PerfParsed PerfRecordParser::mmap2(Bytes raw, uint16_t misc) {
  Trailer t;
  auto r = body(raw, t);
  MappingRecord m;
  const PerfParsed damaged{std::nullopt, "damaged records"};
  if (!r || !r->read_into(m.pid) || !r->read_into(m.tid) || !r->read_into(m.start) || !r->read_into(m.length) ||
      !r->read_into(m.file_offset))
    return damaged;
  if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    auto size = r->read<uint8_t>();
    if (!size || !r->skip(3)) return damaged;
    auto id = r->bytes(20);
    if (!id) return damaged;
    m.build_id_size = std::min<uint8_t>(*size, kBuildIdMax);
    std::memcpy(m.build_id.data(), id->data(), m.build_id_size);
  } else {
    uint64_t ino_generation = 0;
    if (!r->read_into(m.dev_major) || !r->read_into(m.dev_minor) || !r->read_into(m.inode) ||
        !r->read_into(ino_generation))
      return damaged;
  }
  if (!r->read_into(m.prot) || !r->read_into(m.flags)) return damaged;
  if (m.pid != kNoPid && !(m.prot & PROT_EXEC)) return {std::nullopt, "data mappings"};
  m.time = t.time;
  m.path = std::string(r->padded_string(r->remaining()).value_or(""));
  if (m.pid == kNoPid) return kernel_mapping(std::move(m));
  return {m, {}};
}

PerfParsed PerfRecordParser::comm(Bytes raw, uint16_t misc) {
  Trailer t;
  auto r = body(raw, t);
  CommRecord c;
  if (!r || !r->read_into(c.pid) || !r->read_into(c.tid)) return {std::nullopt, "damaged records"};
  c.time = t.time;
  c.exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  c.comm = std::string(r->padded_string(r->remaining()).value_or(""));
  return {c, {}};
}

PerfParsed PerfRecordParser::task(Bytes raw, bool exit) {
  Trailer t;
  auto r = body(raw, t);
  TaskRecord task;
  task.exit = exit;
  if (!r || !r->read_into(task.pid) || !r->read_into(task.ppid) || !r->read_into(task.tid) ||
      !r->read_into(task.ptid) || !r->read_into(task.time))
    return {std::nullopt, "damaged records"};
  return {task, {}};
}

PerfParsed PerfRecordParser::lost(Bytes raw, bool has_id) {
  Trailer t;
  auto r = body(raw, t);
  LostRecord l;
  if (!r || (has_id && !r->skip(8)) || !r->read_into(l.count)) return {std::nullopt, "damaged records"};
  l.time = t.time;
  l.cpu = t.cpu;
  return {l, {}};
}

PerfParsed PerfRecordParser::throttle(Bytes raw, bool throttled) {
  Trailer t;
  auto r = body(raw, t);
  ThrottleRecord th;
  th.throttled = throttled;
  th.cpu = t.cpu;
  if (!r || !r->read_into(th.time)) return {std::nullopt, "damaged records"};
  return {th, {}};
}

}  // namespace swprof
