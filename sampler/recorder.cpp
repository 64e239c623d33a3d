#include "sampler/recorder.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sampler/proc.h"

namespace swprof {

void Recorder::open(const std::string& path, const RecordingHeader& header) {
  writer_.emplace(path, header);
  started_ = Clock::now();
  auto vdso = read_own_vdso();
  if (!vdso.empty()) {
    writer_->write(ImageRecord{"[vdso]", Bytes(vdso.data(), vdso.size())});
    build_ids_["[vdso]"] = read_build_id(Bytes(vdso.data(), vdso.size())).value_or(BuildId{});
  }
}

void Recorder::handle(Bytes raw) {
  ParsedPerfRecord parsed = parse_perf_record(raw, layout_);
  if (parsed.malformed) ++summary_.malformed;
  if (!parsed.record) return;
  std::visit([&](auto& rec) { count(rec); }, *parsed.record);
  writer_->write(*parsed.record);
}

void Recorder::write_synthesized(Record rec) {
  std::visit([&](auto& r) { count(r); }, rec);  // a mapping's build-id, a sample's totals
  writer_->write(rec);
}

void Recorder::tick() {
  writer_->flush_if_older_than(std::chrono::milliseconds(1000));
  if (progress_ && Clock::now() - last_progress_ >= std::chrono::milliseconds(250)) {
    last_progress_ = Clock::now();
    progress_(progress());
  }
}

SessionProgress Recorder::progress() const {
  SessionProgress p;
  p.seconds = elapsed_s();
  p.samples = summary_.samples;
  p.lost = summary_.lost;
  p.file_bytes = writer_->bytes_written();
  return p;
}

SessionSummary Recorder::finish(const std::string& end_reason, std::optional<int> wait_status) {
  if (progress_) {
    SessionProgress last = progress();
    last.done = true;
    progress_(last);
  }
  summary_.end_reason = end_reason;
  summary_.duration_s = elapsed_s();
  summary_.threads = tids_.size();
  if (wait_status) {
    summary_.wait_status = *wait_status;
    summary_.has_wait_status = true;
  }
  write_end_record(end_reason, wait_status);
  summary_.output = writer_->path();
  summary_.file_bytes = writer_->bytes_written();
  return summary_;
}

void Recorder::write_end_record(const std::string& end_reason, std::optional<int> wait_status) {
  nlohmann::json end = {{"end_reason", end_reason},
                        {"duration_ns", static_cast<uint64_t>(summary_.duration_s * 1e9)},
                        {"samples", summary_.samples},
                        {"kernel_mode_samples", summary_.kernel_mode_samples},
                        {"lost", summary_.lost},
                        {"truncated", summary_.truncated},
                        {"throttles", summary_.throttles},
                        {"malformed", summary_.malformed},
                        {"threads", summary_.threads}};
  if (wait_status) end["exit_code"] = exit_code_from_wait_status(*wait_status);
  writer_->finish(EndRecord{end.dump()});
}

void Recorder::count(SampleView& s) {
  ++summary_.samples;
  summary_.kernel_mode_samples += s.in_kernel;
  summary_.truncated += s.stack_truncated;
  tids_.insert(s.tid);
}

// The kernel leaves the build-id out when the file's first page was not in
// memory (or on kernels before 5.12); read it from the file, once per path.
void Recorder::fill_build_id(MappingRecord& m) {
  if (m.build_id_size > 0 || m.path.empty()) return;
  auto it = build_ids_.find(m.path);
  if (it == build_ids_.end()) {
    if (m.path[0] != '/') return;
    it = build_ids_.emplace(m.path, read_build_id(m.path).value_or(BuildId{})).first;
  }
  m.build_id_size = static_cast<uint8_t>(std::min(it->second.size(), kBuildIdMax));
  std::copy_n(it->second.begin(), m.build_id_size, m.build_id.begin());
}

}  // namespace swprof
