#include "profile/info.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include <nlohmann/json.hpp>

#include "common/format.h"
#include "common/text_escape.h"
#include "profile/thread_names.h"
#include "recording/record_codec.h"
#include "recording/recording_bytes.h"
#include "recording/recording_format.h"

namespace swprof {

uint32_t RecordingInfo::stack_percentile(double p) const {
  if (stack_sizes.empty()) return 0;
  std::vector<uint32_t> sorted = stack_sizes;
  std::sort(sorted.begin(), sorted.end());
  size_t idx = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(idx, sorted.size() - 1)];
}

bool RecordingInfo::stacks_cut_short() const {
  return on_cpu_samples() > 0 && truncated * 100 > on_cpu_samples();
}

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
  ThreadNames names;

  void add(const Record& record) {
    ++info.record_counts[record_type_name(record_type_of(record))];
    std::visit(*this, record);
  }

  void operator()(const SampleView& s) {
    ++info.samples;
    info.kernel_mode_samples += s.in_kernel && !s.off_cpu;  // off-CPU samples are all taken in the kernel
    info.off_cpu_samples += s.off_cpu;
    if (s.off_cpu) {
      info.off_cpu_truncated += s.stack_truncated;  // its own --off-cpu-stack-size, not --stack-size
    } else {
      info.truncated += s.stack_truncated;
      // The kernel's copy: not the bytes the recorder read past it (--stack-beyond).
      info.stack_sizes.push_back(static_cast<uint32_t>(s.stack.size() - std::min<size_t>(s.stack_beyond, s.stack.size())));
    }
    if (!info.first_time || s.time < info.first_time) info.first_time = s.time;
    info.last_time = std::max(info.last_time, s.time);
    auto& t = info.threads[s.tid];
    t.pid = s.pid;
    ++t.samples;
  }
  void operator()(const MappingRecord& m) {
    auto& b = info.binaries[m.path];
    ++b.mappings;
    b.executable |= (m.prot & 0x4) != 0;
    if (m.build_id_size) {
      b.build_id = m.build_id_hex();
      b.build_id_bytes.assign(m.build_id.begin(), m.build_id.begin() + m.build_id_size);
    }
  }
  // Every thread seen counts, sampled or not (as the recorder's summary
  // counts them): named by a COMM record, or started or ended by a task
  // record, its name then inherited from the thread that started it.
  void operator()(const CommRecord& c) {
    names.on_comm(c);
    info.threads[c.tid].pid = c.pid;
  }
  void operator()(const TaskRecord& t) {
    names.on_task(t);
    info.threads[t.tid].pid = t.pid;
  }
  // Each thread's last name (after its last exec or rename).
  void name_threads() {
    for (auto& [tid, t] : info.threads) t.comm = names.name(tid);
  }
  void operator()(const LostRecord& l) { info.lost += l.count; }
  void operator()(const ThrottleRecord& th) { info.throttles += th.throttled; }
  void operator()(const EndRecord& e) {
    info.end_json = e.json;
    note_namespace_files(e.json);
  }
  void operator()(const ImageRecord& img) {
    if (img.name == kKallsymsImageName) {
      info.kernel_symbols_bytes += img.bytes.size();
      info.kernel_symbols += static_cast<uint64_t>(std::count(img.bytes.begin(), img.bytes.end(), '\n'));
    }
    if (auto pid = pid_of_perf_map_image(img.name)) info.perf_map_bytes[*pid] += img.bytes.size();
    const std::string prefix = embedded_file_image_name("");
    if (!img.name.starts_with(prefix)) return;
    info.binaries[img.name.substr(prefix.size())].embedded_bytes = img.bytes.size();
    info.embedded->add_image(img.name, std::vector<uint8_t>(img.bytes.begin(), img.bytes.end()));
  }
  void operator()(const SwitchRecord& sw) { info.switch_outs += sw.out; }
  void operator()(const OffCpuRepeatRecord&) { ++info.off_cpu_repeats; }
  void operator()(const FlushRecord&) {}

  // The recorder's notes on files of processes in other mount namespaces.
  void note_namespace_files(const std::string& end_json) {
    const nlohmann::json end = nlohmann::json::parse(end_json, nullptr, /*allow_exceptions=*/false);
    if (!end.is_object() || !end.contains("namespace_files") || !end["namespace_files"].is_array()) return;
    for (const nlohmann::json& n : end["namespace_files"]) {
      if (!n.is_object() || !n.value("path", nlohmann::json()).is_string()) continue;
      BinaryInfo& b = info.binaries[n["path"].get<std::string>()];
      b.in_other_namespace = true;
      b.found_at = string_field(n, "found_at");
      b.mount_ns = string_field(n, "mount_ns");
    }
  }
  static std::string string_field(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  }
};

// A source that shows each record to `seen` as its reader takes it, so that
// the unwinder and info's collector share one pass over the file.
class WatchedSource final : public RecordSource {
 public:
  WatchedSource(RecordSource& source, std::function<void(const Record&)> seen)
      : source_(source), seen_(std::move(seen)) {}

  const RecordingHeader& header() const override { return source_.header(); }
  std::optional<Record> next() override {
    std::optional<Record> record = source_.next();
    if (record) seen_(*record);
    return record;
  }
  const ReadStatus& status() const override { return source_.status(); }
  const std::string& path() const override { return source_.path(); }
  SourceFormat format() const override { return source_.format(); }
  std::vector<std::string> events() const override { return source_.events(); }
  const RecordedKernel* recorded_kernel() const override { return source_.recorded_kernel(); }
  std::unique_ptr<RecordSource> reread() const override { return source_.reread(); }

 private:
  RecordSource& source_;
  std::function<void(const Record&)> seen_;
};

RecordingInfo start_info(const RecordSource& reader) {
  RecordingInfo info;
  info.header = reader.header();
  info.format = reader.format();
  info.events = reader.events();
  return info;
}

UnwindQuality unwind_every_sample(RecordSource& reader, const UnwindOptions& options) {
  UnwindOptions every_file = options;
  every_file.open_every_mapping = true;  // info reports on every binary, sampled or not
  RecordingUnwinder unwinder(every_file);
  unwinder.run(reader, [](const UnwoundSample&) {});
  return UnwindQuality{unwinder.stats(), options.unwinder, unwinder.warnings(), unwinder.archive_supplied(),
                       unwinder.build_id_cache_supplied()};
}

}  // namespace

RecordingInfo collect_info(RecordSource& reader) {
  RecordingInfo info = start_info(reader);
  InfoCollector collect{info};
  while (auto rec = reader.next()) collect.add(*rec);
  collect.name_threads();
  info.status = reader.status();
  return info;
}

UnwindQuality measure_unwinding(const std::string& recording, const UnwindOptions& options) {
  return unwind_every_sample(*open_record_source(recording), options);
}

void inspect_binaries(RecordingInfo& info, const InfoOptions& options) {
  BinaryCache& binaries = *info.embedded;
  std::vector<std::string> paths;
  for (auto& [path, b] : info.binaries) {
    if (!b.executable || is_anonymous_path(path) || path.starts_with("[")) continue;
    b.report = inspect_binary(path, b.build_id_bytes, binaries, options.symbols);
    paths.push_back(path);
  }
  const auto packages = debian_packages_owning(paths, options.dpkg_info_dir);
  for (const std::string& path : paths) {
    BinaryInfo& b = info.binaries[path];
    if (auto it = packages.find(path); it != packages.end()) b.package = it->second;
    b.advice = binary_advice(*b.report, b.package);
  }
}

InfoResult run_info(const std::string& recording, const InfoOptions& options) {
  return run_info(RecordingBytes::open(recording, "recording"), options);
}

InfoResult run_info(std::shared_ptr<const RecordingBytes> file, const InfoOptions& options) {
  InfoResult result;
  const std::unique_ptr<RecordSource> reader = open_record_source(std::move(file));
  const std::shared_ptr<const BinaryArchive> archive = find_archive(reader->path(), options.symbols.archive_path);
  InfoOptions with = options;
  with.unwind.archive = with.symbols.archive = archive;
  with.unwind.build_id_cache = options.symbols.build_id_cache;
  if (options.unwind_quality) {  // one pass: the collector sees each record the unwinder reads
    result.recording = start_info(*reader);
    InfoCollector collect{result.recording};
    WatchedSource watched(*reader, [&](const Record& r) { collect.add(r); });
    UnwindQuality quality = unwind_every_sample(watched, with.unwind);
    collect.name_threads();
    result.recording.status = reader->status();
    if (result.recording.samples > 0) result.unwinding = std::move(quality);
  } else {
    result.recording = collect_info(*reader);
  }
  if (archive) {
    result.archive_path = archive->path();
    for (const ArchiveEntry& e : archive->entries())
      ++(e.kind == ArchiveKind::kBinary ? result.archive_binaries : result.archive_debuginfo);
    result.recording.embedded->use_archive(archive);
  }
  if (options.symbols.build_id_cache) result.recording.embedded->use_build_id_cache(options.symbols.build_id_cache);
  if (options.inspect_binaries) inspect_binaries(result.recording, with);
  return result;
}

}  // namespace swprof
