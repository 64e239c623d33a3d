// `swprof info FILE`.

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/symbolize_options.h"
#include "cli/unwind_options.h"
#include "common/error.h"
#include "common/format.h"
#include "common/same_file.h"
#include "common/text_escape.h"
#include "output/info_text.h"

namespace swprof::cli {
namespace {

// --off-cpu / --wall recordings: what the off-CPU events left in the file.
void print_off_cpu(const RecordingInfo& info) {
  if (!info.header.off_cpu && !info.off_cpu_samples && !info.switch_outs && !info.off_cpu_repeats) return;
  const auto& o = info.header.off_cpu_settings;
  std::printf("\noff-CPU:      %llu samples with stacks, %llu switch-outs, %llu short waits as repeats\n",
              static_cast<unsigned long long>(info.off_cpu_samples), static_cast<unsigned long long>(info.switch_outs),
              static_cast<unsigned long long>(info.off_cpu_repeats));
  if (info.header.off_cpu)
    std::printf("              stack size %u bytes, every %u switch-outs, repeats below %.3f ms; reports weigh %s\n",
                o.stack_size, o.every, static_cast<double>(o.min_ns) / 1e6, terminal_safe(info.header.default_weight).c_str());
  if (info.off_cpu_samples)
    std::printf("              %llu (%.1f%%) off-CPU stack copies filled all %u bytes\n",
                static_cast<unsigned long long>(info.off_cpu_truncated), percent(info.off_cpu_truncated, info.off_cpu_samples),
                o.stack_size);
}

void print_info(const InfoResult& result) {
  std::fputs(format_info(result.recording).c_str(), stdout);
  print_off_cpu(result.recording);
  std::fputs(format_archive(result).c_str(), stdout);
  if (result.unwinding) {
    std::fputs(format_unwind_quality(result.unwinding->stats, result.unwinding->unwinder).c_str(), stdout);
    for (const auto& w : result.unwinding->warnings)
      std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());
  }
  std::fflush(stdout);
}

// A damaged file is an error (exit 2), one not finalized a warning.
int report_read_status(const std::string& path, const ReadStatus& st, SourceFormat format) {
  const bool broken = st.state == ReadStatus::State::kTruncated || st.state == ReadStatus::State::kCorrupt;
  if (broken && format == SourceFormat::kPerfData) {
    std::fprintf(stderr, "swprof: error: perf.data file '%s' is %s: %s; read %llu records (%llu of %llu bytes)\n",
                 terminal_safe(path).c_str(), st.state == ReadStatus::State::kTruncated ? "truncated" : "corrupt",
                 terminal_safe(st.problem).c_str(), static_cast<unsigned long long>(st.records),
                 static_cast<unsigned long long>(st.good_bytes), static_cast<unsigned long long>(st.file_bytes));
    return kExitUsage;
  }
  if (broken) {
    std::fprintf(stderr, "swprof: error: recording '%s' is %s: %s; read %llu records from %llu whole chunks (%llu of %llu bytes)\n",
                 terminal_safe(path).c_str(), st.state == ReadStatus::State::kTruncated ? "truncated" : "corrupt",
                 terminal_safe(st.problem).c_str(),
                 static_cast<unsigned long long>(st.records), static_cast<unsigned long long>(st.chunks),
                 static_cast<unsigned long long>(st.good_bytes), static_cast<unsigned long long>(st.file_bytes));
    return kExitUsage;
  }
  if (!st.finalized && format == SourceFormat::kRecording)
    std::fprintf(stderr, "swprof: warning: recording '%s' was not finalized (swprof stopped abruptly); all %llu whole chunks were read\n",
                 terminal_safe(path).c_str(), static_cast<unsigned long long>(st.chunks));
  return kExitOk;
}

}  // namespace

std::function<int()> add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "describe a recording: header, records, threads, binaries, stack sizes");
  auto path = std::make_shared<std::string>("swprof.data");
  auto unwind = std::make_shared<UnwindArgs>();
  auto no_unwind = std::make_shared<bool>(false);
  auto archive = std::make_shared<std::string>();
  auto no_cache = std::make_shared<bool>(false);
  sub->add_option("file", *path, "recording file (default swprof.data)");
  sub->add_option("--archive", *archive, "the recording's archive of binaries (default: FILE.archive when it exists)");
  sub->add_flag("--no-cache", *no_cache,
                "do not read binaries missing or changed here from the build-id cache ($XDG_CACHE_HOME/swprof)");
  sub->add_flag("--no-unwind", *no_unwind, "skip unwinding (no unwind-quality section)");
  unwind->add_to(sub);
  return [path, unwind, no_unwind, archive, no_cache]() {
    check_output_is_not_an_input("", with_archives({*path}, *archive));  // standard output
    InfoOptions options;
    options.unwind = unwind->to_options();
    options.unwind_quality = !*no_unwind;
    options.inspect_binaries = true;
    options.symbols.archive_path = *archive;
    if (!*no_cache) options.symbols.build_id_cache = user_build_id_cache();
    SymbolizeArgs().apply_debuginfod();  // never waits on a debuginfod server
    const InfoResult result = run_info(*path, options);
    print_info(result);
    return report_read_status(*path, result.recording.status, result.recording.format);
  };
}

}  // namespace swprof::cli
