#include "common/readable_by.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace swprof {
namespace {

constexpr unsigned kRead = 4, kSearch = 1;
constexpr const char* kAccessAcl = "system.posix_acl_access";

// Whether an xattr call's answer says there is an access ACL, or may be.
bool acl_answer(ssize_t size) { return size >= 0 || (errno != ENODATA && errno != ENOTSUP && errno != EOPNOTSUPP); }

std::optional<std::vector<gid_t>> groups_of(uid_t uid) {
  std::vector<char> buffer(16384);
  struct passwd pw, *found = nullptr;
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) != 0 || !found) return std::nullopt;
  std::vector<gid_t> groups(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    int n = static_cast<int>(groups.size());
    if (getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) >= 0) {
      groups.resize(static_cast<size_t>(n));
      return groups;
    }
    groups.resize(static_cast<size_t>(n) > groups.size() ? static_cast<size_t>(n) : 2 * groups.size());
  }
  return std::nullopt;
}

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

ReadableBy::ReadableBy(uid_t uid) : uid_(uid) {
  if (uid != 0) groups_ = groups_of(uid);
}

// Why the user lacks the `need` bit on the file `st` (named `what`), or "".
std::string ReadableBy::lacks(const struct stat& st, bool has_acl, unsigned need, const std::string& what) const {
  if (uid_ == 0) return "";
  unsigned bits = 0;
  if (st.st_uid == uid_) bits = (st.st_mode >> 6) & 7;
  else if (has_acl) return what + " has an access ACL";
  else if (!groups_) bits = (st.st_mode >> 3) & st.st_mode & 7;  // a member of its group or not: both must allow
  else if (std::find(groups_->begin(), groups_->end(), st.st_gid) != groups_->end()) bits = (st.st_mode >> 3) & 7;
  else bits = st.st_mode & 7;
  if (bits & need) return "";
  return what + " is mode " + mode_text(st.st_mode) + ", owned by uid " + std::to_string(st.st_uid) + " and gid " +
         std::to_string(st.st_gid);
}

std::string ReadableBy::why_not(int fd) const {
  if (uid_ == 0) return "";
  struct stat st;
  if (fstat(fd, &st) != 0) return "it cannot be looked at";
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  std::string path(4096, '\0');
  const ssize_t n = readlink(link, path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size() || path[0] != '/') return "where it is cannot be told";
  path.resize(static_cast<size_t>(n));
  if (std::string problem = lacks(st, acl_answer(fgetxattr(fd, kAccessAcl, nullptr, 0)), kRead, path);
      !problem.empty())
    return problem;
  // Every folder above it, from the root down.
  for (size_t slash = 0; slash != std::string::npos && slash < path.size(); slash = path.find('/', slash + 1)) {
    const std::string folder = slash == 0 ? "/" : path.substr(0, slash);
    struct stat dir;
    if (::stat(folder.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode)) return "folder " + folder + " cannot be looked at";
    if (std::string problem =
            lacks(dir, acl_answer(getxattr(folder.c_str(), kAccessAcl, nullptr, 0)), kSearch, "folder " + folder);
        !problem.empty())
      return problem;
  }
  return "";
}

}  // namespace swprof
