#include "profile/info.h"

#include <algorithm>
#include <cstdio>

#include "common/format.h"
#include "common/text_escape.h"
#include "recording/record_codec.h"
#include "recording/recording_format.h"

namespace swprof {

uint32_t RecordingInfo::stack_percentile(double p) const {
  if (stack_sizes.empty()) return 0;
  std::vector<uint32_t> sorted = stack_sizes;
  std::sort(sorted.begin(), sorted.end());
  size_t idx = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(idx, sorted.size() - 1)];
}

bool RecordingInfo::stacks_cut_short() const { return samples > 0 && truncated * 100 > samples; }

uint32_t RecordingInfo::suggested_stack_size() const {
  const uint32_t current = header.stack_size;
  if (stacks_cut_short())
    return std::min<uint32_t>(kMaxStackSize, std::max<uint32_t>(current * 2, 16384) & ~7u);
  // Whole stacks fit: the p99 of what was copied, with headroom, in 4 KiB steps.
  uint32_t want = stack_percentile(99) + stack_percentile(99) / 4;
  want = (want + 4095) / 4096 * 4096;
  return std::clamp<uint32_t>(want, 8192, kMaxStackSize);
}

namespace {

// One handler per kind of record, each adding what it tells to `info`.
struct InfoCollector {
  RecordingInfo& info;

  void operator()(const SampleView& s) {
    ++info.samples;
    info.kernel_mode_samples += s.in_kernel;
    info.truncated += s.stack_truncated;
    info.stack_sizes.push_back(static_cast<uint32_t>(s.stack.size()));
    if (!info.first_time || s.time < info.first_time) info.first_time = s.time;
    info.last_time = std::max(info.last_time, s.time);
    auto& t = info.threads[s.tid];
    t.pid = s.pid;
    ++t.samples;
  }
  void operator()(const MappingRecord& m) {
    auto& b = info.binaries[m.path];
    ++b.mappings;
    if (m.build_id_size) b.build_id = m.build_id_hex();
  }
  void operator()(const CommRecord& c) {
    auto& t = info.threads[c.tid];
    t.pid = c.pid;
    t.comm = c.comm;
  }
  void operator()(const LostRecord& l) { info.lost += l.count; }
  void operator()(const ThrottleRecord& th) { info.throttles += th.throttled; }
  void operator()(const EndRecord& e) { info.end_json = e.json; }
  void operator()(const TaskRecord&) {}
  void operator()(const ImageRecord&) {}
};

}  // namespace

RecordingInfo collect_info(RecordingReader& reader) {
  RecordingInfo info;
  info.header = reader.header();
  InfoCollector collect{info};
  while (auto rec = reader.next()) {
    ++info.record_counts[record_type_name(record_type_of(*rec))];
    std::visit(collect, *rec);
  }
  info.status = reader.status();
  return info;
}

UnwindQuality measure_unwinding(const std::string& recording, const UnwindOptions& options) {
  RecordingReader reader(recording);
  RecordingUnwinder unwinder(options);
  unwinder.run(reader, [](const UnwoundSample&) {});
  return UnwindQuality{unwinder.stats(), options.unwinder, unwinder.warnings()};
}

InfoResult run_info(const std::string& recording, const InfoOptions& options) {
  InfoResult result;
  RecordingReader reader(recording);
  result.recording = collect_info(reader);
  if (options.unwind_quality && result.recording.samples > 0)
    result.unwinding = measure_unwinding(recording, options.unwind);
  return result;
}

std::string format_info(const RecordingInfo& info) {
  const RecordingHeader& h = info.header;
  std::string out;
  char line[1024];
  auto add = [&](const char* fmt, auto... args) {
    snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("command:      %s\n", quote_command(h.command).c_str());
  // Every text below comes from the recording: shown with terminal_safe.
  auto safe = [](const std::string& s) { return terminal_safe(s); };
  add("mode:         %s (pid %lld)\n", safe(h.mode).c_str(), static_cast<long long>(h.target_pid));
  if (h.period)
    add("event:        %s, every %llu events\n", safe(h.event).c_str(), static_cast<unsigned long long>(h.period));
  else add("event:        %s at %u Hz\n", safe(h.event).c_str(), h.frequency);
  add("stack size:   %u bytes\n", h.stack_size);
  add("kernel:       %s%s%s\n", h.kernel_samples ? "samples and callchains recorded" : "not sampled",
      h.kernel_note.empty() ? "" : " -- ", safe(h.kernel_note).c_str());
  add("host:         %s (Linux %s)\n", safe(h.host).c_str(), safe(h.kernel_release).c_str());
  add("started:      %s\n", format_time(h.start_unix_ns).c_str());
  add("recorded by:  swprof %s\n", safe(h.swprof_version).c_str());
  const double span = info.last_time > info.first_time ? static_cast<double>(info.last_time - info.first_time) / 1e9 : 0;
  add("duration:     %.2f s of samples\n", span);
  add("file:         %llu bytes in %llu chunks", static_cast<unsigned long long>(info.status.file_bytes),
      static_cast<unsigned long long>(info.status.chunks));
  if (info.samples) add(", %.0f bytes/sample", static_cast<double>(info.status.file_bytes) / static_cast<double>(info.samples));
  out += "\n\nrecords:\n";
  for (const auto& [name, n] : info.record_counts) add("  %-12s %llu\n", name.c_str(), static_cast<unsigned long long>(n));

  out += "\nsamples:\n";
  add("  total          %llu\n", static_cast<unsigned long long>(info.samples));
  add("  in kernel      %llu\n", static_cast<unsigned long long>(info.kernel_mode_samples));
  add("  lost           %llu\n", static_cast<unsigned long long>(info.lost));
  add("  throttled      %llu times\n", static_cast<unsigned long long>(info.throttles));
  const double trunc_pct = percent(info.truncated, info.samples);
  add("  truncated      %llu (%.1f%%) stack copies cut at %u bytes\n", static_cast<unsigned long long>(info.truncated),
      trunc_pct, h.stack_size);
  add("  stack copied   p50 %u bytes, p99 %u bytes, max %u bytes\n", info.stack_percentile(50),
      info.stack_percentile(99), info.stack_percentile(100));
  const uint32_t suggest = info.suggested_stack_size();
  if (info.samples) {
    if (suggest > h.stack_size) add("  suggestion     --stack-size %u (stacks were cut short)\n", suggest);
    else if (info.stacks_cut_short())
      add("  suggestion     none: --stack-size %u is the maximum; these stacks are deeper than the kernel can copy\n",
          h.stack_size);
    else if (suggest < h.stack_size) add("  suggestion     --stack-size %u would still copy 99%% of stacks whole\n", suggest);
    else add("  suggestion     --stack-size %u is right\n", suggest);
  }

  add("\nthreads: %zu\n", info.threads.size());
  add("  %8s %8s %10s  %s\n", "pid", "tid", "samples", "name");
  for (const auto& [tid, t] : info.threads)
    add("  %8u %8u %10llu  %s\n", t.pid, tid, static_cast<unsigned long long>(t.samples), safe(t.comm).c_str());

  add("\nbinaries: %zu\n", info.binaries.size());
  for (const auto& [path, b] : info.binaries)
    add("  %-40s %s\n", b.build_id.empty() ? "(no build-id)" : safe(b.build_id).c_str(), safe(path).c_str());

  out += "\nstatus:       ";
  switch (info.status.state) {
    case ReadStatus::State::kComplete:
      out += info.status.finalized ? "complete\n" : "readable, but not finalized (swprof was stopped abruptly)\n";
      break;
    case ReadStatus::State::kTruncated: out += "TRUNCATED: " + safe(info.status.problem) + "\n"; break;
    case ReadStatus::State::kCorrupt: out += "CORRUPT: " + safe(info.status.problem) + "\n"; break;
    case ReadStatus::State::kReading: out += "incomplete read\n"; break;
  }
  return out;
}

std::string format_unwind_quality(const UnwindStats& st, UnwinderChoice unwinder) {
  std::string out;
  char line[256];
  snprintf(line, sizeof line, "\nunwind quality (%s):\n",
           unwinder == UnwinderChoice::kChain ? "stepper chain" : "libunwind reference");
  out += line;
  snprintf(line, sizeof line, "  complete stacks  %.1f%% (%llu of %llu samples)\n", percent(st.complete, st.samples),
           static_cast<unsigned long long>(st.complete), static_cast<unsigned long long>(st.samples));
  out += line;
  snprintf(line, sizeof line, "  frames           %llu (%.1f per sample), %llu guessed\n",
           static_cast<unsigned long long>(st.frames),
           st.samples ? static_cast<double>(st.frames) / static_cast<double>(st.samples) : 0.0,
           static_cast<unsigned long long>(st.guessed_frames));
  out += line;
  out += "  frames by stepper";
  for (size_t k = 1; k < st.frames_by_stepper.size(); ++k) {
    if (!st.frames_by_stepper[k]) continue;
    snprintf(line, sizeof line, "  %s %llu (%.1f%%)", stepper_name(static_cast<StepperKind>(k)),
             static_cast<unsigned long long>(st.frames_by_stepper[k]), percent(st.frames_by_stepper[k], st.frames));
    out += line;
  }
  out += "\n";
  std::vector<std::pair<uint64_t, WalkEnd>> early;
  for (const auto& [end, n] : st.ends)
    if (end != WalkEnd::kBottom) early.emplace_back(n, end);
  std::sort(early.rbegin(), early.rend());
  if (early.empty()) out += "  walks ended early: none\n";
  for (size_t i = 0; i < early.size() && i < 5; ++i) {
    snprintf(line, sizeof line, "  ended early: %-22s %llu (%.1f%%)%s\n", walk_end_name(early[i].second),
             static_cast<unsigned long long>(early[i].first), percent(early[i].first, st.samples),
             early[i].second == WalkEnd::kStackExhausted ? "  -- see the --stack-size suggestion above" : "");
    out += line;
  }
  return out;
}

}  // namespace swprof
