#pragma once
// Whether another user could read a file: for a command one user (root)
// runs on a file another user wrote, such as `swprof archive` on a
// recording that names the files to copy, so that it copies only what that
// user could have read.
//
// The kernel cannot be asked for another user's access, so it is judged
// from the mode bits, owners and groups of the file and of every folder
// above where it is (the folders must be searchable), as the kernel judges
// them: the owner's bits for the file's owner, else the group's for a
// member of its group, else the others'. Anything that could change that
// answer is a "could not": an access ACL (except for the file's owner), a
// user without an entry in the user database (whose groups are not known:
// both the group's and the others' bits must allow), a folder that cannot
// be looked at. Root reads everything.

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace swprof {

class ReadableBy {
 public:
  // Looks the user's groups up once.
  explicit ReadableBy(uid_t uid);

  uid_t uid() const { return uid_; }
  // Why the user could not read the open file `fd`, or "" when it could
  // ("/srv/app is mode 0700, owned by uid 0 and gid 0"). The file is judged
  // by its inode and its folders where it is now (not where a path named
  // it), so a path changed after the file was opened cannot mislead.
  std::string why_not(int fd) const;

 private:
  std::string lacks(const struct stat& st, bool has_acl, unsigned need, const std::string& what) const;

  uid_t uid_;
  std::optional<std::vector<gid_t>> groups_;  // nullopt: not known
};

}  // namespace swprof
