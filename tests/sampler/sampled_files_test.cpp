#include "sampler/sampled_files.h"

#include <sys/mman.h>

#include <catch2/catch.hpp>

#include "sampler/perf_event.h"
#include "sampler/recorder.h"
#include "support/temp_dir.h"

using namespace swprof;

namespace {

MappingRecord mapping(uint32_t pid, uint64_t start, const std::string& path, uint8_t id = 0, uint32_t prot = PROT_EXEC) {
  MappingRecord m;
  m.pid = m.tid = pid;
  m.start = start;
  m.length = 0x1000;
  m.prot = prot | PROT_READ;
  m.path = path;
  if (id) {
    m.build_id_size = 2;
    m.build_id[0] = id;
    m.build_id[1] = id;
  }
  return m;
}

std::vector<std::string> paths(const SampledFiles& files) {
  std::vector<std::string> out;
  for (const SampledFile& f : files.files()) out.push_back(f.path);
  return out;
}

}  // namespace

TEST_CASE("sampled files: the program of each process sampled, and the files mapped executable that hold a sampled "
          "pc, in the order first mapped",
          "[sampled_files]") {
  SampledFiles files;
  files.on_mapping(mapping(1, 0x1000, "/bin/app", 7));
  files.on_mapping(mapping(1, 0x5000, "/lib/libc.so.6", 8));
  files.on_mapping(mapping(1, 0x9000, "/lib/libm.so.6", 9));
  files.on_mapping(mapping(1, 0xd000, "/data/table", 0, PROT_READ));  // not code
  files.on_mapping(mapping(1, 0xf000, "[vdso]"));
  files.on_mapping(mapping(3, 0x1000, "/bin/idle", 10));  // a process never sampled
  files.on_mapping(mapping(1, 0x11000, "/lib/libz.so.1", 11));
  files.on_sample(1, 0x5010);
  files.on_sample(1, 0x5020);
  files.on_sample(1, 0xd010);
  files.on_sample(1, 0xf010);
  files.on_sample(1, 0x12000);  // past the end of libz's mapping
  files.on_sample(2, 0x1010);  // a process whose mappings are unknown
  files.on_sample(1, 0);       // no user pc
  // The program, where no sample landed: its main() is in every stack.
  CHECK(paths(files) == std::vector<std::string>{"/bin/app", "/lib/libc.so.6"});
  CHECK(files.files()[0].build_id == BuildId{7, 7});
}

TEST_CASE("sampled files: a fork starts with its parent's mappings, an exec or an exit drops them", "[sampled_files]") {
  SampledFiles files;
  files.on_mapping(mapping(1, 0x1000, "/bin/shell", 1));
  files.on_fork(1, 2);
  files.on_exec(2);
  files.on_sample(2, 0x1010);  // the shell's code is no longer there
  files.on_mapping(mapping(2, 0x1000, "/bin/tool", 2));
  files.on_mapping(mapping(2, 0x7000, "/lib/libtool.so", 4));
  files.on_sample(2, 0x7010);
  files.on_fork(1, 3);
  files.on_sample(3, 0x1020);
  files.on_exit(3);
  files.on_mapping(mapping(1, 0x1000, "/bin/later", 3));  // a later mapping over the same range wins
  files.on_sample(1, 0x1030);
  CHECK(paths(files) == std::vector<std::string>{"/bin/shell", "/bin/tool", "/lib/libtool.so", "/bin/later"});
}

TEST_CASE("sampled files: the recorder hands the summary the files its samples hit, kernel-mode samples by their "
          "user registers",
          "[sampled_files]") {
  testing::TempDir dir;
  Recorder recorder(PerfLayout{kSampleType, kX86_64RegsMask}, {});
  recorder.open(dir.file("rec.swprof"), RecordingHeader{});
  recorder.write_synthesized(mapping(5, 0x400000, "/opt/app", 4));
  recorder.write_synthesized(mapping(5, 0x700000, "/lib/libc.so.6", 5));
  recorder.write_synthesized(mapping(5, 0x800000, "/lib/libz.so.1", 6));
  SampleView in_user;
  in_user.pid = in_user.tid = 5;
  in_user.ip = 0x400010;
  SampleView in_kernel;
  in_kernel.pid = in_kernel.tid = 5;
  in_kernel.in_kernel = true;
  in_kernel.ip = 0xffffffff81000000;
  in_kernel.abi = 2;  // PERF_SAMPLE_REGS_ABI_64
  in_kernel.nregs = 20;
  in_kernel.regs[kRegIp] = 0x700100;  // where libc entered the kernel
  recorder.write_synthesized(in_user);
  recorder.write_synthesized(in_kernel);
  const SessionSummary summary = recorder.finish("exited", 0);
  REQUIRE(summary.sampled_files.size() == 2);
  CHECK(summary.sampled_files[0].path == "/opt/app");
  CHECK(summary.sampled_files[1].path == "/lib/libc.so.6");
}
