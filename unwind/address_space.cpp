#include "unwind/address_space.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "common/hex.h"

namespace swprof {

// A mapping record's file, opened when an address in one piece of the
// mapping is first looked up: one per piece (a mapping partly replaced by
// a later one keeps pieces on either side), shared by every copy of the
// maps holding that piece.
struct MappingBinary {
  std::shared_ptr<BinaryCache> binaries;
  std::vector<uint8_t> build_id;
  uint64_t record_start = 0;   // of the mapping record: the bias comes from them
  uint64_t record_offset = 0;
  uint64_t record_order = 0;   // the record's place among mapping records, for warnings
  std::once_flag once;
  Mapping resolved;            // the piece, with its binary

  // The same file, for another piece of the mapping.
  std::shared_ptr<MappingBinary> for_piece() const {
    auto out = std::make_shared<MappingBinary>();
    out->binaries = binaries;
    out->build_id = build_id;
    out->record_start = record_start;
    out->record_offset = record_offset;
    out->record_order = record_order;
    return out;
  }

  const Mapping& get(const Mapping& piece) {
    std::call_once(once, [&] {
      resolved = resolve_mapping(*binaries, record_start, piece.end, record_offset, piece.path, piece.executable,
                                 build_id, record_order);
      resolved.start = piece.start;
      resolved.file_offset = piece.file_offset;
    });
    return resolved;
  }
};

const Mapping* ProcessMaps::find(uint64_t addr) const {
  auto it = std::upper_bound(maps_.begin(), maps_.end(), addr, [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == maps_.begin()) return nullptr;
  --it;
  if (addr >= it->end) return nullptr;
  return it->pending ? &it->pending->get(*it) : &*it;
}

uint64_t ProcessMaps::next_id() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

ProcessMaps ProcessMaps::after_exec(const ProcessMaps& replaced) {
  auto old = std::make_shared<ProcessMaps>();
  old->maps_ = replaced.maps_;  // and not its before_exec_: one exec back is enough
  ProcessMaps out;
  out.before_exec_ = std::move(old);
  return out;
}

void ProcessMaps::add(Mapping m) {
  if (m.end <= m.start) return;
  id_ = next_id();
  std::vector<Mapping> out;
  out.reserve(maps_.size() + 2);
  for (auto& old : maps_) {
    if (old.end <= m.start || old.start >= m.end) {
      out.push_back(std::move(old));
      continue;
    }
    // Keep the parts of an overlapped mapping that stick out on either side.
    if (old.start < m.start) {
      Mapping left = old;
      left.end = m.start;
      if (left.pending) left.pending = left.pending->for_piece();
      out.push_back(std::move(left));
    }
    if (old.end > m.end) {
      Mapping right = old;
      right.file_offset += m.end - old.start;
      right.start = m.end;
      if (right.pending) right.pending = right.pending->for_piece();
      out.push_back(std::move(right));
    }
  }
  out.push_back(std::move(m));
  std::sort(out.begin(), out.end(), [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  maps_ = std::move(out);
}

Mapping resolve_mapping(BinaryCache& binaries, uint64_t start, uint64_t end, uint64_t file_offset,
                        const std::string& path, bool executable, const std::vector<uint8_t>& build_id,
                        uint64_t warning_order) {
  Mapping m;
  m.start = start;
  m.end = end;
  m.file_offset = file_offset;
  m.path = path;
  m.executable = executable;
  auto found = binaries.get(path, build_id, warning_order);
  m.build_id_mismatch = found.build_id_mismatch;
  if (found.binary) {
    // Images (the vDSO) are mapped from their first byte; files by their offset.
    if (auto bias = found.binary->load_bias(m.start, m.file_offset)) {
      m.bias = *bias;
      m.binary = found.binary;
    }
  }
  return m;
}

void AddressSpaces::apply(const Record& record) {
  if (auto* m = std::get_if<MappingRecord>(&record)) on_mapping(*m);
  else if (auto* t = std::get_if<TaskRecord>(&record)) on_fork(*t);
  else if (auto* c = std::get_if<CommRecord>(&record)) on_exec(*c);
  else if (auto* img = std::get_if<ImageRecord>(&record))
    binaries_->add_image(img->name, std::vector<uint8_t>(img->bytes.begin(), img->bytes.end()));
}

// A mapping whose file is opened when ProcessMaps::find first reaches it.
Mapping AddressSpaces::unopened_mapping(const MappingRecord& r) {
  Mapping m;
  m.start = r.start;
  m.end = r.start + r.length;
  m.file_offset = r.file_offset;
  m.path = r.path;
  m.executable = (r.prot & 0x4) != 0;
  m.pending = std::make_shared<MappingBinary>();
  m.pending->binaries = binaries_;
  m.pending->build_id.assign(r.build_id.begin(), r.build_id.begin() + r.build_id_size);
  m.pending->record_start = m.start;
  m.pending->record_offset = m.file_offset;
  m.pending->record_order = mappings_seen_++;
  return m;
}

Mapping AddressSpaces::opened_mapping(const MappingRecord& r) {
  return resolve_mapping(*binaries_, r.start, r.start + r.length, r.file_offset, r.path, (r.prot & 0x4) != 0,
                         std::vector<uint8_t>(r.build_id.begin(), r.build_id.begin() + r.build_id_size),
                         mappings_seen_++);
}

void AddressSpaces::on_mapping(const MappingRecord& r) {
  Mapping m = open_on_first_use_ ? unopened_mapping(r) : opened_mapping(r);
  auto& slot = by_pid_[r.pid];
  auto next = slot ? std::make_shared<ProcessMaps>(*slot) : std::make_shared<ProcessMaps>();
  next->add(std::move(m));
  slot = std::move(next);
}

void AddressSpaces::on_fork(const TaskRecord& t) {
  if (t.exit || t.pid == t.ppid) return;  // a thread shares its process's maps
  auto parent = by_pid_.find(t.ppid);
  if (parent != by_pid_.end()) by_pid_[t.pid] = parent->second;
}

void AddressSpaces::on_exec(const CommRecord& c) {
  if (!c.exec) return;
  auto& slot = by_pid_[c.pid];
  slot = slot ? std::make_shared<ProcessMaps>(ProcessMaps::after_exec(*slot)) : std::make_shared<ProcessMaps>();
}

std::shared_ptr<const ProcessMaps> AddressSpaces::snapshot(uint32_t pid) const {
  auto it = by_pid_.find(pid);
  if (it != by_pid_.end()) return it->second;
  static const auto empty = std::make_shared<const ProcessMaps>();
  return empty;
}

}  // namespace swprof
