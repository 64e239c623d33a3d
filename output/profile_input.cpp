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

// The first bytes of a file that tell its kind (RecordingBytes::head): a
// folded stack's first line fits in them unless it is very deep.
constexpr size_t kHeadBytes = RecordingBytes::kHeadBytes;

std::shared_ptr<const RecordingBytes> open_input(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ENOENT && path == "swprof.data")
      throw Error("no recording 'swprof.data' here: run 'swprof record' first or name a file");
    throw Error("cannot open '" + path + "': " + errno_text(err));
  }
  return RecordingBytes::adopt(std::move(fd), path, "file");
}

std::string_view text_of(Bytes head) { return std::string_view(reinterpret_cast<const char*>(head.data()), head.size()); }

// Up to kHeadBytes from the start of `path`: fewer only at its end.
std::string read_head(const std::string& path) { return std::string(text_of(open_input(path)->head())); }

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

namespace {

InputKind kind_of(std::string_view head) {
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

}  // namespace

ProfileInputFile open_profile_input(const std::string& path) {
  ProfileInputFile input;
  input.path = path;
  input.file = open_input(path);
  input.kind = kind_of(text_of(input.file->head()));
  return input;
}

InputKind detect_input(const std::string& path) { return open_profile_input(path).kind; }

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

Profile load_profile_input(const ProfileInputFile& input, const ProfileInputOptions& options) {
  if (input.kind != InputKind::kRecording || !input.file) return load_profile_input(input.path, input.kind, options);
  return build_profile(input.file, options.recording ? options.recording() : ProfileOptions{});
}

}  // namespace swprof
