// ReadableBy: another user's access to a file, judged from mode bits, owners
// and groups, checked against what the kernel lets that user open.

#include "common/readable_by.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uid_t kNobody = 65534;

// Whether uid and gid 65534 may open `path` for reading, as the kernel says.
bool kernel_lets_nobody_read(const std::string& path) {
  const pid_t pid = fork();
  if (pid == 0) {
    const gid_t group = kNobody;
    if (setgroups(1, &group) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(2);
    const int fd = ::open(path.c_str(), O_RDONLY);
    _exit(fd >= 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string why_not(const ReadableBy& user, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string why = user.why_not(fd);
  ::close(fd);
  return why;
}

// A file with `text`, `mode`, owned by uid and gid.
std::string make_file(const std::string& path, mode_t mode, uid_t uid = 0, gid_t gid = 0) {
  std::ofstream(path) << "bytes";
  REQUIRE(::chown(path.c_str(), uid, gid) == 0);
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

// An access ACL (the kernel's xattr form) giving the owner rw, user
// `denied` nothing, the group and others r.
std::vector<uint8_t> acl_denying(uint32_t denied) {
  std::vector<uint8_t> out;
  auto put = [&](auto v) {
    uint8_t b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    out.insert(out.end(), b, b + sizeof v);
  };
  auto entry = [&](uint16_t tag, uint16_t perm, uint32_t id) { put(tag), put(perm), put(id); };
  put(uint32_t{2});  // version
  entry(0x01, 6, UINT32_MAX);  // the file's owner
  entry(0x02, 0, denied);      // a named user
  entry(0x04, 4, UINT32_MAX);  // the file's group
  entry(0x10, 4, UINT32_MAX);  // the mask
  entry(0x20, 4, UINT32_MAX);  // others
  return out;
}

}  // namespace

TEST_CASE("readable by: another user's access follows the owner, group and other bits of the file and its folders",
          "[readable_by]") {
  struct passwd* pw = getpwuid(kNobody);
  if (geteuid() != 0 || !pw || pw->pw_gid != kNobody) {
    WARN("needs root, and uid 65534 with group 65534; skipped");
    return;
  }
  TempDir dir;
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  std::filesystem::create_directory(dir.file("closed"));
  REQUIRE(::chmod(dir.file("closed").c_str(), 0700) == 0);
  const ReadableBy nobody(kNobody);
  struct Case {
    std::string path;
    bool readable;
    std::string why;
  };
  const std::vector<Case> cases = {
      {make_file(dir.file("public"), 0644), true, ""},
      {make_file(dir.file("private"), 0600), false, dir.file("private") + " is mode 0600, owned by uid 0 and gid 0"},
      {make_file(dir.file("group"), 0640, 0, kNobody), true, ""},
      {make_file(dir.file("not-group"), 0604, 0, kNobody), false, "is mode 0604"},  // the group's bits decide
      {make_file(dir.file("own"), 0400, kNobody, 0), true, ""},
      {make_file(dir.file("not-own"), 0044, kNobody, 0), false, "is mode 0044"},  // the owner's bits decide
      {make_file(dir.file("closed/file"), 0644), false,
       "folder " + dir.file("closed") + " is mode 0700, owned by uid 0 and gid 0"},
  };
  for (const Case& c : cases) {
    INFO(c.path);
    CHECK(kernel_lets_nobody_read(c.path) == c.readable);
    const std::string why = why_not(nobody, c.path);
    CHECK(why.empty() == c.readable);
    CHECK(why.find(c.why) != std::string::npos);
  }
  // Through a link, the file is judged where it is.
  REQUIRE(::symlink(dir.file("closed/file").c_str(), dir.file("link").c_str()) == 0);
  CHECK(why_not(nobody, dir.file("link")).find("folder " + dir.file("closed")) != std::string::npos);
  // Root reads everything; the file's owner by its owner's bits.
  CHECK(why_not(ReadableBy(0), dir.file("closed/file")).empty());

  // An ACL can take away what the mode bits show: a doubt, so a "could not".
  const std::string acl = make_file(dir.file("acl"), 0644);
  const std::vector<uint8_t> value = acl_denying(kNobody);
  if (::setxattr(acl.c_str(), "system.posix_acl_access", value.data(), value.size(), 0) != 0) {
    WARN("this file system takes no ACLs; that part skipped");
    return;
  }
  CHECK_FALSE(kernel_lets_nobody_read(acl));
  CHECK(why_not(nobody, acl) == acl + " has an access ACL");
  CHECK(why_not(ReadableBy(kNobody + 1), acl) == acl + " has an access ACL");
}
