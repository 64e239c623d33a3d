#include "sampler/recorder.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/regular_file.h"
#include "recording/recording_format.h"
#include "sampler/proc.h"

namespace swprof {

void Recorder::open(const std::string& path, const RecordingHeader& header) {
  if (auto old = keep_previous_recording(path)) summary_.previous_recording = *old;
  writer_.emplace(path, header);
  kernel_samples_ = header.kernel_samples;
  started_ = Clock::now();
  auto vdso = read_own_vdso();
  if (!vdso.empty()) {
    writer_->write(ImageRecord{"[vdso]", Bytes(vdso.data(), vdso.size())});
    build_ids_["[vdso]"] = read_build_id(Bytes(vdso.data(), vdso.size())).value_or(BuildId{});
  }
}

void Recorder::record_off_cpu(uint64_t min_ns) {
  summary_.off_cpu = true;
  if (min_ns) thinner_.emplace(min_ns, static_cast<OffCpuThinner::Output&>(*this));
}

void Recorder::handle(Bytes raw, const PerfLayout& layout) {
  ParsedPerfRecord parsed = parse_perf_record(raw, layout);
  if (parsed.malformed) ++summary_.malformed;
  if (!parsed.record) return;
  unflushed_ = true;
  if (layout.off_cpu) {
    off_cpu_layout_ = layout;
    handle_off_cpu(raw, *parsed.record);
    return;
  }
  if (auto* s = std::get_if<SampleView>(&*parsed.record); s && extender_) extender_->extend(*s);
  std::visit([&](auto& rec) { count(rec); }, *parsed.record);
  writer_->write(*parsed.record);
}

// The off-CPU rings: samples go through the thinner, switch records feed it
// and are always written, losses are counted apart from the timer's.
void Recorder::handle_off_cpu(Bytes raw, Record& rec) {
  summary_.off_cpu = true;
  if (auto* s = std::get_if<SampleView>(&rec)) {
    if (thinner_) thinner_->add_sample(raw, *s);
    else write_off_cpu(*s);
    return;
  }
  if (auto* sw = std::get_if<SwitchRecord>(&rec)) {
    summary_.switch_outs += sw->out;
    writer_->write(rec);
    if (thinner_) thinner_->add_switch(*sw);
    return;
  }
  if (auto* lost = std::get_if<LostRecord>(&rec)) summary_.off_cpu_lost += lost->count;
  writer_->write(rec);
}

void Recorder::write_off_cpu(const SampleView& s) {
  ++summary_.off_cpu_samples;
  tids_.insert(s.tid);
  note_kernel_addresses(s);
  sampled_files_.on_sample(s.pid, user_pc(s));
  writer_->write(s);
}

void Recorder::off_cpu_sample(Bytes raw) {
  if (auto s = parse_perf_sample(raw, off_cpu_layout_)) write_off_cpu(*s);
}

void Recorder::off_cpu_repeat(const OffCpuRepeatRecord& repeat) {
  ++summary_.off_cpu_repeats;
  writer_->write(repeat);
}

void Recorder::release_off_cpu(uint64_t now_ns) {
  if (thinner_) thinner_->release_waits_longer_than_min(now_ns);
}

void Recorder::drained(uint64_t started_ns) {
  last_drain_ns_ = started_ns;
  if (thinner_ || !unflushed_ || started_ns <= kFlushSlackNs) return;
  writer_->write(FlushRecord{started_ns - kFlushSlackNs});
  unflushed_ = false;
}

bool Recorder::wants_prompt_drains() const {
  return extender_ && extender_->counts().tried && last_drain_ns_ - extender_->last_sample_ns() < kPromptDrainsNs;
}

void Recorder::write_synthesized(Record rec) {
  std::visit([&](auto& r) { count(r); }, rec);  // a mapping's build-id, a sample's totals
  writer_->write(rec);
}

void Recorder::tick() {
  writer_->flush_if_older_than(std::chrono::milliseconds(1000));
  if (Clock::now() - last_perf_map_copy_ >= std::chrono::milliseconds(100)) copy_perf_maps();
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
  if (thinner_) thinner_->flush();
  // What only the end knows goes into chunks of its own after the samples,
  // where a report finds it before reading them (recording/trailing_images.h).
  writer_->flush();
  copy_perf_maps(PerfMapRound::kToTheEnd);
  write_kernel_symbols();
  note_namespace_files();
  summary_.end_reason = end_reason;
  summary_.duration_s = elapsed_s();
  summary_.threads = tids_.size();
  summary_.sampled_files = sampled_files_.files();
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
                        {"end_monotonic_ns", stopped_ns_.value_or(monotonic_now_ns())},
                        {"samples", summary_.samples},
                        {"kernel_mode_samples", summary_.kernel_mode_samples},
                        {"lost", summary_.lost},
                        {"truncated", summary_.truncated},
                        {"throttles", summary_.throttles},
                        {"malformed", summary_.malformed},
                        {"threads", summary_.threads}};
  if (extender_) {
    const StackExtenderCounts& c = extender_->counts();
    end["stack_beyond"] = {{"max_bytes", summary_.stack_beyond}, {"tried", c.tried}, {"at_page", c.at_page}, {"kept", c.kept},
                           {"changed", c.changed}, {"unread", c.unread}, {"bytes", c.bytes}, {"ns", c.ns}};
  }
  if (summary_.off_cpu) {
    end["switch_outs"] = summary_.switch_outs;
    end["off_cpu_samples"] = summary_.off_cpu_samples;
    end["off_cpu_repeats"] = summary_.off_cpu_repeats;
    end["off_cpu_lost"] = summary_.off_cpu_lost;
  }
  for (const NamespaceFileNote& n : namespace_files_.notes())
    end["namespace_files"].push_back(
        {{"path", n.path}, {"found_at", n.found_at}, {"mount_ns", n.mount_ns}, {"embedded_bytes", n.bytes}});
  if (wait_status) end["exit_code"] = exit_code_from_wait_status(*wait_status);
  writer_->finish(EndRecord{end.dump()});
}

void Recorder::count(SampleView& s) {
  ++summary_.samples;
  summary_.kernel_mode_samples += s.in_kernel;
  summary_.truncated += s.stack_truncated;
  summary_.extended += s.stack_truncated && s.stack_beyond;
  summary_.extended_at_page += !s.stack_truncated && s.stack_beyond;
  tids_.insert(s.tid);
  note_kernel_addresses(s);
  sampled_files_.on_sample(s.pid, user_pc(s));
}

void Recorder::note_kernel_addresses(const SampleView& s) {
  if (!kernel_samples_) return;
  if (s.in_kernel) kernel_addresses_.add(s.ip);
  for (size_t i = 0; i < s.kernel_depth(); ++i) kernel_addresses_.add(s.kernel_ip(i));
}

// The kernel symbols the samples hit (sampler/kernel_symbol_subset.h), so
// that reports elsewhere name the kernel frames; nothing when kallsyms hides
// its addresses or cannot be read (reports then say so, as for old recordings).
void Recorder::write_kernel_symbols() {
  if (!kernel_samples_ || kernel_addresses_.size() == 0) return;
  auto text = read_regular_file(kallsyms_path_, kMaxKallsymsBytes);
  if (!text) return;
  const std::string subset = kallsyms_subset(*text.value, kernel_addresses_.addresses());
  if (subset.empty()) return;
  writer_->write(ImageRecord{kKallsymsImageName, Bytes(reinterpret_cast<const uint8_t*>(subset.data()), subset.size())});
  summary_.kernel_symbols_bytes = subset.size();
}

void Recorder::copy_perf_maps(PerfMapRound round) {
  last_perf_map_copy_ = Clock::now();
  namespace_files_.copy_perf_maps([this](const ImageRecord& image) { write_image(image); }, round);
}

void Recorder::note_namespace_files() {
  summary_.embedded_bytes = namespace_files_.embedded_bytes();
  for (const NamespaceFileNote& n : namespace_files_.notes()) summary_.embedded_files += n.bytes > 0;
  summary_.warnings = namespace_files_.warnings();
}

// The kernel leaves the build-id out when the file's first page was not in
// memory (or on kernels before 5.12); read it from the file, once per mount
// namespace and path. A file found only inside the process's mount
// namespace is embedded before its mapping record.
void Recorder::fill_build_id(MappingRecord& m) {
  if (!m.path.empty() && m.path[0] == '/') {
    namespace_files_.resolve(m, [this](const ImageRecord& image) { write_image(image); });
    return;
  }
  if (m.build_id_size > 0 || m.path.empty()) return;
  auto it = build_ids_.find(m.path);
  if (it == build_ids_.end()) return;
  m.build_id_size = static_cast<uint8_t>(std::min(it->second.size(), kBuildIdMax));
  std::copy_n(it->second.begin(), m.build_id_size, m.build_id.begin());
}

}  // namespace swprof
