// RecordingWriter's file: a recording holds raw copies of user stacks (what
// a stack buffer held: a password, a key) and real kernel addresses, so it is
// readable only by its owner however it came to be written; what was at its
// path is kept as PATH.old (keep_previous_recording). Its content round trip
// is tested in recording_file_test.cpp.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "support/read_file.h"
#include "support/record_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A finalized recording with one sample.
void write_small(const std::string& path) {
  RecordingWriter w(path, record_header(1024, {"./app"}));
  w.write(make_mapping(1, "/usr/bin/app", true));
  auto sample = make_sample(100, 10, 0x7ff000010000, std::vector<uint8_t>(256, 0x5a));
  w.write(sample.view);
  w.finish(EndRecord{R"({"samples":1})"});
}

// `text` in a file readable by everyone, as an older swprof or a person left it.
void write_file(const std::string& path, const std::string& text) {
  write_prefix(path, std::vector<char>(text.begin(), text.end()), text.size());
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode;
}

bool reads_back_whole(const std::string& path) {
  RecordingReader reader(path);
  while (reader.next()) {
  }
  return reader.status().ok() && reader.status().finalized;
}

// Sets the umask for one scope.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t old_;
};

}  // namespace

TEST_CASE("a new recording is readable only by its owner, whatever the umask", "[recording_writer]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  {
    ScopedUmask open_umask(0);
    write_small(path);
  }
  CHECK((mode_of(path) & 07777) == 0600);
  CHECK(reads_back_whole(path));
}

TEST_CASE("a recording written into a file others can read ends readable only by its owner", "[recording_writer]") {
  TempDir dir;
  const std::string target = dir.file("target.swprof"), link = dir.file("link.swprof");
  SECTION("through a symbolic link to it") {
    write_file(target, std::string(100000, 'x'));  // longer than the recording: its tail must go
    REQUIRE(::symlink("target.swprof", link.c_str()) == 0);
    write_small(link);
    CHECK(S_ISLNK(mode_of(link)));
  }
  SECTION("an empty one") {
    write_file(target, "");
    write_small(target);
  }
  CHECK((mode_of(target) & 07777) == 0600);
  CHECK(reads_back_whole(target));
}

TEST_CASE("a recording that cannot be made private keeps what the file held", "[recording_writer]") {
  TempDir dir;
  REQUIRE(::chmod(dir.path().c_str(), 0711) == 0);  // another user reaches the file
  const std::string path = dir.file("theirs.swprof");
  write_file(path, "someone else's bytes");
  REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);  // nobody's, writable by us through its mode
  REQUIRE(::chmod(path.c_str(), 0666) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Not root and not the owner: the mode cannot change (root could).
    if (::setgid(65533) != 0 || ::setuid(65533) != 0) _exit(3);
    try {
      write_small(path);
    } catch (const Error& e) {
      _exit(std::string(e.what()).find("cannot be made readable only by its owner") != std::string::npos ? 0 : 4);
    }
    _exit(5);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read_file(path) == "someone else's bytes");
}

TEST_CASE("the file a new recording replaces is kept as PATH.old", "[recording_writer]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof"), old = path + ".old";
  SECTION("a recording, over an older PATH.old") {
    write_small(path);
    const std::string bytes = read_file(path);
    write_file(old, "an older one");
    CHECK(previous_recording_name(path) == old);
    CHECK(keep_previous_recording(path) == old);
    CHECK(read_file(old) == bytes);
    CHECK_FALSE(std::filesystem::exists(path));
  }
  SECTION("nothing there, or an empty file: nothing to keep") {
    CHECK(keep_previous_recording(path) == std::nullopt);
    write_file(path, "");
    CHECK(keep_previous_recording(path) == std::nullopt);
    CHECK(std::filesystem::exists(path));
    CHECK_FALSE(std::filesystem::exists(old));
  }
  SECTION("a symbolic link is written through, not moved") {
    write_file(dir.file("target"), "kept in place");
    REQUIRE(::symlink("target", path.c_str()) == 0);
    CHECK(keep_previous_recording(path) == std::nullopt);
    CHECK(S_ISLNK(mode_of(path)));
    CHECK_FALSE(std::filesystem::exists(old));
  }
  SECTION("a PATH.old that is a directory: one clear error, the file where it was") {
    write_file(path, "kept");
    REQUIRE(::mkdir(old.c_str(), 0755) == 0);
    CHECK_THROWS_WITH(keep_previous_recording(path),
                      "cannot keep the previous recording '" + path + "' as '" + old + "': Is a directory");
    CHECK(read_file(path) == "kept");
  }
}
