// Loading the input of report, flamegraph, diff and merge: the library loads
// it (output/profile_input.h); here is what a person sees meanwhile.

#include <unistd.h>

#include <cinttypes>
#include <cstdio>

#include "binary/capstone_library.h"
#include "cli/profile_options.h"
#include "common/error.h"
#include "common/format.h"
#include "common/text_escape.h"

namespace swprof::cli {
namespace {

// "\rswprof COMMAND: 42% of the file, N samples, R samples/s" on a terminal
// (the line cleared first: it may follow a longer "loading FILE…"),
// at most five times a second.
class ProgressLine {
 public:
  explicit ProgressLine(const char* command) : command_(command), tty_(isatty(STDERR_FILENO)) {}

  std::function<void(const ProfileProgress&)> callback() {
    if (!tty_) return {};
    return [this](const ProfileProgress& p) { show(p); };
  }

  // "swprof COMMAND: loading FILE…" until the first progress or clear().
  void announce(const std::string& path) {
    if (!tty_) return;
    std::fprintf(stderr, "\rswprof %s: loading %s\u2026", command_, terminal_safe(path).c_str());
    last_shown_ = 0;
  }

  void clear() const {
    if (tty_ && last_shown_ >= 0) std::fprintf(stderr, "\r\033[K");
  }

 private:
  void show(const ProfileProgress& p) {
    if (p.seconds - last_shown_ < 0.2) return;
    last_shown_ = p.seconds;
    std::fprintf(stderr, "\r\033[Kswprof %s: %3.0f%% of the file, %" PRIu64 " samples, %.0f samples/s   ", command_,
                 percent(p.bytes, p.file_bytes), p.samples,
                 p.seconds > 0 ? static_cast<double>(p.samples) / p.seconds : 0.0);
  }

  const char* command_;
  bool tty_;
  double last_shown_ = -1;
};

// Without `stacks` (nothing was unwound past the leaf), no share of complete ones.
void print_summary(const Profile& profile, const char* command, bool stacks) {
  const UnwindStats& u = profile.unwind;
  std::fprintf(stderr, "swprof %s: %" PRIu64 " samples", command, profile.samples_read);
  if (profile.samples_kept != profile.samples_read) std::fprintf(stderr, " (%" PRIu64 " kept)", profile.samples_kept);
  std::fprintf(stderr, " in %.2f s (%.0f samples/s)", profile.build_seconds,
               profile.build_seconds > 0 ? static_cast<double>(profile.samples_read) / profile.build_seconds : 0.0);
  if (stacks) std::fprintf(stderr, ", %.1f%% complete stacks", percent(u.complete, u.unwindable()));
  std::fprintf(stderr, "\n");
  for (const auto& w : profile.warnings) std::fprintf(stderr, "swprof: warning: %s\n", terminal_safe(w).c_str());
}

// A JSON profile or folded stacks keep the weight they were made with.
void check_weight(const Profile& profile, const ProfileArgs& args, const std::string& path) {
  const std::optional<WeightKind> asked = args.weight_kind();
  if (!asked || *asked == profile.weight_kind) return;
  throw Error("'" + path + "' is a profile of " + weight_kind_name(profile.weight_kind) + " weight: --weight " +
              weight_kind_name(*asked) + " needs the recording it was made from");
}

}  // namespace

Profile load_profile(const ProfileInputFile& input, ProfileArgs& args, const char* command, bool folded) {
  const std::string& path = input.path;
  static_cast<void>(args.weight_kind());  // a bad --weight fails before any work
  if (input.kind == InputKind::kRecording) preload_capstone();  // its decoders are needed from the first samples on
  ProgressLine progress(command);
  if (args.announce_loading) progress.announce(path);
  bool from_recording = false;
  ProfileInputOptions loading;
  loading.filters_given = args.filters_given();
  loading.folded = folded;
  loading.recording = [&] {
    ProfileOptions options = args.to_options();
    args.apply_symbols();
    options.progress = progress.callback();
    from_recording = true;
    return options;
  };
  Profile profile = load_profile_input(input, loading);
  if (!from_recording) {
    progress.clear();
    check_weight(profile, args, path);
    return profile;
  }
  progress.clear();
  print_summary(profile, command, !args.leaf_only);
  return profile;
}

}  // namespace swprof::cli
