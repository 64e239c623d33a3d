#pragma once
// What a perf.data file tells of the kernel it was recorded on, to name its
// kernel addresses with that kernel's symbols and no other's: the kernel's
// build-id (HEADER_BUILD_ID's "[kernel.kallsyms]"), where its text was
// (the PERF_RECORD_MMAP of pid -1 named "[kernel.kallsyms]_text", older
// perf "[kernel.kallsyms]_stext", whose pgoff is that symbol's address at
// record time, after KASLR), and where its modules were (their own pid -1
// mappings). perf's build-id cache keeps a copy of the kernel's kallsyms
// under that build-id (perf_kallsyms_cache_path).

#include <cstdint>
#include <string>
#include <vector>

#include "recording/build_id.h"
#include "recording/records.h"

namespace swprof {

struct RecordedKernelModule {
  std::string name;  // as kallsyms names modules: "[ext4]"
  uint64_t start = 0;
  uint64_t end = 0;
};

struct RecordedKernel {
  BuildId build_id;          // empty when the recording names none (older perf)
  std::string text_symbol;   // "_text" or "_stext"; empty when no kernel mapping was recorded
  uint64_t text_address = 0;
  std::vector<RecordedKernelModule> modules;

  // Notes one kernel mapping (pid -1): the kernel's own, or a module's.
  // Guest kernels' mappings are not the recorded kernel's: ignored.
  void add_mapping(const MappingRecord& m);
};

// The kallsyms module name of a module mapping's path:
// "/lib/modules/6.1.0/kernel/net/netfilter/nf-nat.ko.xz" -> "[nf_nat]",
// "[ext4]" -> "[ext4]"; empty for a path that names no module.
std::string kernel_module_name(const std::string& path);

// perf's build-id cache: $PERF_BUILDID_DIR, else $HOME/.debug (empty
// when neither is set).
std::string perf_buildid_dir();
// Where `perf record` copies the kallsyms of the kernel with build-id `id`:
// <dir>/[kernel.kallsyms]/<build-id hex>/kallsyms.
std::string perf_kallsyms_cache_path(const std::string& dir, const BuildId& id);

}  // namespace swprof
