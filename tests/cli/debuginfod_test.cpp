// Reports never load libdw's debuginfod client (and the ~25 libraries it
// pulls in) without --debuginfod: the symbolizer's own debuginfo lookup
// (symbolize/debug_info.cpp) never reaches it.

#include <catch2/catch.hpp>
#include <filesystem>

#include "binary/elf_binary.h"
#include "recording/recording_writer.h"
#include "support/cli_harness.h"
#include "support/record_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kBase = 0x7f0000000000;
const char* const kStripped = "/bin/true";  // no DWARF: libdw looks for separate debuginfo

// One sample at the entry point of kStripped, mapped whole at kBase.
void write_recording(const std::string& path) {
  auto binary = ElfBinary::open(kStripped);
  REQUIRE(binary);
  RecordingWriter w(path, RecordingHeader{});
  MappingRecord m = make_mapping(1, kStripped, false);
  m.start = kBase;
  m.length = (std::filesystem::file_size(kStripped) + 0xfff) & ~uint64_t{0xfff};
  m.file_offset = 0;
  w.write(m);
  OwnedSample s = make_sample(100, 10, 0x7ff000, std::vector<uint8_t>(64, 0));
  s.view.regs[8] = kBase + binary->entry();  // IP in perf order
  w.write(s.view);
  w.finish(EndRecord{"{}"});
}

// Whether `swprof report` loaded the debuginfod client, as the dynamic
// loader tells (LD_DEBUG=files).
bool loads_debuginfod(const TempDir& dir, const std::string& urls, bool flag) {
  std::vector<std::string> argv = {"/usr/bin/env", "-u", "DEBUGINFOD_URLS", "LD_DEBUG=files"};
  if (!urls.empty()) argv.push_back("DEBUGINFOD_URLS=" + urls);
  argv.insert(argv.end(), {swprof_bin(), "report", "-o", dir.file("report.txt"), dir.file("r.swprof")});
  if (flag) argv.push_back("--debuginfod");
  const ProcessResult r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.err.find("file=libdebuginfod.so") != std::string::npos;
}

}  // namespace

TEST_CASE("debuginfod: no debuginfod client is loaded without --debuginfod", "[integration]") {
  TempDir dir;
  write_recording(dir.file("r.swprof"));
  // A server that refuses at once: the client is loaded and asks it.
  if (!loads_debuginfod(dir, "http://127.0.0.1:9/", true)) {
    WARN("libdw loads no debuginfod client here (not installed, or debuginfo found): not checked");
    return;
  }
  CHECK_FALSE(loads_debuginfod(dir, "", false));
  CHECK_FALSE(loads_debuginfod(dir, "http://127.0.0.1:9/", false));  // without --debuginfod the variable is cleared
}
