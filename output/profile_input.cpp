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

// The first bytes of a file that tell its kind: a folded stack's first line
// fits in them unless it is very deep.
constexpr size_t kHeadBytes = 4096;

// Up to kHeadBytes from the start of `path`: fewer only at its end.
std::string read_head(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ENOENT && path == "swprof.data")
      throw Error("no recording 'swprof.data' here: run 'swprof record' first or name a file");
    throw Error("cannot open '" + path + "': " + errno_text(err));
  }
  std::string head(kHeadBytes, '\0');
  size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = read(fd.get(), head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read '" + path + "': " + errno_text(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  head.resize(got);
  return head;
}

bool is_elf(std::string_view head) { return head.substr(0, 4) == "\x7f" "ELF"; }

// What `head` (of a file of kind kOther) is, for the error message.
std::string what_else(std::string_view head) {
  if (is_elf(head)) return "it is an ELF file (a program? 'swprof record PROGRAM' profiles one)";
  return why_not_folded(head, head.size() < kHeadBytes);
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
    if (c == '{') return InputKind::kJsonProfile;
    break;
  }
  if (is_elf(head) || !why_not_folded(head, head.size() < kHeadBytes).empty()) return InputKind::kOther;
  return InputKind::kFolded;
}

void require_recording_for_filters(bool filters_given, const std::string& path, InputKind kind) {
  if (kind == InputKind::kRecording || !filters_given) return;
  throw Error("filters and thread options need a recording; '" + path + "' is " +
              (kind == InputKind::kJsonProfile ? "a JSON profile" : "folded stacks"));
}

Profile load_profile_input(const std::string& path, InputKind kind, const ProfileInputOptions& options) {
  if (kind == InputKind::kOther)
    throw Error("'" + path + "' is not a recording" +
                (options.folded ? ", a JSON profile or folded stacks" : " or a JSON profile") + ": " +
                what_else(read_head(path)));
  if (kind == InputKind::kJsonProfile || (kind == InputKind::kFolded && options.folded)) {
    require_recording_for_filters(options.filters_given, path, kind);
    return kind == InputKind::kJsonProfile ? read_json_profile(path) : folded_profile(path);
  }
  return build_profile(path, options.recording ? options.recording() : ProfileOptions{});
}

}  // namespace swprof
