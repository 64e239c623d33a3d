#include "sampler/proc.h"

#include <dirent.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>

#include "common/regular_file.h"

namespace swprof {

std::optional<std::string> read_text_file(const std::string& path, uint64_t max_bytes) {
  return read_regular_file(path, max_bytes).value;
}

std::vector<ProcMapping> parse_proc_maps(const std::string& text) {
  std::vector<ProcMapping> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    ProcMapping m;
    char perms[8] = {};
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    unsigned int major = 0, minor = 0;
    int path_at = 0;
    if (sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &offset, &major, &minor,
               &inode, &path_at) < 7)
      continue;
    m.start = start;
    m.end = end;
    m.perms = perms;
    m.offset = offset;
    m.dev_major = major;
    m.dev_minor = minor;
    m.inode = inode;
    if (path_at > 0 && static_cast<size_t>(path_at) <= line.size()) m.path = line.substr(static_cast<size_t>(path_at));
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<MappingRecord> code_mappings(pid_t pid, const std::vector<ProcMapping>& maps, uint64_t time) {
  std::vector<MappingRecord> out;
  for (const ProcMapping& pm : maps) {
    if (pm.perms.size() < 3 || pm.perms[2] != 'x') continue;  // code only, as the kernel reports
    MappingRecord m;
    m.time = time;
    m.pid = m.tid = static_cast<uint32_t>(pid);
    m.start = pm.start;
    m.length = pm.end - pm.start;
    m.file_offset = pm.offset;
    m.prot = 0x4 | (pm.perms[0] == 'r' ? 0x1 : 0) | (pm.perms[1] == 'w' ? 0x2 : 0);
    m.dev_major = pm.dev_major;
    m.dev_minor = pm.dev_minor;
    m.inode = pm.inode;
    m.path = pm.path;
    m.synthesized = true;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<MappingRecord> read_code_mappings(pid_t pid, uint64_t time) {
  auto maps = read_text_file("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return {};
  return code_mappings(pid, parse_proc_maps(*maps), time);
}

std::vector<pid_t> list_threads(pid_t pid) {
  std::vector<pid_t> tids;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return tids;
  while (dirent* e = readdir(d.get())) {
    char* end = nullptr;
    long tid = strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && tid > 0) tids.push_back(static_cast<pid_t>(tid));
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::string thread_comm(pid_t pid, pid_t tid) {
  auto text = read_text_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  if (!text) return "";
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return *text;
}

std::optional<char> process_state(pid_t pid) {
  auto stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  // "pid (comm) S ..." -- comm may contain spaces and parentheses; the state follows the last ')'.
  auto close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return std::nullopt;
  return (*stat)[close + 2];
}

bool process_alive(pid_t pid) {
  auto state = process_state(pid);
  return state && *state != 'Z' && *state != 'X';
}

std::vector<uint8_t> read_own_vdso() {
  auto maps = read_text_file("/proc/self/maps");
  if (!maps) return {};
  for (const auto& m : parse_proc_maps(*maps)) {
    if (m.path == "[vdso]") {
      const auto* p = reinterpret_cast<const uint8_t*>(m.start);
      return std::vector<uint8_t>(p, p + (m.end - m.start));
    }
  }
  return {};
}

}  // namespace swprof
