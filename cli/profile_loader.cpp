// Loading the input of report and flamegraph: a recording (unwound,
// symbolized and filtered here) or a JSON profile.

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "cli/profile_options.h"
#include "common/error.h"
#include "common/text_escape.h"
#include "common/unique_fd.h"
#include "output/report.h"
#include "profile/info.h"
#include "recording/recording_format.h"

namespace swprof::cli {

InputKind detect_input(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ENOENT && path == "swprof.data")
      throw Error("no recording 'swprof.data' here: run 'swprof record' first or name a file");
    throw Error("cannot open '" + path + "': " + errno_text(err));
  }
  char head[64] = {};
  ssize_t n;
  do n = read(fd.get(), head, sizeof head);
  while (n < 0 && errno == EINTR);
  if (n < 0) throw Error("cannot read '" + path + "': " + errno_text(errno));
  if (n >= static_cast<ssize_t>(sizeof kRecordingMagic) && std::memcmp(head, kRecordingMagic, sizeof kRecordingMagic) == 0)
    return InputKind::kRecording;
  if (is_perf_data(head, static_cast<size_t>(n))) throw Error(perf_data_not_supported(path));
  for (ssize_t i = 0; i < n; ++i) {
    if (head[i] == ' ' || head[i] == '\n' || head[i] == '\t' || head[i] == '\r') continue;
    return head[i] == '{' ? InputKind::kJsonProfile : InputKind::kFolded;
  }
  return InputKind::kFolded;
}

void require_recording_for_filters(const ProfileArgs& args, const std::string& path, InputKind kind) {
  if (kind == InputKind::kRecording || !args.filters_given()) return;
  throw Error("filters and thread options need a recording; '" + path + "' is " +
              (kind == InputKind::kJsonProfile ? "a JSON profile" : "folded stacks"));
}

Profile load_profile(const std::string& path, InputKind kind, const ProfileArgs& args, const char* command) {
  if (kind == InputKind::kJsonProfile) {
    require_recording_for_filters(args, path, kind);
    return read_json_profile(path);
  }
  ProfileOptions options = args.to_options();
  args.symbols.apply_debuginfod();
  const bool tty = isatty(STDERR_FILENO);
  double last_shown = -1;
  if (tty)
    options.progress = [&](const ProfileProgress& p) {
      if (p.seconds - last_shown < 0.2) return;
      last_shown = p.seconds;
      const double pct = percent(p.bytes, p.file_bytes);
      std::fprintf(stderr, "\rswprof %s: %3.0f%% of the file, %" PRIu64 " samples, %.0f samples/s   ", command, pct,
                   p.samples, p.seconds > 0 ? static_cast<double>(p.samples) / p.seconds : 0.0);
    };
  Profile profile = build_profile(path, options);
  if (tty && last_shown >= 0) std::fprintf(stderr, "\r\033[K");
  const UnwindStats& u = profile.unwind;
  std::fprintf(stderr, "swprof %s: %" PRIu64 " samples", command, profile.samples_read);
  if (profile.samples_kept != profile.samples_read) std::fprintf(stderr, " (%" PRIu64 " kept)", profile.samples_kept);
  std::fprintf(stderr, " in %.2f s (%.0f samples/s), %.1f%% complete stacks\n", profile.build_seconds,
               profile.build_seconds > 0 ? static_cast<double>(profile.samples_read) / profile.build_seconds : 0.0,
               percent(u.complete, u.samples));
  for (const auto& w : profile.warnings) std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());
  return profile;
}

}  // namespace swprof::cli
