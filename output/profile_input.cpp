#include "output/profile_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/unique_fd.h"
#include "output/folded_reader.h"
#include "output/report.h"
#include "recording/recording_format.h"

namespace swprof {
namespace {

// Up to 64 bytes from the start of `path`.
std::string read_head(const std::string& path) {
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
  return std::string(head, static_cast<size_t>(n));
}

Profile folded_profile(const std::string& path) {
  Profile p;
  p.source = path;
  p.tree = read_folded_file(path);
  p.samples_read = p.samples_kept = p.tree.total();
  return p;
}

}  // namespace

InputKind detect_input(const std::string& path) {
  const std::string head = read_head(path);
  if (head.size() >= sizeof kRecordingMagic && std::memcmp(head.data(), kRecordingMagic, sizeof kRecordingMagic) == 0)
    return InputKind::kRecording;
  if (is_perf_data(head.data(), head.size())) return InputKind::kRecording;  // read by PerfDataReader
  for (char c : head) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    return c == '{' ? InputKind::kJsonProfile : InputKind::kFolded;
  }
  return InputKind::kFolded;
}

void require_recording_for_filters(bool filters_given, const std::string& path, InputKind kind) {
  if (kind == InputKind::kRecording || !filters_given) return;
  throw Error("filters and thread options need a recording; '" + path + "' is " +
              (kind == InputKind::kJsonProfile ? "a JSON profile" : "folded stacks"));
}

Profile load_profile_input(const std::string& path, InputKind kind, const ProfileInputOptions& options) {
  if (kind == InputKind::kJsonProfile || (kind == InputKind::kFolded && options.folded)) {
    require_recording_for_filters(options.filters_given, path, kind);
    return kind == InputKind::kJsonProfile ? read_json_profile(path) : folded_profile(path);
  }
  return build_profile(path, options.recording ? options.recording() : ProfileOptions{});
}

}  // namespace swprof
