#pragma once
// Which Debian package installed a file, from dpkg's file lists
// (<dpkg info folder>/<package>[:<arch>].list, one installed path a line).
// Debian 12 is usrmerged: a file listed as /lib/x86_64-linux-gnu/libc.so.6
// is mapped from /usr/lib/x86_64-linux-gnu/libc.so.6, so each path is also
// looked up under its alias (/usr/lib <-> /lib, /usr/bin <-> /bin, ...).

#include <map>
#include <string>
#include <vector>

namespace swprof {

inline constexpr const char* kDpkgInfoDir = "/var/lib/dpkg/info";

// The other name of `path` on a usrmerged system, or "" when it has none.
std::string usrmerge_alias(const std::string& path);

// path -> package ("libc6", without the ":amd64") for each of `paths` some
// list names; one pass over the lists however many paths are asked for.
// Unreadable lists are skipped; no folder, no packages.
std::map<std::string, std::string> debian_packages_owning(const std::vector<std::string>& paths,
                                                          const std::string& dpkg_info_dir = kDpkgInfoDir);

}  // namespace swprof
