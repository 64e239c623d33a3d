#include "sampler/sampled_files.h"

#include <sys/mman.h>

#include "sampler/perf_event.h"

namespace swprof {

void SampledFiles::on_mapping(const MappingRecord& m) {
  if (!(m.prot & PROT_EXEC) || m.path.empty() || m.path[0] != '/' || m.length == 0) return;
  Process& p = processes_[m.pid];
  p.ranges.push_back(Range{m.start, m.start + m.length, file_index(m)});
  if (p.ranges.size() == 1) p.program = p.ranges[0].file;
  p.last_hit = p.ranges.size();  // the new range may cover the last one hit: look again, newest first
}

size_t SampledFiles::file_index(const MappingRecord& m) {
  BuildId id(m.build_id.begin(), m.build_id.begin() + std::min<size_t>(m.build_id_size, kBuildIdMax));
  auto [it, added] = index_.try_emplace({m.path, id}, files_.size());
  if (added) {
    files_.push_back(SampledFile{m.path, std::move(id)});
    hit_.push_back(false);
  }
  return it->second;
}

void SampledFiles::on_sample(uint32_t pid, uint64_t pc) {
  if (pc == 0) return;
  auto it = processes_.find(pid);
  if (it == processes_.end()) return;
  Process& p = it->second;
  hit_[p.program] = true;
  const auto holds = [pc](const Range& r) { return pc >= r.start && pc < r.end; };
  if (p.last_hit < p.ranges.size() && holds(p.ranges[p.last_hit])) {
    hit_[p.ranges[p.last_hit].file] = true;
    return;
  }
  for (size_t i = p.ranges.size(); i-- > 0;)
    if (holds(p.ranges[i])) {
      p.last_hit = i;
      hit_[p.ranges[i].file] = true;
      return;
    }
}

void SampledFiles::on_fork(uint32_t parent, uint32_t child) {
  if (parent == child) return;
  auto it = processes_.find(parent);
  if (it == processes_.end()) return;
  Process copy = it->second;
  processes_[child] = std::move(copy);
}

std::vector<SampledFile> SampledFiles::files() const {
  std::vector<SampledFile> out;
  for (size_t i = 0; i < files_.size(); ++i)
    if (hit_[i]) out.push_back(files_[i]);
  return out;
}

uint64_t user_pc(const SampleView& s) {
  if (s.abi != 0 && s.nregs > static_cast<uint32_t>(kRegIp)) return s.regs[kRegIp];
  return s.in_kernel ? 0 : s.ip;
}

}  // namespace swprof
