#include "support/perf_data_image.h"

#include <linux/perf_event.h>
#include <zstd.h>

#include <bit>
#include <cstring>
#include <stdexcept>

namespace swprof::testing {
namespace {

template <typename T>
void put(ByteVector& out, const T& v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

// A NUL-terminated string padded to 8 bytes (record file names, comm).
void put_padded(ByteVector& out, const std::string& s, size_t align = 8) {
  const size_t len = (s.size() + 1 + align - 1) / align * align;
  const size_t at = out.size();
  out.resize(at + len, 0);
  std::memcpy(out.data() + at, s.data(), s.size());
}

// perf_header_string: u32 len (padded), the string.
void put_header_string(ByteVector& out, const std::string& s) {
  const uint32_t len = static_cast<uint32_t>((s.size() + 1 + 63) / 64 * 64);
  put(out, len);
  put_padded(out, s, 64);
}

constexpr unsigned kFeatBuildId = 2, kFeatHostname = 3, kFeatOsRelease = 4, kFeatArch = 6, kFeatCmdline = 11,
                   kFeatEventDesc = 12;

}  // namespace

ByteVector PerfDataImage::record(uint32_t type, uint16_t misc, const ByteVector& body) {
  ByteVector out;
  put(out, type);
  put(out, misc);
  put(out, static_cast<uint16_t>(8 + body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

ByteVector PerfDataImage::trailer(uint32_t pid, uint32_t tid, uint64_t time) const {
  ByteVector out;
  const uint64_t st = events_.at(0).sample_type;
  if (st & PERF_SAMPLE_TID) put(out, pid), put(out, tid);
  if (st & PERF_SAMPLE_TIME) put(out, time);
  if (st & PERF_SAMPLE_IDENTIFIER) put(out, events_.at(0).ids.empty() ? uint64_t{0} : events_[0].ids[0]);
  return out;
}

ByteVector PerfDataImage::mmap2(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& path,
                                uint64_t time) const {
  return mmap2(pid, start, len, pgoff, path, time, FileId{});
}

ByteVector PerfDataImage::mmap2(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& path,
                                uint64_t time, const FileId& file) const {
  ByteVector body;
  put(body, pid), put(body, pid), put(body, start), put(body, len), put(body, pgoff);
  put(body, file.dev_major), put(body, file.dev_minor), put(body, file.inode), put(body, uint64_t{0});  // generation
  put(body, uint32_t{5}), put(body, uint32_t{2});  // PROT_READ|PROT_EXEC, MAP_PRIVATE
  put_padded(body, path);
  const ByteVector t = trailer(pid, pid, time);
  body.insert(body.end(), t.begin(), t.end());
  return record(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body);
}

ByteVector PerfDataImage::mmap(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& path,
                               uint64_t time) const {
  ByteVector body;
  put(body, pid), put(body, pid), put(body, start), put(body, len), put(body, pgoff);
  put_padded(body, path);
  const ByteVector t = trailer(pid, pid, time);
  body.insert(body.end(), t.begin(), t.end());
  return record(PERF_RECORD_MMAP, pid == 0xffffffffu ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, body);
}

ByteVector PerfDataImage::comm(uint32_t pid, uint32_t tid, const std::string& name, uint64_t time) const {
  ByteVector body;
  put(body, pid), put(body, tid);
  put_padded(body, name);
  const ByteVector t = trailer(pid, tid, time);
  body.insert(body.end(), t.begin(), t.end());
  return record(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, body);
}

ByteVector PerfDataImage::fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint64_t time) const {
  ByteVector body;
  put(body, pid), put(body, ppid), put(body, tid), put(body, ppid), put(body, time);
  const ByteVector t = trailer(pid, tid, time);
  body.insert(body.end(), t.begin(), t.end());
  return record(PERF_RECORD_FORK, 0, body);
}

ByteVector PerfDataImage::sample(const PerfImageSample& s) const {
  const PerfImageEvent& e = events_.at(0);
  const uint64_t st = e.sample_type;
  ByteVector body;
  if (st & PERF_SAMPLE_IDENTIFIER) put(body, s.id);
  if (st & PERF_SAMPLE_IP) put(body, s.ip);
  if (st & PERF_SAMPLE_TID) put(body, s.pid), put(body, s.tid);
  if (st & PERF_SAMPLE_TIME) put(body, s.time);
  if (st & PERF_SAMPLE_ID) put(body, s.id);
  if (st & PERF_SAMPLE_CPU) put(body, s.cpu), put(body, uint32_t{0});
  if (st & PERF_SAMPLE_PERIOD) put(body, s.period);
  if (st & PERF_SAMPLE_CALLCHAIN) {
    put(body, static_cast<uint64_t>(s.callchain.size()));
    for (uint64_t v : s.callchain) put(body, v);
  }
  if (st & PERF_SAMPLE_REGS_USER) {
    put(body, s.abi);
    if (s.abi) {
      if (s.regs.size() != static_cast<size_t>(std::popcount(e.regs_mask)))
        throw std::logic_error("one register value per bit of regs_mask");
      for (uint64_t v : s.regs) put(body, v);
    }
  }
  if (st & PERF_SAMPLE_STACK_USER) {
    ByteVector copy = s.stack;
    copy.resize(e.stack_size, 0);
    put(body, static_cast<uint64_t>(copy.size()));
    body.insert(body.end(), copy.begin(), copy.end());
    if (!copy.empty()) put(body, s.dyn_size);
  }
  if (st & PERF_SAMPLE_WEIGHT) put(body, s.weight);
  return record(PERF_RECORD_SAMPLE, s.misc, body);
}

ByteVector PerfDataImage::compressed(const ByteVector& records, size_t pieces) {
  ByteVector z(ZSTD_compressBound(records.size()));
  const size_t n = ZSTD_compress(z.data(), z.size(), records.data(), records.size(), 3);
  if (ZSTD_isError(n)) throw std::runtime_error("zstd");
  z.resize(n);
  ByteVector out;
  const size_t step = (n + pieces - 1) / pieces;
  for (size_t at = 0; at < n; at += step) {
    const ByteVector part(z.begin() + static_cast<long>(at), z.begin() + static_cast<long>(std::min(n, at + step)));
    const ByteVector r = record(81, 0, part);  // PERF_RECORD_COMPRESSED
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

ByteVector PerfDataImage::build() const {
  constexpr size_t kHeader = 104;
  const size_t attr_size = sizeof(perf_event_attr) + 16;
  ByteVector out(kHeader, 0);
  // The ids of every event, then the attrs section.
  std::vector<std::pair<uint64_t, uint64_t>> id_sections;
  for (const PerfImageEvent& e : events_) {
    id_sections.emplace_back(out.size(), e.ids.size() * 8);
    for (uint64_t id : e.ids) put(out, id);
  }
  const uint64_t attrs_at = out.size();
  for (size_t i = 0; i < events_.size(); ++i) {
    const PerfImageEvent& e = events_[i];
    perf_event_attr a{};
    a.type = e.type;
    a.size = sizeof a;
    a.config = e.config;
    a.sample_period = e.period;
    a.sample_type = e.sample_type;
    a.freq = e.freq;
    a.sample_id_all = 1;
    a.sample_regs_user = e.regs_mask;
    a.sample_stack_user = e.stack_size;
    put(out, a);
    put(out, id_sections[i].first), put(out, id_sections[i].second);
  }
  const uint64_t data_at = out.size();
  out.insert(out.end(), data_.begin(), data_.end());
  // Feature sections: the table right after the data, the sections after it.
  std::vector<std::pair<unsigned, ByteVector>> features;
  if (!build_ids_.empty()) {
    ByteVector b;
    for (const auto& [path, id] : build_ids_) {
      ByteVector e;
      put(e, int32_t{-1});
      ByteVector raw(24, 0);
      std::memcpy(raw.data(), id.data(), std::min<size_t>(id.size(), 20));
      raw[20] = static_cast<uint8_t>(id.size());
      e.insert(e.end(), raw.begin(), raw.end());
      put_padded(e, path, 64);
      const ByteVector r = record(PERF_RECORD_MMAP /* any */, 1u << 15 /* BUILD_ID_SIZE */, e);
      b.insert(b.end(), r.begin(), r.end());
    }
    features.emplace_back(kFeatBuildId, b);
  }
  auto string_feature = [&](unsigned bit, const std::string& s) {
    if (s.empty()) return;
    ByteVector b;
    put_header_string(b, s);
    features.emplace_back(bit, b);
  };
  string_feature(kFeatHostname, hostname_);
  string_feature(kFeatOsRelease, os_release_);
  string_feature(kFeatArch, "x86_64");
  if (!cmdline_.empty()) {
    ByteVector b;
    put(b, static_cast<uint32_t>(cmdline_.size()));
    for (const auto& s : cmdline_) put_header_string(b, s);
    features.emplace_back(kFeatCmdline, b);
  }
  if (!event_names_.empty()) {
    ByteVector b;
    put(b, static_cast<uint32_t>(event_names_.size()));
    put(b, static_cast<uint32_t>(sizeof(perf_event_attr)));
    for (size_t i = 0; i < event_names_.size(); ++i) {
      perf_event_attr a{};
      put(b, a);
      put(b, uint32_t{0});
      put_header_string(b, event_names_[i]);
    }
    features.emplace_back(kFeatEventDesc, b);
  }
  const uint64_t table_at = out.size();
  out.resize(out.size() + features.size() * 16, 0);
  uint64_t bits[4] = {};
  for (size_t i = 0; i < features.size(); ++i) {
    const uint64_t at = out.size(), size = features[i].second.size();
    out.insert(out.end(), features[i].second.begin(), features[i].second.end());
    std::memcpy(out.data() + table_at + i * 16, &at, 8);
    std::memcpy(out.data() + table_at + i * 16 + 8, &size, 8);
    bits[features[i].first / 64] |= 1ull << (features[i].first % 64);
  }
  // The header.
  ByteVector h;
  h.insert(h.end(), {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'});
  put(h, uint64_t{kHeader}), put(h, static_cast<uint64_t>(attr_size));
  put(h, attrs_at), put(h, static_cast<uint64_t>(events_.size() * attr_size));
  put(h, data_at), put(h, static_cast<uint64_t>(data_.size()));
  put(h, uint64_t{0}), put(h, uint64_t{0});
  for (uint64_t b : bits) put(h, b);
  std::memcpy(out.data(), h.data(), kHeader);
  return out;
}

}  // namespace swprof::testing

namespace swprof::testing {

ByteVector perf_data_with_damaged_samples(size_t damaged, size_t good) {
  PerfDataImage img;
  PerfImageEvent e;
  e.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  e.ids = {1};
  img.add_event(e);
  img.add_record(img.comm(42, 42, "app", 1));
  PerfImageSample s;
  s.pid = s.tid = 42;
  s.ip = 0x401000;
  s.time = 2;
  s.period = 1000;
  s.callchain = {static_cast<uint64_t>(PERF_CONTEXT_USER), 0x401000};
  ByteVector cut = img.sample(s);
  const uint64_t claimed = 1000;  // the chain's count, after the header, ip, pid/tid, time and period
  std::memcpy(cut.data() + 8 + 8 + 8 + 8 + 8, &claimed, 8);
  for (size_t i = 0; i < damaged; ++i) img.add_record(cut);
  for (size_t i = 0; i < good; ++i) img.add_record(img.sample(s));
  return img.build();
}

std::vector<std::pair<std::string, ByteVector>> seed_perf_data_images() {
  constexpr uint64_t kBase = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  PerfImageSample s;
  s.pid = s.tid = 42;
  s.ip = 0x401000;
  s.time = 10;
  s.period = 1000000;
  std::vector<std::pair<std::string, ByteVector>> out;

  PerfDataImage dwarf;
  PerfImageEvent e;
  e.sample_type = kBase | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  e.regs_mask = 0xff0fff;
  e.stack_size = 64;
  e.ids = {1};
  dwarf.add_event(e);
  dwarf.set_hostname("host");
  dwarf.set_cmdline({"perf", "record", "--call-graph", "dwarf"});
  dwarf.add_build_id("/bin/app", ByteVector(20, 0x5a));
  dwarf.add_record(dwarf.comm(42, 42, "app", 1));
  dwarf.add_record(dwarf.mmap2(42, 0x400000, 0x2000, 0, "/bin/app", 2));
  s.callchain = {static_cast<uint64_t>(PERF_CONTEXT_KERNEL), 0xffffffff81000010ull};
  s.regs.assign(20, 0);
  s.regs[7] = 0x7ffd0000;
  s.regs[8] = s.ip;
  s.stack = ByteVector(48, 0x11);
  s.dyn_size = 48;
  const ByteVector sample = dwarf.sample(s);
  dwarf.add_record(sample);
  out.emplace_back("dwarf.data", dwarf.build());

  PerfDataImage compressed = dwarf;
  ByteVector records;
  for (int i = 0; i < 4; ++i) records.insert(records.end(), sample.begin(), sample.end());
  compressed.add_record(PerfDataImage::compressed(records, 2));
  out.emplace_back("compressed.data", compressed.build());

  PerfDataImage fp;
  e.sample_type = kBase;
  fp.add_event(e);
  fp.add_record(fp.mmap(42, 0x400000, 0x2000, 0, "/bin/app", 2));
  PerfImageSample g = s;
  g.regs.clear();
  g.stack.clear();
  g.callchain = {static_cast<uint64_t>(PERF_CONTEXT_USER), 0x401000, 0x401100, 0x401200};
  fp.add_record(fp.fork(43, 42, 43, 3));
  fp.add_record(fp.sample(g));
  out.emplace_back("callchain.data", fp.build());
  return out;
}

}  // namespace swprof::testing
