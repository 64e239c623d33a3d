#include "sampler/process_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "common/error.h"
#include "common/regular_file.h"
#include "sampler/proc.h"

namespace swprof {
namespace {

std::string read_link(const std::string& path) {
  char buf[256];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// Whether an opened file is the one `mapped` names: the same build-id when
// the mapping has one, else the same device and inode; without either,
// nothing proves it.
bool is_mapped_file(const RegularFile& opened, const MappedFile& mapped) {
  if (!mapped.build_id.empty()) return read_build_id_of_fd(opened.fd.get()).value_or(BuildId{}) == mapped.build_id;
  return mapped.inode != 0 && opened.inode == mapped.inode && major(opened.device) == mapped.dev_major &&
         minor(opened.device) == mapped.dev_minor;
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

bool ProcessRoots::foreign(uint32_t pid) {
  const std::string& ns = mount_namespace(pid);
  return !ns.empty() && ns != own_ns_;
}

FileResult<RegularFile> ProcessRoots::open(uint32_t pid, const std::string& path, Links links) {
  if (!foreign(pid)) return open_regular_file(path, links);
  // The process's root directory itself (a magic link of our /proc, followed
  // once, here), and the path below it resolved as the process would.
  UniqueFd root(::open((pid_dir(pid) + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) {
    FileResult<RegularFile> r;
    r.error = errno;
    r.reason = "cannot open /proc/" + std::to_string(pid) + "/root: " + errno_text(errno);
    return r;
  }
  return open_regular_file_in_root(root.get(), path, links);
}

std::optional<ResolvedFile> ProcessRoots::resolve(const MappedFile& file) {
  if (file.path.empty() || file.path[0] != '/') return std::nullopt;
  ResolvedFile out;
  out.mount_ns = mount_namespace(file.pid);
  const bool shared = !foreign(file.pid);
  const auto found = [&](FileResult<RegularFile>& opened, std::string open_path, ResolvedFile::Via via) {
    out.file = std::move(*opened.value);
    out.open_path = std::move(open_path);
    out.via = via;
    return std::optional<ResolvedFile>(std::move(out));
  };
  if (auto host = open_regular_file(file.path); host && (shared || is_mapped_file(*host.value, file)))
    return found(host, file.path, ResolvedFile::Via::kHost);
  if (shared) return std::nullopt;
  if (auto inside = open(file.pid, file.path); inside && is_mapped_file(*inside.value, file))
    return found(inside, pid_dir(file.pid) + "/root" + file.path, ResolvedFile::Via::kProcRoot);
  const std::string mapped = pid_dir(file.pid) + "/map_files/" + map_files_name(file.start, file.end);
  if (auto itself = open_regular_file(mapped)) return found(itself, mapped, ResolvedFile::Via::kMapFiles);
  return std::nullopt;
}

std::optional<std::string> ProcessRoots::perf_map_path(uint32_t pid) {
  if (!foreign(pid)) return std::nullopt;
  auto status = read_text_file(pid_dir(pid) + "/status", 1u << 20);
  if (!status) return std::nullopt;
  auto nspid = parse_nspid(*status);
  if (!nspid) return std::nullopt;
  return "/tmp/perf-" + std::to_string(*nspid) + ".map";
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
