#include "profile/pipeline.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "common/error.h"
#include "profile/build_id_cache_fill.h"
#include "profile/held_samples.h"
#include "profile/thread_names.h"

namespace swprof {
namespace {

using Clock = std::chrono::steady_clock;

// Collects PipelineResult::mapped_files: one hash lookup per mapping record.
class MappedFiles {
 public:
  void add(const MappingRecord& r, std::vector<ExecutableMapping>& out) {
    constexpr uint32_t kProtExec = 4;  // PROT_EXEC
    if (!(r.prot & kProtExec) || (is_anonymous_path(r.path) && r.path != "[vdso]")) return;
    if (!seen_.insert(r.path).second) return;
    out.push_back(ExecutableMapping{r.path, r.build_id_hex(), r.start, r.start + r.length, r.file_offset});
  }

 private:
  std::unordered_set<std::string> seen_;
};

// One pass: the state the records build up, and one handler per kind of
// record the pass needs (samples come unwound, from RecordingUnwinder).
class PipelineRun {
 public:
  PipelineRun(RecordSource& reader, const PipelineOptions& options, SampleSink& sink)
      : reader_(reader),
        options_(options),
        sink_(sink),
        kinds_(sink.kinds()),
        filter_(options.filter, reader.header().start_monotonic_ns),
        symbols_(options.symbols) {
    result_.header = reader.header();
    // A perf.data reader knows the recorded kernel's mapping from the start.
    if (const RecordedKernel* kernel = reader.recorded_kernel(); kernel && !kernel->text_symbol.empty())
      read_recorded_kernel_early();
    // What the records need from the start, before the first of them.
    use_final_images(reader.trailing_images());
    if (reader.header().off_cpu && kinds_.off_cpu) intervals_ = OffCpuIntervals::read(reader);
  }

  // The first samples, before they are symbolized: their binaries' symbols
  // and DWARF are read at once, each on a thread of its own (the fixed cost
  // of a small report). Later samples' binaries are read when first met.
  void look_ahead(const UnwoundSample& s) {
    if (ahead_seen_ >= kLookAheadSamples) return;
    ++ahead_seen_;
    if (!kind_kept(s) || !s.maps) return;
    // The filter's time window and threads (its names are known only once
    // the batch's records are read).
    if (!filter_.in_window(s.time) || !filter_.keeps_thread(s.tid)) return;
    for (const Frame& f : s.walk.frames) symbols_.prefetch(*s.maps, f);
  }

  void on_sample(const UnwoundSample& s) {
    count_read(s.time);
    if (!kind_kept(s)) return;
    const std::string& comm = names_.name(s.tid);
    if (!filter_.keep(s.time, s.tid, comm)) return;
    const size_t kernel_frames = kept_kernel_frames(s);
    if (kernel_frames > 0) prepare_kernel_symbols();
    if (!held_.empty() && (held_.full() || (symbols_.kernel_symbols_ready() && !symbols_.prefetching())))
      release_held();
    const bool user_waits = symbolize_user(s);
    const OffCpuWeight* off = s.off_cpu ? intervals_.weight(s.tid, s.time) : nullptr;
    // An off-CPU sample no switch records time weighs its period: 0 for the
    // kernel's (it has none), the interval for a `dump --samples` snapshot.
    const uint64_t weight = s.off_cpu && off && off->weight_ns ? off->weight_ns : s.period;
    if (!held_.empty() || user_waits || (kernel_frames > 0 && !symbols_.kernel_symbols_ready())) {
      held_.hold(HeldSample{s, comm, names_.named_by_record(s.tid), user_symbols_, weight, off});
      return;
    }
    deliver(s, comm, names_.named_by_record(s.tid), user_symbols_, weight, off);
  }

  // The samples held while the kernel's symbols, or a binary's, were read
  // go to the sink, in order, once they are (waiting for them if need be),
  // their user frames all named.
  void release_held() {
    held_.release([this](HeldSample& h) {
      for (size_t i = 0; i < h.user_symbols.size(); ++i)
        if (!h.user_symbols[i]) h.user_symbols[i] = &symbols_.symbolize(*h.unwound.maps, h.unwound.pid, h.unwound.walk.frames[i]);
      deliver(h.unwound, h.comm, h.named_by_record, h.user_symbols, h.weight, h.off_cpu);
    });
  }

  // To the sink, with the sample's kernel frames named.
  void deliver(const UnwoundSample& s, const std::string& comm, bool named_by_record,
               const std::vector<const SymbolizedAddress*>& user_symbols, uint64_t weight, const OffCpuWeight* off) {
    kernel_symbols_.resize(kept_kernel_frames(s));
    for (size_t i = 0; i < kernel_symbols_.size(); ++i)
      kernel_symbols_[i] = &symbols_.symbolize_kernel(s.kernel_ips[i]);
    sink_.add(PipelineSample{s, comm, named_by_record, user_symbols, kernel_symbols_,
                             s.off_cpu ? SampleKind::kOffCpu : SampleKind::kOnCpu, weight, off});
  }

  void operator()(const CommRecord& r) {
    names_.on_comm(r);
    read_recorded_kernel_early();
  }
  void operator()(const TaskRecord& r) { names_.on_task(r); }
  void operator()(const LostRecord& r) { result_.lost += r.count; }
  void operator()(const MappingRecord& r) {
    mapped_files_.add(r, result_.mapped_files);
    read_recorded_kernel_early();
  }
  void operator()(const ImageRecord& r) {
    if (auto pid = pid_of_perf_map_image(r.name))
      symbols_.add_recorded_perf_map(*pid, std::string_view(reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size()));
  }
  template <typename Other>
  void operator()(const Other&) {}

  PipelineResult finish(const RecordingUnwinder& unwinder) {
    release_held();
    result_.status = reader_.status();
    result_.unwind = unwinder.stats();
    if (const auto& archive = options_.unwind.archive)
      result_.archive = ArchiveUse{archive->path(), unwinder.archive_supplied(), archive};
    result_.warnings = unwinder.warnings();
    for (auto& w : symbols_.warnings()) result_.warnings.push_back(std::move(w));
    return std::move(result_);
  }

 private:
  // The sink takes samples of this one's kind (on- or off-CPU).
  bool kind_kept(const UnwoundSample& s) const { return s.off_cpu ? kinds_.off_cpu : kinds_.on_cpu; }
  size_t kept_kernel_frames(const UnwoundSample& s) const { return options_.filter.kernel_frames ? s.kernel_ips.size() : 0; }

  void count_read(uint64_t time) {
    ++result_.samples_read;
    if (!result_.first_time || time < result_.first_time) result_.first_time = time;
    result_.last_time = std::max(result_.last_time, time);
    if (options_.progress && (result_.samples_read & 4095) == 0) report_progress();
  }

  void report_progress() const {
    ProfileProgress p;
    p.samples = result_.samples_read;
    p.bytes = reader_.status().good_bytes;
    p.file_bytes = reader_.status().file_bytes;
    p.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    options_.progress(p);
  }

  // What the recorder kept when it stopped, needed from the first sample on.
  void use_final_images(const std::vector<StoredImage>& images) {
    for (const StoredImage& img : images) {
      const std::string_view text(reinterpret_cast<const char*>(img.bytes.data()), img.bytes.size());
      if (img.name == kKallsymsImageName) symbols_.use_recorded_kernel_symbols(text);
      else if (auto pid = pid_of_perf_map_image(img.name)) symbols_.add_final_perf_map(*pid, text);
    }
  }

  // Names the sample's user frames (user_symbols_), but for those whose
  // binary is still being read on its prefetch thread: those are left null,
  // to be named when the sample is released. True when one was.
  bool symbolize_user(const UnwoundSample& s) {
    user_symbols_.resize(s.walk.frames.size());
    bool deferred = false;
    const auto name = [&](size_t i) {
      const Frame& f = s.walk.frames[i];
      if (symbols_.would_wait(*s.maps, f)) {
        user_symbols_[i] = nullptr;
        deferred = true;
      } else {
        user_symbols_[i] = &symbols_.symbolize(*s.maps, s.pid, f);
      }
    };
    if (options_.symbolize_order == FrameOrder::kLeafFirst)
      for (size_t i = 0; i < user_symbols_.size(); ++i) name(i);
    else
      for (size_t i = user_symbols_.size(); i-- > 0;) name(i);
    return deferred;
  }

  // A perf.data recording's kernel and module mappings come first, before
  // any process's records: from then on (from the start when its reader
  // peeked at them, else from the first process record), the recorded
  // kernel's symbols are read on their thread while the first samples are
  // unwound, when the recording has kernel samples and the report keeps
  // kernel frames (a warning, if any, is given only when they are used).
  void read_recorded_kernel_early() {
    if (kernel_early_checked_) return;
    kernel_early_checked_ = true;
    const bool kernel_frames = reader_.header().kernel_samples && options_.filter.kernel_frames;
    if (reader_.recorded_kernel() && kernel_frames) prepare_kernel_symbols();
  }

  // Read meanwhile, when read at all. The kernel mappings of a perf.data
  // recording come before its first sample with kernel frames.
  void prepare_kernel_symbols() {
    if (!kernel_told_)
      if (const RecordedKernel* kernel = reader_.recorded_kernel()) symbols_.use_recorded_kernel(*kernel);
    kernel_told_ = true;
    symbols_.prepare_kernel_symbols();
  }

  RecordSource& reader_;
  const PipelineOptions& options_;
  SampleSink& sink_;
  const SampleKinds kinds_;
  OffCpuIntervals intervals_;
  const Clock::time_point started_ = Clock::now();
  SampleFilter filter_;
  ThreadNames names_;
  MappedFiles mapped_files_;
  Symbolizer symbols_;
  static constexpr uint64_t kLookAheadSamples = 1024;
  uint64_t ahead_seen_ = 0;
  bool kernel_early_checked_ = false;
  bool kernel_told_ = false;  // the symbolizer knows the recorded kernel, if any
  std::vector<const SymbolizedAddress*> user_symbols_, kernel_symbols_;  // of the current sample
  // Kept samples waiting for the kernel's symbols (held_samples.h).
  HeldSamples held_;
  PipelineResult result_;
};

// A file with samples none of which could be read has nothing to report:
// one line says why, not an empty report. A file without samples is none of
// this ("No samples").
void require_a_readable_sample(const RecordSource& reader, const PipelineResult& pass) {
  const ReadStatus& st = pass.status;
  if (pass.samples_read > 0) return;
  std::string why;
  if (st.damaged_samples > 0)
    why = "none of its " + std::to_string(st.damaged_samples) + " samples could be read (damaged records)";
  else if (st.state == ReadStatus::State::kTruncated || st.state == ReadStatus::State::kCorrupt)
    why = std::string(st.state == ReadStatus::State::kTruncated ? "cut short" : "damaged") +
          " before its first sample (" + st.problem + ")";
  if (why.empty()) return;
  const std::string what = reader.format() == SourceFormat::kPerfData ? "perf.data file '" : "recording '";
  throw Error(what + reader.path() + "': " + why + "; nothing to report");
}

}  // namespace

PipelineOptions with_archive(const std::string& recording, const PipelineOptions& options) {
  PipelineOptions out = options;
  auto archive = find_archive(recording, options.symbols.archive_path);
  out.unwind.archive = archive;
  out.symbols.archive = std::move(archive);
  out.unwind.build_id_cache = options.symbols.build_id_cache;
  return out;
}

PipelineResult run_pipeline(const std::string& recording, const PipelineOptions& options, SampleSink& sink) {
  return run_pipeline(RecordingBytes::open(recording, "recording"), options, sink);
}

PipelineResult run_pipeline(std::shared_ptr<const RecordingBytes> file, const PipelineOptions& given,
                            SampleSink& sink) {
  const std::unique_ptr<RecordSource> source = open_record_source(std::move(file));
  RecordSource& reader = *source;
  const PipelineOptions options = with_archive(reader.path(), given);
  sink.begin(reader.header());
  PipelineRun run(reader, options, sink);
  RecordingUnwinder unwinder(options.unwind);
  unwinder.run(
      reader, [&](const UnwoundSample& s) { run.on_sample(s); }, [&](const Record& r) { std::visit(run, r); },
      [&](const UnwoundSample& s) { run.look_ahead(s); });
  PipelineResult pass = run.finish(unwinder);
  require_a_readable_sample(reader, pass);
  if (options.unwind.build_id_cache)
    for (std::string& problem :
         keep_in_build_id_cache(*options.unwind.build_id_cache, unwinder.binaries_as_recorded(), options.symbols).problems)
      pass.warnings.push_back(std::move(problem));
  return pass;
}

}  // namespace swprof
