#pragma once
// Builds perf.data file images byte by byte (the layout of
// tools/perf/Documentation/perf.data-file-format.txt), for the reader's unit
// tests and the fuzz seeds: events (perf_event_attr + ids), records of the
// data section, and the feature sections swprof reads.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof::testing {

using ByteVector = std::vector<uint8_t>;

struct PerfImageEvent {
  uint32_t type = 1;  // PERF_TYPE_SOFTWARE
  uint64_t config = 0;  // cpu-clock
  uint64_t sample_type = 0;
  uint64_t period = 999;
  bool freq = true;
  uint64_t regs_mask = 0;
  uint32_t stack_size = 0;
  std::vector<uint64_t> ids;
};

// A sample in PerfDataImage::sample's layout (the fields of the first
// event's sample_type, in perf_event.h order).
struct PerfImageSample {
  uint16_t misc = 2;  // PERF_RECORD_MISC_USER
  uint64_t id = 0;    // with PERF_SAMPLE_IDENTIFIER
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  std::vector<uint64_t> callchain;  // with the PERF_CONTEXT_* markers
  uint64_t abi = 2;                 // PERF_SAMPLE_REGS_ABI_64
  std::vector<uint64_t> regs;       // one per bit of the event's regs_mask
  ByteVector stack;                 // the copy (its size is the event's stack_size)
  uint64_t dyn_size = 0;
  uint64_t weight = 0;              // with PERF_SAMPLE_WEIGHT (after the stack copy)
};

class PerfDataImage {
 public:
  void add_event(PerfImageEvent e) { events_.push_back(std::move(e)); }
  void add_record(ByteVector r) { data_.insert(data_.end(), r.begin(), r.end()); }
  void set_hostname(std::string s) { hostname_ = std::move(s); }
  void set_os_release(std::string s) { os_release_ = std::move(s); }
  void set_cmdline(std::vector<std::string> c) { cmdline_ = std::move(c); }
  void set_event_names(std::vector<std::string> n) { event_names_ = std::move(n); }
  void add_build_id(const std::string& path, ByteVector id) { build_ids_.emplace_back(path, std::move(id)); }
  const std::vector<PerfImageEvent>& events() const { return events_; }

  // The whole file: header, attrs, ids, data, feature table and sections.
  ByteVector build() const;

  static ByteVector record(uint32_t type, uint16_t misc, const ByteVector& body);
  // Records whose sample_id trailer follows the first event (TID and TIME
  // when its sample_type has them, as perf's sample_id_all).
  ByteVector mmap2(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& path,
                   uint64_t time) const;
  // The same, naming the file's device and inode (8:1 and 1234 above).
  struct FileId {
    uint32_t dev_major = 8, dev_minor = 1;
    uint64_t inode = 1234;
  };
  ByteVector mmap2(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& path, uint64_t time,
                   const FileId& file) const;
  ByteVector mmap(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& path,
                  uint64_t time) const;
  ByteVector comm(uint32_t pid, uint32_t tid, const std::string& name, uint64_t time) const;
  ByteVector fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint64_t time) const;
  ByteVector sample(const PerfImageSample& s) const;
  // `records` (whole records, concatenated) as one zstd stream cut into
  // `pieces` PERF_RECORD_COMPRESSED records.
  static ByteVector compressed(const ByteVector& records, size_t pieces);

 private:
  ByteVector trailer(uint32_t pid, uint32_t tid, uint64_t time) const;

  std::vector<PerfImageEvent> events_;
  ByteVector data_;
  std::string hostname_, os_release_;
  std::vector<std::string> cmdline_, event_names_;
  std::vector<std::pair<std::string, ByteVector>> build_ids_;
};

}  // namespace swprof::testing

namespace swprof::testing {

// A whole file (`perf record -g`) of thread 42 "app": `damaged` samples
// whose call chain claims more addresses than the sample holds, then `good`
// whole ones.
ByteVector perf_data_with_damaged_samples(size_t damaged, size_t good);

// A few small whole files (named): a --call-graph dwarf recording, a -g one
// and a compressed one; the fuzz target's seeds.
std::vector<std::pair<std::string, ByteVector>> seed_perf_data_images();

}  // namespace swprof::testing
