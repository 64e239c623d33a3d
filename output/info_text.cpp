#include "output/info_text.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "common/format.h"
#include "common/text_escape.h"

namespace swprof {

namespace {

// Appends printf-formatted lines to one string.
class TextLines {
 public:
  template <typename... Args>
  void add(const char* fmt, Args... args) {
    char line[1024];
    snprintf(line, sizeof line, fmt, args...);
    out_ += line;
  }
  void add_text(const std::string& text) { out_ += text; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

unsigned long long ull(uint64_t n) { return static_cast<unsigned long long>(n); }
std::string safe(const std::string& s) { return terminal_safe(s); }

// Where a perf.data file's records came from, and what of it was skipped.
void add_perf_data_source(TextLines& t, const RecordingInfo& info) {
  t.add_text("recorded by:  perf record (source format perf.data)\n");
  std::string events;
  for (size_t i = 0; i < info.events.size(); ++i)
    events += (i ? ", " : "") + safe(info.events[i]) + (i == 0 ? " (reported)" : "");
  t.add("events:       %s\n", events.c_str());
}

void add_skipped(TextLines& t, const RecordingInfo& info) {
  if (info.status.skipped.empty()) return;
  t.add_text("\nskipped:\n");
  for (const auto& [what, n] : info.status.skipped) t.add("  %-48s %llu\n", safe(what).c_str(), ull(n));
}

void add_header(TextLines& t, const RecordingInfo& info) {
  const RecordingHeader& h = info.header;
  t.add("command:      %s\n", quote_command(h.command).c_str());
  if (h.target_pid) t.add("mode:         %s (pid %lld)\n", safe(h.mode).c_str(), static_cast<long long>(h.target_pid));
  else t.add("mode:         %s\n", safe(h.mode).c_str());
  if (h.period) t.add("event:        %s, every %llu events\n", safe(h.event).c_str(), ull(h.period));
  else t.add("event:        %s at %u Hz\n", safe(h.event).c_str(), h.frequency);
  t.add("stack size:   %u bytes\n", h.stack_size);
  t.add("kernel:       %s%s%s\n", h.kernel_samples ? "samples and callchains recorded" : "not sampled",
        h.kernel_note.empty() ? "" : " -- ", safe(h.kernel_note).c_str());
  t.add("host:         %s (Linux %s)\n", safe(h.host).c_str(), safe(h.kernel_release).c_str());
  if (info.format == SourceFormat::kPerfData) {
    add_perf_data_source(t, info);
  } else {
    t.add("started:      %s\n", format_time(h.start_unix_ns).c_str());
    t.add("recorded by:  swprof %s\n", safe(h.swprof_version).c_str());
  }
  const double span = info.last_time > info.first_time ? static_cast<double>(info.last_time - info.first_time) / 1e9 : 0;
  t.add("duration:     %.2f s of samples\n", span);
  if (info.format == SourceFormat::kPerfData) t.add("file:         %llu bytes", ull(info.status.file_bytes));
  else t.add("file:         %llu bytes in %llu chunks", ull(info.status.file_bytes), ull(info.status.chunks));
  if (info.samples)
    t.add(", %.0f bytes/sample", static_cast<double>(info.status.file_bytes) / static_cast<double>(info.samples));
  t.add_text("\n");
}

void add_records(TextLines& t, const RecordingInfo& info) {
  t.add_text("\nrecords:\n");
  for (const auto& [name, n] : info.record_counts) t.add("  %-12s %llu\n", name.c_str(), ull(n));
}

void add_stack_size_suggestion(TextLines& t, const RecordingInfo& info) {
  const uint32_t size = info.header.stack_size;
  const uint32_t suggest = info.suggested_stack_size();
  // The option that sets the size: swprof record's, or perf record's.
  const char* option = info.format == SourceFormat::kPerfData ? "perf record --call-graph dwarf," : "--stack-size ";
  if (suggest > size) t.add("  suggestion     %s%u (stacks were cut short)\n", option, suggest);
  else if (info.stacks_cut_short())
    t.add("  suggestion     none: %s%u is the maximum; these stacks are deeper than the kernel can copy\n", option,
          size);
  else if (suggest < size) t.add("  suggestion     %s%u would still copy 99%% of stacks whole\n", option, suggest);
  else t.add("  suggestion     %s%u is right\n", option, suggest);
}

void add_samples(TextLines& t, const RecordingInfo& info) {
  t.add_text("\nsamples:\n");
  if (info.off_cpu_samples)
    t.add("  total          %llu (%llu on-CPU, %llu off-CPU)\n", ull(info.samples), ull(info.on_cpu_samples()),
          ull(info.off_cpu_samples));
  else
    t.add("  total          %llu\n", ull(info.samples));
  t.add("  in kernel      %llu\n", ull(info.kernel_mode_samples));
  t.add("  lost           %llu\n", ull(info.lost));
  t.add("  throttled      %llu times\n", ull(info.throttles));
  t.add("  truncated      %llu (%.1f%%) stack copies cut at %u bytes\n", ull(info.truncated),
        percent(info.truncated, info.on_cpu_samples()), info.header.stack_size);
  t.add("  stack copied   p50 %u bytes, p99 %u bytes, max %u bytes\n", info.stack_percentile(50),
        info.stack_percentile(99), info.stack_percentile(100));
  if (info.on_cpu_samples()) add_stack_size_suggestion(t, info);
}

// Where the recorder found a binary of a process in another mount namespace.
void add_namespace_note(TextLines& t, const BinaryInfo& b) {
  if (b.found_at.empty()) {
    t.add("    not found inside mount namespace %s (the process exited before its binary could be read?)\n",
          safe(b.mount_ns).c_str());
    return;
  }
  t.add("    found at %s (mount namespace %s), %s\n", safe(b.found_at).c_str(), safe(b.mount_ns).c_str(),
        b.embedded_bytes ? ("embedded " + human_bytes(b.embedded_bytes)).c_str() : "not embedded");
}

void add_threads_and_binaries(TextLines& t, const RecordingInfo& info) {
  t.add("\nthreads: %zu\n", info.threads.size());
  t.add("  %8s %8s %10s  %s\n", "pid", "tid", "samples", "name");
  for (const auto& [tid, th] : info.threads)
    t.add("  %8u %8u %10llu  %s\n", th.pid, tid, ull(th.samples), safe(th.comm).c_str());
  t.add("\nbinaries: %zu\n", info.binaries.size());
  for (const auto& [path, b] : info.binaries) {
    t.add("  %-40s %s\n", b.build_id.empty() ? "(no build-id)" : safe(b.build_id).c_str(), safe(path).c_str());
    if (b.in_other_namespace) add_namespace_note(t, b);
    if (b.report) t.add_text(format_binary_report(*b.report, b.package, b.advice));
  }
}

// "1234 FDEs", "no" for a section that is absent or empty.
std::string fde_count(size_t n) { return n ? std::to_string(n) + " FDEs" : "none"; }

std::string unwind_line(const BinaryReport& r) {
  char line[512];
  snprintf(line, sizeof line,
           "      unwind:  .eh_frame %s%s, .debug_frame %s; CFI covers %.1f%% of %llu code bytes; "
           "frame pointers in %zu of %zu functions looked at\n",
           fde_count(r.eh_frame_fdes).c_str(), r.eh_frame_hdr ? " with .eh_frame_hdr" : " without .eh_frame_hdr",
           fde_count(r.debug_frame_fdes).c_str(), 100.0 * r.cfi_share(), ull(r.code_bytes),
           r.frame_pointer_prologues, r.prologues_checked);
  return line;
}

std::string names_line(const BinaryReport& r) {
  std::string out = "      names:   ";
  out += r.symtab_functions ? ".symtab " + std::to_string(r.symtab_functions) + " functions" : "no .symtab";
  out += ", .dynsym " + std::to_string(r.dynsym_functions) + " functions";
  out += r.minidebuginfo ? ", minidebuginfo" : "";
  out += r.dwarf_file.empty() ? ", no DWARF" : ", DWARF in " + safe(r.dwarf_file);
  out += ", " + std::to_string(r.plt_entries) + " PLT stubs\n";
  if (r.go_functions)
    out += "      go:      pclntab of " + safe(r.go_version) + ", " + std::to_string(r.go_functions) +
           " functions: names, lines, inline frames and stack heights\n";
  if (r.discovered_functions || r.discovery_budget_hit)
    out += "      found:   " + std::to_string(r.discovered_functions) +
           (r.discovered_functions == 1 ? " function" : " functions") +
           " without a symbol or FDE, by discovery (shown as [unknown] module+0xSTART)" +
           (r.discovery_budget_hit ? "; stopped at its instruction budget" : "") + "\n";
  return out;
}

std::string status_text(const ReadStatus& status) {
  switch (status.state) {
    case ReadStatus::State::kComplete:
      return status.finalized ? "complete" : "readable, but not finalized (swprof was stopped abruptly)";
    case ReadStatus::State::kTruncated: return "TRUNCATED: " + safe(status.problem);
    case ReadStatus::State::kCorrupt: return "CORRUPT: " + safe(status.problem);
    case ReadStatus::State::kReading: return "incomplete read";
  }
  return "";
}

void add_frames_by_stepper(TextLines& t, const UnwindStats& st) {
  t.add_text("  frames by stepper");
  for (size_t k = 1; k < st.frames_by_stepper.size(); ++k) {
    if (!st.frames_by_stepper[k]) continue;
    t.add("  %s %llu (%.1f%%)", stepper_name(static_cast<StepperKind>(k)), ull(st.frames_by_stepper[k]),
          percent(st.frames_by_stepper[k], st.frames));
  }
  t.add_text("\n");
}

// What a person can do about a walk end, after its count.
const char* early_end_hint(WalkEnd end) {
  if (end == WalkEnd::kStackExhausted) return "  -- see the --stack-size suggestion above";
  if (end == WalkEnd::kNoStackCopied) return "  -- sampled in a fault on the stack: the kernel copied nothing";
  return "";
}

// The five most common reasons walks ended before the outermost frame.
void add_early_ends(TextLines& t, const UnwindStats& st) {
  std::vector<std::pair<uint64_t, WalkEnd>> early;
  for (const auto& [end, n] : st.ends)
    if (end != WalkEnd::kBottom && end != WalkEnd::kNoMappingsYet && end != WalkEnd::kStackSwitch)
      early.emplace_back(n, end);
  std::sort(early.rbegin(), early.rend());
  if (early.empty()) t.add_text("  walks ended early: none\n");
  for (size_t i = 0; i < early.size() && i < 5; ++i)
    t.add("  ended early: %-22s %llu (%.1f%%)%s\n", walk_end_name(early[i].second), ull(early[i].first),
          percent(early[i].first, st.samples), early_end_hint(early[i].second));
}

}  // namespace

std::string format_binary_report(const BinaryReport& r, const std::string& package,
                                 const std::vector<std::string>& advice) {
  std::string out;
  if (r.status == BinaryStatus::kMissing) out += "      missing: " + safe(r.problem) + "\n";
  else if (r.status == BinaryStatus::kChanged) out += "      changed: another build-id on disk than recorded\n";
  else {
    out += "      " + r.kind + (package.empty() ? ", no Debian package" : ", from Debian package " + safe(package)) + "\n";
    out += unwind_line(r) + names_line(r);
  }
  for (const std::string& a : advice) out += "      to improve: " + safe(a) + "\n";
  return out;
}

// What the recording keeps so that reports elsewhere name kernel and JIT
// frames; nothing for recordings that keep neither.
static void add_kept_for_reports(TextLines& t, const RecordingInfo& info) {
  if (!info.kernel_symbols_bytes && info.perf_map_bytes.empty()) return;
  t.add_text("\nkept for reports elsewhere:\n");
  if (info.kernel_symbols_bytes)
    t.add("  kernel symbols %llu symbols, %s (those the samples hit)\n", ull(info.kernel_symbols),
          human_bytes(info.kernel_symbols_bytes).c_str());
  for (const auto& [pid, bytes] : info.perf_map_bytes)
    t.add("  perf map       process %u, %s\n", pid, human_bytes(bytes).c_str());
}

std::string format_info(const RecordingInfo& info) {
  TextLines t;
  add_header(t, info);
  add_records(t, info);
  add_samples(t, info);
  add_kept_for_reports(t, info);
  add_threads_and_binaries(t, info);
  add_skipped(t, info);
  // perf.data has no end record: read to its end, it is whole.
  const bool whole_perf_data = info.format == SourceFormat::kPerfData && info.status.ok();
  t.add_text("\nstatus:       " + (whole_perf_data ? std::string("complete") : status_text(info.status)) + "\n");
  return t.take();
}

std::string format_archive(const InfoResult& result) {
  std::string out;
  if (result.archive_path.empty()) {
    out = "\narchive:      none (swprof archive adds the binaries to one)\n";
  } else {
    out = "\narchive:      " + safe(result.archive_path) + ": " + std::to_string(result.archive_binaries) +
          " binaries, " + std::to_string(result.archive_debuginfo) + " debuginfo files";
    if (result.unwinding)
      out += "; supplied " + std::to_string(result.unwinding->archive_supplied) + " missing or changed binaries";
    out += "\n";
  }
  if (result.unwinding && result.unwinding->build_id_cache_supplied > 0)
    out += "build-id cache: supplied " + std::to_string(result.unwinding->build_id_cache_supplied) +
           " missing or changed binaries\n";
  return out;
}

std::string format_unwind_quality(const UnwindStats& st, UnwinderChoice unwinder) {
  TextLines t;
  t.add("\nunwind quality (%s):\n", unwinder == UnwinderChoice::kChain ? "stepper chain" : "libunwind reference");
  t.add("  complete stacks  %.1f%% (%llu of %llu samples)\n", percent(st.complete, st.unwindable()), ull(st.complete),
        ull(st.unwindable()));
  if (st.inside_execve())
    t.add("  inside execve    %llu samples (%.1f%%): the old program's registers and no stack, nothing to unwind;\n"
          "                   shown as execve (or alone) under \"[in execve]\", not counted above\n",
          ull(st.inside_execve()), percent(st.inside_execve(), st.samples));
  if (auto it = st.ends.find(WalkEnd::kStackSwitch); it != st.ends.end())
    t.add("  stack switches   %llu samples (%.1f%%) end where Go switched stacks (system stack or cgo):\n"
          "                   the goroutine's frames are on a stack the kernel did not copy; no guess is made\n",
          ull(it->second), percent(it->second, st.samples));
  t.add("  frames           %llu (%.1f per sample), %llu guessed\n", ull(st.frames),
        st.samples ? static_cast<double>(st.frames) / static_cast<double>(st.samples) : 0.0, ull(st.guessed_frames));
  if (st.beyond_copy_frames)
    t.add("  beyond the copy  %llu frames in %llu samples (%.1f%%) walked from stack read past the kernel's copy\n"
          "                   right after the sample, where the copy's outermost frames still read the same (--stack-beyond)\n",
          ull(st.beyond_copy_frames), ull(st.beyond_copy_samples), percent(st.beyond_copy_samples, st.samples));
  if (st.beyond_copy_dropped)
    t.add("  not beyond       %llu samples (%.1f%%) end at the copy: the stack read past it came after the copy's\n"
          "                   outermost frames had changed\n",
          ull(st.beyond_copy_dropped), percent(st.beyond_copy_dropped, st.samples));
  add_frames_by_stepper(t, st);
  add_early_ends(t, st);
  return t.take();
}

}  // namespace swprof
