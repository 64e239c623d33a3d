#include "sampler/process_root.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "common/regular_file.h"
#include "sampler/proc.h"

namespace swprof {
namespace {

std::string read_link(const std::string& path) {
  char buf[256];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A regular file whose build-id, when `want` is known, is `want`.
bool has_build_id(const std::string& path, const BuildId& want) {
  if (!is_regular_file(path)) return false;
  return want.empty() || read_build_id(path).value_or(BuildId{}) == want;
}

std::string map_files_name(uint64_t start, uint64_t end) {
  char name[48];
  snprintf(name, sizeof name, "%" PRIx64 "-%" PRIx64, start, end);
  return name;
}

}  // namespace

std::string describe_via(ResolvedFile::Via via, uint32_t pid) {
  switch (via) {
    case ResolvedFile::Via::kHost: return "host";
    case ResolvedFile::Via::kProcRoot: return "/proc/" + std::to_string(pid) + "/root";
    case ResolvedFile::Via::kMapFiles: return "/proc/" + std::to_string(pid) + "/map_files";
  }
  return "host";
}

ProcessRoots::ProcessRoots(std::string proc) : proc_(std::move(proc)) { own_ns_ = read_link(proc_ + "/self/ns/mnt"); }

const std::string& ProcessRoots::mount_namespace(uint32_t pid) {
  auto it = ns_by_pid_.find(pid);
  if (it == ns_by_pid_.end()) it = ns_by_pid_.emplace(pid, read_link(pid_dir(pid) + "/ns/mnt")).first;
  return it->second;
}

bool ProcessRoots::same_file_on_host(const MappedFile& file) const {
  if (!file.build_id.empty()) return has_build_id(file.path, file.build_id);
  if (file.inode == 0) return false;  // nothing to compare: not provably the same file
  struct stat st {};
  return stat(file.path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == file.inode &&
         major(st.st_dev) == file.dev_major && minor(st.st_dev) == file.dev_minor;
}

std::optional<ResolvedFile> ProcessRoots::resolve(const MappedFile& file) {
  if (file.path.empty() || file.path[0] != '/') return std::nullopt;
  ResolvedFile out;
  out.mount_ns = mount_namespace(file.pid);
  const bool shared = out.mount_ns.empty() || out.mount_ns == own_ns_;
  if (shared ? is_regular_file(file.path) : same_file_on_host(file)) {
    out.open_path = file.path;
    return out;
  }
  if (shared) return std::nullopt;
  if (const std::string inside = pid_dir(file.pid) + "/root" + file.path; has_build_id(inside, file.build_id)) {
    out.open_path = inside;
    out.via = ResolvedFile::Via::kProcRoot;
    return out;
  }
  if (const std::string mapped = pid_dir(file.pid) + "/map_files/" + map_files_name(file.start, file.end);
      is_regular_file(mapped)) {
    out.open_path = mapped;
    out.via = ResolvedFile::Via::kMapFiles;
    return out;
  }
  return std::nullopt;
}

std::optional<std::string> ProcessRoots::perf_map_path(uint32_t pid) {
  const std::string& ns = mount_namespace(pid);
  if (ns.empty() || ns == own_ns_) return std::nullopt;
  auto status = read_text_file(pid_dir(pid) + "/status", 1u << 20);
  if (!status) return std::nullopt;
  auto nspid = parse_nspid(*status);
  if (!nspid) return std::nullopt;
  return pid_dir(pid) + "/root/tmp/perf-" + std::to_string(*nspid) + ".map";
}

std::optional<ResolvedFile> resolve_mapped_file(pid_t pid, const std::string& path, uint64_t start, uint64_t end) {
  ProcessRoots roots;
  MappedFile file;
  file.pid = static_cast<uint32_t>(pid);
  file.path = path;
  file.start = start;
  file.end = end;
  return roots.resolve(file);
}

std::optional<uint32_t> parse_nspid(const std::string& status_text) {
  std::istringstream lines(status_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("NSpid:")) continue;
    std::istringstream fields(line.substr(6));
    std::optional<uint32_t> last;
    uint64_t v = 0;
    while (fields >> v) last = static_cast<uint32_t>(v);
    return last;
  }
  return std::nullopt;
}

}  // namespace swprof
