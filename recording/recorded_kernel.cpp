#include "recording/recorded_kernel.h"

#include <algorithm>
#include <cstdlib>

namespace swprof {
namespace {

constexpr std::string_view kKernelMappingPrefix = "[kernel.kallsyms]";

}  // namespace

void RecordedKernel::add_mapping(const MappingRecord& m) {
  if (m.path.starts_with(kKernelMappingPrefix)) {
    text_symbol = m.path.substr(kKernelMappingPrefix.size());
    text_address = m.file_offset;
    return;
  }
  if (m.path.starts_with("[guest.")) return;
  std::string name = kernel_module_name(m.path);
  if (!name.empty()) modules.push_back(RecordedKernelModule{std::move(name), m.start, m.start + m.length});
}

std::string kernel_module_name(const std::string& path) {
  if (path.size() > 2 && path.front() == '[' && path.back() == ']') return path;
  const size_t slash = path.rfind('/');
  std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  name = name.substr(0, name.find('.'));
  if (name.empty()) return {};
  std::replace(name.begin(), name.end(), '-', '_');  // the kernel's module names have '_' only
  return "[" + name + "]";
}

std::string perf_buildid_dir() {
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.debug";
  return {};
}

std::string perf_kallsyms_cache_path(const std::string& dir, const BuildId& id) {
  return dir + "/[kernel.kallsyms]/" + to_hex(id) + "/kallsyms";
}

}  // namespace swprof
