// How `swprof script` prints symbolized frames.

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "output/script_writer.h"
#include "support/temp_dir.h"
#include "support/off_cpu_recording.h"
#include "support/thread_recording.h"

using namespace swprof;

TEST_CASE("script format: inline frames, lines, unknown and guessed frames", "[symbolize][script]") {
  SymbolizedAddress a;
  SourceFrame inner;
  inner.function = "inner_step";
  inner.file = "/src/sym_inline.c";
  inner.line = 15;
  inner.inlined = true;
  inner.module = "app";
  SourceFrame outer;
  outer.function = "run_inline";
  outer.file = "/src/sym_inline.c";
  outer.line = 25;
  outer.module = "app";
  outer.module_offset = 0x1234;
  outer.function_offset = 0x1c;
  a.frames = {inner, outer};
  Frame f{0x55550001234, 0, StepperKind::kCfi, 0};
  CHECK(format_user_frame(f, a) ==
        "\t     55550001234 inner_step (inlined) /src/sym_inline.c:15\n"
        "\t     55550001234 run_inline+0x1c (app+0x1234) /src/sym_inline.c:25 [cfi]\n");

  SymbolizedAddress unknown;
  SourceFrame u;
  u.module = "libgone.so";
  u.module_offset = 0x2101;
  unknown.frames = {u};
  f.stepper = StepperKind::kWanderer;
  f.flags = kFrameGuess;
  CHECK(format_user_frame(f, unknown) == std::string("\t     55550001234 [unknown] (libgone.so+0x2101) [") +
                                             stepper_name(StepperKind::kWanderer) + ", guess]\n");
}

TEST_CASE("script format: an unnamed function whose start is known", "[symbolize][script]") {
  SymbolizedAddress a;
  SourceFrame u;
  u.module = "app.stripped";
  u.module_offset = 0x1234;
  u.start_offset = 0x1200;
  u.function_offset = 0x34;
  a.frames = {u};
  Frame f{0x55550001234, 0, StepperKind::kAnalysis, 0};
  CHECK(format_user_frame(f, a) == std::string("\t     55550001234 [unknown] app.stripped+0x1200+0x34 (app.stripped+0x1234) [") +
                                       stepper_name(StepperKind::kAnalysis) + "]\n");
}

TEST_CASE("script format: kernel frames", "[symbolize][script]") {
  SymbolizedAddress k;
  SourceFrame f;
  f.function = "do_syscall_64";
  f.module = "[kernel]";
  f.function_offset = 0x5b;
  f.module_offset = 0xffffffff81000204;
  k.frames = {f};
  CHECK(format_kernel_frame(0xffffffff81000204, k) == "\tffffffff81000204 do_syscall_64+0x5b ([kernel])\n");
  k.frames[0].function.clear();
  CHECK(format_kernel_frame(0xffffffff81000204, k) == "\tffffffff81000204 [unknown] ([kernel]+0xffffffff81000204)\n");
}

namespace {

// The script of testing::write_thread_recording, written to a file of `dir`.
std::string script_of_thread_recording(const testing::TempDir& dir, std::vector<std::string>* warnings) {
  const std::string recording = dir.file("threads.swprof");
  testing::write_thread_recording(recording);
  std::ofstream(dir.file("kallsyms")) << testing::kallsyms_text();
  ScriptOptions options;
  options.unwind.threads = 1;
  options.symbolize.kallsyms_path = dir.file("kallsyms");
  options.symbolize.perf_map_dir = dir.path();
  const std::string out_path = dir.file("script.txt");
  FILE* out = std::fopen(out_path.c_str(), "w");
  REQUIRE(out);
  const UnwindStats stats = write_script(recording, options, out, warnings);
  std::fclose(out);
  CHECK(stats.samples == 4);
  std::ifstream in(out_path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> header_lines(const std::string& script) {
  std::vector<std::string> out;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '\t') out.push_back(line.substr(0, line.find(':')));
  return out;
}

}  // namespace

TEST_CASE("script: one block per sample, threads no COMM record named show as '?'", "[script]") {
  testing::TempDir dir;
  std::vector<std::string> warnings;
  const std::string script = script_of_thread_recording(dir, &warnings);
  // Thread 101 inherits "main" at its fork, but only its COMM record names it here.
  CHECK(header_lines(script) == std::vector<std::string>{"main 100/100 [000] 0.200000", "? 100/101 [001] 0.300000",
                                                         "worker 100/101 [001] 1.500000",
                                                         "? 100/102 [000] 1.600000"});
  CHECK(script.find(" cpu-clock in-kernel (") != std::string::npos);
}

TEST_CASE("script: kernel frames first, leaf first, then the user frames", "[script]") {
  testing::TempDir dir;
  const std::string script = script_of_thread_recording(dir, nullptr);
  const size_t leaf = script.find("k_leaf+0x10 ([kernel])");
  const size_t caller = script.find("k_caller+0x20 ([kernel])");
  const size_t user = script.find("[unknown] (", caller);
  REQUIRE(leaf != std::string::npos);
  REQUIRE(caller != std::string::npos);
  CHECK(leaf < caller);
  CHECK(user != std::string::npos);
  CHECK(user < script.find("? 100/101"));
}

namespace {

// The script of testing::write_off_cpu_recording, the header lines only.
std::vector<std::string> off_cpu_script_headers(std::optional<WeightKind> weight) {
  testing::TempDir dir;
  const std::string recording = dir.file("wall.swprof");
  testing::write_off_cpu_recording(recording);
  std::ofstream(dir.file("kallsyms")) << testing::off_cpu_kallsyms_text();
  ScriptOptions options;
  options.unwind.threads = 1;
  options.symbolize.kallsyms_path = dir.file("kallsyms");
  options.symbolize.perf_map_dir = dir.path();
  options.weight = weight;
  const std::string out_path = dir.file("script.txt");
  FILE* out = std::fopen(out_path.c_str(), "w");
  REQUIRE(out);
  write_script(recording, options, out, nullptr);
  std::fclose(out);
  std::ifstream in(out_path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '\t') lines.push_back(line.substr(0, line.rfind(" (")));
  return lines;
}

}  // namespace

TEST_CASE("script: off-CPU samples show their time off the CPU and why: blocked, preempted or open", "[script]") {
  const std::vector<std::string> all = off_cpu_script_headers(std::nullopt);
  CHECK(all == std::vector<std::string>{
                   "worker 100/101 [001] 0.001000: 1000000 cpu-clock",
                   "worker 100/101 [001] 0.002000: 1000000 cpu-clock",
                   "worker 100/101 [001] 0.003000: 1000000 cpu-clock",
                   "worker 100/101 [001] 0.010000: off-cpu 5.000 ms (blocked)",  // 4 ms + the repeat's 1 ms
                   "worker 100/101 [001] 0.020000: off-cpu 3.000 ms (blocked)",
                   "worker 100/101 [001] 0.040000: off-cpu 2.000 ms (preempted)",
                   "main 100/100 [000] 0.050000: off-cpu 10.000 ms (open)",
                   "main 100/100 [000] 0.060000: 1000000 cpu-clock",
               });
  const std::vector<std::string> off = off_cpu_script_headers(WeightKind::kOffCpu);
  CHECK(off.size() == 4);
  for (const auto& line : off) CHECK(line.find(": off-cpu ") != std::string::npos);
  const std::vector<std::string> cpu = off_cpu_script_headers(WeightKind::kCpu);
  CHECK(cpu.size() == 4);
  for (const auto& line : cpu) CHECK(line.find(" cpu-clock") != std::string::npos);
}
