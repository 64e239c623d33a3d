// JIT symbol maps (perf-PID.map): strict line parsing, later entries
// replacing earlier ones, and the symbolizer naming JIT code "[jit]".

#include <catch2/catch.hpp>

#include "support/sym_fixtures.h"
#include "support/temp_dir.h"
#include "symbolize/perf_map.h"
#include "symbolize/symbolizer.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("perf map: lines are parsed strictly", "[symbolize][perf_map]") {
  auto e = parse_perf_map_line("7f0000001000 40 LazyCompile:*fib /app.js:3");
  REQUIRE(e);
  CHECK(e->start == 0x7f0000001000);
  CHECK(e->size == 0x40);
  CHECK(e->name == "LazyCompile:*fib /app.js:3");

  e = parse_perf_map_line("0x1000\t0X20  name\r");
  REQUIRE(e);
  CHECK(e->start == 0x1000);
  CHECK(e->size == 0x20);
  CHECK(e->name == "name");

  for (const char* bad : {"", "1000", "1000 10", "1000 10 ", "zz 10 f", "1000 zz f", "1000x 10 f", "1000 10x f",
                          "1000 0 f", "ffffffffffffffff 2 f", "10000000000000000 1 f", " 1000 10 f", "0x 10 f"}) {
    INFO("line: '" << bad << "'");
    CHECK_FALSE(parse_perf_map_line(bad));
  }
}

TEST_CASE("perf map: later entries replace the addresses they cover", "[symbolize][perf_map]") {
  const PerfMap map = PerfMap::parse(
      "1000 100 old\n"
      "garbage line\n"
      "\n"
      "1040 20 new\n"
      "2000 10 other\n");
  CHECK(map.malformed_lines() == 1);
  CHECK(*map.find(0x1000)->name == "old");
  CHECK(map.find(0x1000)->start == 0x1000);
  CHECK(*map.find(0x1040)->name == "new");
  CHECK(map.find(0x1050)->start == 0x1040);
  CHECK(*map.find(0x105f)->name == "new");
  CHECK(*map.find(0x1060)->name == "old");
  CHECK(map.find(0x1060)->start == 0x1000);
  CHECK(*map.find(0x10ff)->name == "old");
  CHECK_FALSE(map.find(0x1100));
  CHECK_FALSE(map.find(0xfff));
  CHECK(*map.find(0x200f)->name == "other");
  CHECK_FALSE(map.find(0x2010));
}

TEST_CASE("perf map: the symbolizer names JIT code from perf-PID.map", "[symbolize][perf_map]") {
  TempDir dir;
  const uint32_t pid = 987654321;  // no such process: only the map file matters
  write_file(dir.file("perf-987654321.map"),
             "7f1000000000 80 jit_add\n"
             "not a line at all\n"
             "7f1000000080 zz broken_size\n"
             "7f1000000100 40 _ZN2js3fooEv\n");
  SymbolizerOptions options;
  options.perf_map_dir = dir.path();
  options.debug_roots = {};
  Symbolizer symbolizer(options);

  SECTION("an address in no mapping") {
    ProcessMaps none;
    const auto& a = symbolizer.symbolize(none, pid, Frame{0x7f1000000011, 0, StepperKind::kCfi, 0});
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == "jit_add");
    CHECK(a.frames[0].module == "[jit]");
    CHECK(a.frames[0].function_offset == 0x11);
    CHECK(display_name(a.frames[0]) == "jit_add");
    // Names are demangled like any other.
    CHECK(symbolizer.symbolize(none, pid, Frame{0x7f1000000105, 0, StepperKind::kCfi, 0}).frames[0].function ==
          "js::foo()");
    // The malformed lines named nothing.
    const auto& gap = symbolizer.symbolize(none, pid, Frame{0x7f1000000091, 0, StepperKind::kCfi, 0});
    CHECK(gap.frames[0].function.empty());
    CHECK(gap.frames[0].module == "[unknown]");
    CHECK(display_name(gap.frames[0]) == "[unknown] [unknown]+0x7f1000000091");
  }
  SECTION("an address in anonymous executable memory") {
    ProcessMaps maps;
    BinaryCache binaries;
    maps.add(resolve_mapping(binaries, 0x7f1000000000, 0x7f1000010000, 0, "//anon", true, {}));
    maps.add(resolve_mapping(binaries, 0x7f1000010000, 0x7f1000020000, 0, "/memfd:jit (deleted)", true, {}));
    CHECK(binaries.warnings().empty());  // no file to open: nothing is missing
    const auto& a = symbolizer.symbolize(maps, pid, Frame{0x7f1000000001, 0, StepperKind::kCfi, kFrameExactPc});
    CHECK(a.frames[0].function == "jit_add");
    CHECK(a.frames[0].module == "[jit]");
    const auto& gap = symbolizer.symbolize(maps, pid, Frame{0x7f1000000201, 0, StepperKind::kCfi, 0});
    CHECK(gap.frames[0].function.empty());
    CHECK(gap.frames[0].module == "[anon]");
  }
  SECTION("another process has no map") {
    ProcessMaps none;
    const auto& a = symbolizer.symbolize(none, pid + 1, Frame{0x7f1000000011, 0, StepperKind::kCfi, 0});
    CHECK(a.frames[0].function.empty());
    CHECK(symbolizer.warnings().empty());
    return;
  }
  // The map is read once: one warning about its two malformed lines.
  REQUIRE(symbolizer.warnings().size() == 1);
  CHECK(symbolizer.warnings()[0].find("skipped 2 malformed") != std::string::npos);
}

TEST_CASE("perf map: the recording's copy comes before a live file of the same pid, its final lines last",
          "[symbolize][perf_map]") {
  TempDir dir;
  const uint32_t pid = 987654321;
  // What a live file says now (the pid may be another process's by now).
  write_file(dir.file("perf-987654321.map"), "7f1000000000 80 live_name\n");
  SymbolizerOptions options;
  options.perf_map_dir = dir.path();
  options.debug_roots = {};
  Symbolizer symbolizer(options);
  // The recording's final lines are known first; the lines kept while
  // recording arrive in order with the samples, and the final ones still
  // replace what they overlap.
  symbolizer.add_final_perf_map(pid, "7f1000000000 40 recompiled\n");
  ProcessMaps none;
  CHECK(symbolizer.symbolize(none, pid, Frame{0x7f1000000011, 0, StepperKind::kCfi, 0}).frames[0].function ==
        "recompiled");
  symbolizer.add_recorded_perf_map(pid, "7f1000000000 80 first_tier\n");
  CHECK(symbolizer.symbolize(none, pid, Frame{0x7f1000000021, 0, StepperKind::kCfi, 0}).frames[0].function ==
        "recompiled");
  CHECK(symbolizer.symbolize(none, pid, Frame{0x7f1000000051, 0, StepperKind::kCfi, 0}).frames[0].function ==
        "first_tier");
  CHECK(symbolizer.warnings().empty());
}
