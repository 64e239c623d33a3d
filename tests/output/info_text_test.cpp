// `swprof info` as text (output/info_text.h): the stack-size advice never
// suggests a size at or below the current one, never above the maximum, and
// at the maximum says so.

#include <catch2/catch.hpp>
#include <string>

#include "output/info_text.h"
#include "recording/recording_format.h"

using namespace swprof;

namespace {

RecordingInfo info_with(uint32_t stack_size, uint64_t samples, uint64_t truncated, uint32_t copied) {
  RecordingInfo info;
  info.header.stack_size = stack_size;
  info.samples = samples;
  info.truncated = truncated;
  info.stack_sizes.assign(samples, copied);
  return info;
}

std::string suggestion_line(const RecordingInfo& info) {
  const std::string text = format_info(info);
  const size_t at = text.find("  suggestion");
  REQUIRE(at != std::string::npos);
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST_CASE("info: stacks cut short below the maximum suggest a larger size", "[recording_info]") {
  const RecordingInfo info = info_with(8192, 100, 50, 8192);
  CHECK(info.suggested_stack_size() == 16384);
  CHECK(suggestion_line(info) == "  suggestion     --stack-size 16384 (stacks were cut short)");
  CHECK(info_with(49152, 100, 50, 49152).suggested_stack_size() == kMaxStackSize);
}

TEST_CASE("info: stacks cut short at the maximum say so instead of suggesting the same size", "[recording_info]") {
  const RecordingInfo info = info_with(kMaxStackSize, 100, 50, 64000);
  CHECK(info.stacks_cut_short());
  const std::string line = suggestion_line(info);
  CHECK(line.find("is the maximum") != std::string::npos);
  CHECK(line.find("deeper than the kernel can copy") != std::string::npos);
  CHECK(line.find("is right") == std::string::npos);
}

TEST_CASE("info: whole stacks get the p99 with headroom", "[recording_info]") {
  CHECK(suggestion_line(info_with(32768, 100, 0, 4000)) ==
        "  suggestion     --stack-size 8192 would still copy 99% of stacks whole");
  CHECK(suggestion_line(info_with(8192, 100, 0, 4000)) == "  suggestion     --stack-size 8192 is right");
}

namespace {

// The unwind quality text of 100 samples whose walks ended so (the
// complete ones: those that reached the bottom).
std::string quality_of(std::initializer_list<std::pair<WalkEnd, uint64_t>> ends) {
  UnwindStats st;
  st.samples = 100;
  for (const auto& [end, n] : ends) st.ends[end] = n;
  st.complete = st.ends[WalkEnd::kBottom];
  return format_unwind_quality(st, UnwinderChoice::kChain);
}

}  // namespace

TEST_CASE("info: samples inside execve are named as their own state, not as incomplete stacks", "[recording_info]") {
  const std::string text = quality_of({{WalkEnd::kBottom, 80}, {WalkEnd::kNoMappingsYet, 20}});
  CHECK(text.find("  complete stacks  100.0% (80 of 80 samples)\n") != std::string::npos);
  CHECK(text.find("  inside execve    20 samples (20.0%): the old program's registers and no stack") != std::string::npos);
  CHECK(text.find("  walks ended early: none\n") != std::string::npos);
  CHECK(text.find("ended early: in execve") == std::string::npos);
}

TEST_CASE("info: walks that end at a Go stack switch have their own line, not an early end", "[recording_info]") {
  const std::string text =
      quality_of({{WalkEnd::kBottom, 70}, {WalkEnd::kStackSwitch, 25}, {WalkEnd::kStackExhausted, 5}});
  CHECK(text.find("  stack switches   25 samples (25.0%) end where Go switched stacks") != std::string::npos);
  CHECK(text.find("ended early: switched stacks") == std::string::npos);
  CHECK(text.find("ended early: stack copy exhausted") != std::string::npos);
}

TEST_CASE("info: walks that end with no stack copied are not sent to --stack-size", "[recording_info]") {
  const std::string text =
      quality_of({{WalkEnd::kBottom, 90}, {WalkEnd::kNoStackCopied, 6}, {WalkEnd::kStackExhausted, 4}});
  CHECK(text.find("ended early: no stack copied        6 (6.0%)  -- sampled in a fault on the stack: the kernel "
                  "copied nothing\n") != std::string::npos);
  CHECK(text.find("ended early: stack copy exhausted   4 (4.0%)  -- see the --stack-size suggestion above\n") !=
        std::string::npos);
}

TEST_CASE("info: frames walked from stack read past the copy are counted, when there are any", "[recording_info]") {
  UnwindStats st;
  st.samples = 100;
  st.complete = st.ends[WalkEnd::kBottom] = 100;
  CHECK(format_unwind_quality(st, UnwinderChoice::kChain).find("beyond the copy") == std::string::npos);
  st.beyond_copy_frames = 1200;
  st.beyond_copy_samples = 40;
  CHECK(format_unwind_quality(st, UnwinderChoice::kChain)
            .find("  beyond the copy  1200 frames in 40 samples (40.0%) walked from stack read past the kernel's copy\n") !=
        std::string::npos);
  CHECK(format_unwind_quality(st, UnwinderChoice::kChain).find("not beyond") == std::string::npos);
  st.beyond_copy_dropped = 3;
  CHECK(format_unwind_quality(st, UnwinderChoice::kChain)
            .find("  not beyond       3 samples (3.0%) end at the copy: the stack read past it came after the copy's\n") !=
        std::string::npos);
}

TEST_CASE("info: Go and discovered functions get their own lines", "[recording_info]") {
  BinaryReport go;
  go.kind = "static executable";
  go.go_functions = 1234;
  go.go_version = "go1.19.8\x1b";
  CHECK(format_binary_report(go, "", {}).find("      go:      pclntab of go1.19.8\\x1b, 1234 functions: names, lines,") !=
        std::string::npos);
  BinaryReport stripped;
  stripped.discovery_run = true;
  stripped.discovered_functions = 80;
  CHECK(format_binary_report(stripped, "", {}).find(
            "      found:   80 functions without a symbol or FDE, by discovery (shown as [unknown] module+0xSTART)\n") !=
        std::string::npos);
  stripped.discovered_functions = 1;
  CHECK(format_binary_report(stripped, "", {}).find("      found:   1 function without") != std::string::npos);
  stripped.discovered_functions = 0;
  CHECK(format_binary_report(stripped, "", {}).find("found:") == std::string::npos);  // nothing beyond symbols and FDEs
  stripped.discovery_budget_hit = true;
  CHECK(format_binary_report(stripped, "", {}).find("; stopped at its instruction budget\n") != std::string::npos);
}

TEST_CASE("info: each binary's report as lines under it, names from the recording escaped", "[recording_info]") {
  BinaryReport r;
  r.kind = "PIE executable";
  r.eh_frame_fdes = 120;
  r.eh_frame_hdr = true;
  r.code_bytes = 1000;
  r.cfi_bytes = 950;
  r.prologues_checked = 120;
  r.frame_pointer_prologues = 3;
  r.dynsym_functions = 40;
  r.dwarf_file = "/usr/lib/debug/x\x1b[31m.debug";
  r.plt_entries = 7;
  CHECK(format_binary_report(r, "pkg", {"do this"}) ==
        "      PIE executable, from Debian package pkg\n"
        "      unwind:  .eh_frame 120 FDEs with .eh_frame_hdr, .debug_frame none; CFI covers 95.0% of 1000 code "
        "bytes; frame pointers in 3 of 120 functions looked at\n"
        "      names:   no .symtab, .dynsym 40 functions, DWARF in /usr/lib/debug/x\\x1b[31m.debug, 7 PLT stubs\n"
        "      to improve: do this\n");
  BinaryReport missing;
  missing.status = BinaryStatus::kMissing;
  missing.problem = "No such file or directory";
  CHECK(format_binary_report(missing, "", {"copy it"}) ==
        "      missing: No such file or directory\n      to improve: copy it\n");
}
