#include "output/profile_input.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "output/report.h"
#include "support/profile_fixture.h"
#include "support/temp_dir.h"
#include "support/thread_recording.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("profile input: the kind from the first bytes", "[profile_input]") {
  TempDir dir;
  const std::string recording = dir.file("r.swprof");
  write_thread_recording(recording);
  CHECK(detect_input(recording) == InputKind::kRecording);
  CHECK(detect_input(write_text(dir, "p.json", " \n\t{\"a\": 1}")) == InputKind::kJsonProfile);
  CHECK(detect_input(write_text(dir, "s.folded", "main;a 3\n")) == InputKind::kFolded);
  CHECK(detect_input(write_text(dir, "empty", "")) == InputKind::kFolded);
  CHECK(detect_input(write_text(dir, "work.py", "import hashlib\n")) == InputKind::kOther);
  CHECK(detect_input(write_text(dir, "app", std::string("\x7f" "ELF\x02\x01\x01\0", 8))) == InputKind::kOther);
  // A stack deeper than the head is judged by the reader.
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "frame_" + std::to_string(i) + ";";
  CHECK(detect_input(write_text(dir, "deep.folded", deep + "leaf 1\n")) == InputKind::kFolded);
  CHECK(error_of([&] { detect_input(dir.file("missing")); }).find("cannot open '" + dir.file("missing")) == 0);
}

TEST_CASE("profile input: filters need a recording", "[profile_input]") {
  CHECK_NOTHROW(require_recording_for_filters(true, "r.swprof", InputKind::kRecording));
  CHECK_NOTHROW(require_recording_for_filters(false, "p.json", InputKind::kJsonProfile));
  CHECK(error_of([] { require_recording_for_filters(true, "p.json", InputKind::kJsonProfile); }) ==
        "filters and thread options need a recording; 'p.json' is a JSON profile");
  CHECK(error_of([] { require_recording_for_filters(true, "s.folded", InputKind::kFolded); }) ==
        "filters and thread options need a recording; 's.folded' is folded stacks");
}

TEST_CASE("profile input: a recording is built with the options made for it", "[profile_input]") {
  TempDir dir;
  const std::string recording = dir.file("r.swprof");
  write_thread_recording(recording);
  int made = 0;
  ProfileInputOptions input;
  input.recording = [&] {
    ++made;
    ProfileOptions o;
    o.unwind.threads = 1;
    o.filter.tids = {101};
    o.symbols.kallsyms_path = dir.file("none");
    return o;
  };
  const Profile p = load_profile_input(recording, InputKind::kRecording, input);
  CHECK(made == 1);
  CHECK(p.source == recording);
  CHECK(p.samples_read == 4);
  CHECK(p.samples_kept == 2);
}

TEST_CASE("profile input: a recording is opened once, its kind told and its profile built from the open file",
          "[profile_input]") {
  TempDir dir;
  const std::string recording = dir.file("r.swprof");
  write_noise_recording(recording);
  const uint64_t size = std::filesystem::file_size(recording);
  const ProfileInputFile input = open_profile_input(recording);
  CHECK(input.kind == InputKind::kRecording);
  REQUIRE(::unlink(recording.c_str()) == 0);  // only the open file is left
  ProfileInputOptions options;
  options.recording = [&] {
    ProfileOptions o;
    o.unwind.threads = 1;
    return o;
  };
  const Profile p = load_profile_input(input, options);
  CHECK(p.source == recording);
  CHECK(p.samples_read == 200);
  CHECK(input.file->bytes_read() == size);  // every byte once, its head included
}

TEST_CASE("profile input: a JSON profile is read back, without recording options", "[profile_input]") {
  TempDir dir;
  std::ostringstream json;
  write_json_profile(sample_profile(), json);
  const std::string path = write_text(dir, "p.json", json.str());
  int made = 0;
  ProfileInputOptions input;
  input.recording = [&] {
    ++made;
    return ProfileOptions{};
  };
  const Profile p = load_profile_input(path, InputKind::kJsonProfile, input);
  CHECK(made == 0);
  CHECK(p.samples_kept == 100);
  CHECK(p.tree.total() == 100);
  input.filters_given = true;
  CHECK(error_of([&] { load_profile_input(path, InputKind::kJsonProfile, input); }).find("need a recording") !=
        std::string::npos);
}

TEST_CASE("profile input: folded stacks only where they are an input", "[profile_input]") {
  TempDir dir;
  const std::string path = write_text(dir, "s.folded", "main;a 3\nmain;b 2\n");
  ProfileInputOptions input;
  input.folded = true;
  const Profile p = load_profile_input(path, InputKind::kFolded, input);
  CHECK(p.source == path);
  CHECK(p.tree.total() == 5);
  CHECK(p.samples_kept == 5);
  input.folded = false;  // read as a recording, which it is not
  CHECK(error_of([&] { load_profile_input(path, InputKind::kFolded, input); }).find("is not a swprof recording") !=
        std::string::npos);
}

TEST_CASE("profile input: another file says what it is", "[profile_input]") {
  TempDir dir;
  const std::string script = write_text(dir, "work.py", "import hashlib\n\nprint(hashlib.sha1(b'').hexdigest())\n");
  ProfileInputOptions input;
  input.folded = true;
  CHECK(error_of([&] { load_profile_input(script, InputKind::kOther, input); }) ==
        "'" + script + "' is not a recording, a JSON profile or folded stacks: its first line \"import hashlib\" does not "
        "end with a sample count");
  input.folded = false;
  CHECK(error_of([&] { load_profile_input(script, InputKind::kOther, input); }) ==
        "'" + script + "' is not a recording or a JSON profile: its first line \"import hashlib\" does not end with a "
        "sample count");
  const std::string program = write_text(dir, "app", std::string("\x7f" "ELF\x02\x01\x01\0", 8));
  CHECK(error_of([&] { load_profile_input(program, InputKind::kOther, input); }).find(
            "is not a recording or a JSON profile: it is an ELF file (a program? 'swprof record PROGRAM' profiles one)") !=
        std::string::npos);
}
