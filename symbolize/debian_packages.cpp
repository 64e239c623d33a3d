#include "symbolize/debian_packages.h"

#include <filesystem>
#include <fstream>
#include <unordered_map>

namespace swprof {
namespace {

// The merged folders: each on the left is a link to the one on the right.
constexpr std::pair<const char*, const char*> kMerged[] = {
    {"/bin/", "/usr/bin/"}, {"/sbin/", "/usr/sbin/"}, {"/lib/", "/usr/lib/"},
    {"/lib32/", "/usr/lib32/"}, {"/lib64/", "/usr/lib64/"}, {"/libx32/", "/usr/libx32/"},
};

// "libc6:amd64.list" -> "libc6".
std::string package_of_list(const std::filesystem::path& list) {
  const std::string stem = list.stem().string();
  return stem.substr(0, stem.find(':'));
}

}  // namespace

std::string usrmerge_alias(const std::string& path) {
  for (const auto& [root, usr] : kMerged) {
    if (path.starts_with(usr)) return root + path.substr(std::string(usr).size());
    if (path.starts_with(root)) return usr + path.substr(std::string(root).size());
  }
  return "";
}

std::map<std::string, std::string> debian_packages_owning(const std::vector<std::string>& paths,
                                                          const std::string& dpkg_info_dir) {
  std::unordered_map<std::string, std::string> wanted;  // listed name -> asked path
  for (const std::string& p : paths) {
    wanted.emplace(p, p);
    if (const std::string alias = usrmerge_alias(p); !alias.empty()) wanted.emplace(alias, p);
  }
  std::map<std::string, std::string> owners;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dpkg_info_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".list" || !it->is_regular_file(ec)) continue;
    std::ifstream in(it->path());
    for (std::string line; std::getline(in, line);)
      if (auto hit = wanted.find(line); hit != wanted.end()) owners.emplace(hit->second, package_of_list(it->path()));
    if (owners.size() == paths.size()) break;
  }
  return owners;
}

}  // namespace swprof
