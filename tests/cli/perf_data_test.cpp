// perf.data files recorded by the real perf on the known-stack programs
// (tests/programs/known_stack.c): with --call-graph dwarf (swprof unwinds the
// copied stacks), -g (the kernel's frame-pointer chains of the fp builds)
// and -z (compressed records). Every command reads them; cut and damaged
// files give one clear line, never a crash.
//
// perf runs in a private mount namespace whose /tmp is the test's folder
// (support/perf_runner.h): nothing outside the test's folder changes.

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/cli_harness.h"
#include "support/known_stack_check.h"
#include "support/perf_runner.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

std::string known_bin(const std::string& variant) { return std::string(KNOWN_STACK_DIR) + "/known_stack_" + variant; }

ProcessResult swprof_in(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {swprof_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, dir.path());
}

const std::vector<std::string> kLeafPath = {"leaf", "c", "b", "a", "main"};

// perf script's share of complete stacks: samples whose outermost frame is
// the program's or a thread's entry. `name`: the file in `dir` (perf runs
// where /tmp is `dir`).
double perf_script_complete_share(const TempDir& dir, const std::string& name) {
  const ProcessResult r = run_perf(dir, {"script", "-i", name, "-F", "ip,sym"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::string line, outermost;
  uint64_t samples = 0, complete = 0;
  bool in_sample = false;
  auto end_sample = [&] {
    if (!in_sample) return;
    ++samples;
    complete += outermost == "_start" || outermost == "clone" || outermost == "clone3" || outermost == "__clone3" ||
                outermost == "start_thread" || outermost == "_dl_start_user";
    in_sample = false;
  };
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string ip, sym;
    if (!(fields >> ip)) {
      end_sample();
      continue;
    }
    fields >> sym;
    outermost = sym;
    in_sample = true;
  }
  end_sample();
  REQUIRE(samples > 0);
  return static_cast<double>(complete) / static_cast<double>(samples);
}

}  // namespace

TEST_CASE("cli: perf.data: --call-graph dwarf samples unwind to the known stacks", "[integration][perf_data]") {
  for (const char* variant : {"O2_nofp", "O0_fp"}) {
    SECTION(variant) {
      TempDir dir;
      const std::string data =
          perf_record(dir, "dwarf.data", {"--call-graph", "dwarf"}, {known_bin(variant), "leaf", "0.5"});
      require_exact(check_recording(data, "leaf", kLeafPath));
    }
  }
}

TEST_CASE("cli: perf.data: compressed records (-z) read the same", "[integration][perf_data]") {
  TempDir dir;
  const std::string data =
      perf_record(dir, "z.data", {"-z", "--call-graph", "dwarf"}, {known_bin("O2_nofp"), "leaf", "0.5"});
  require_exact(check_recording(data, "leaf", kLeafPath));
  const ProcessResult info = swprof_in(dir, {"info", "--no-unwind", data});
  INFO(info.err);
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("status:       complete") != std::string::npos);
}

// The kernel follows frame pointers: Debian's libc has none, so the chains
// stop in __libc_start_call_main (or go on to an address outside every
// mapping), short of _start, as perf script shows them; the program's own
// frames are all there.
TEST_CASE("cli: perf.data: -g call chains of frame-pointer builds name the known stacks", "[integration][perf_data]") {
  for (const char* variant : {"O2_fp", "O0_fp"}) {
    SECTION(variant) {
      TempDir dir;
      const std::string data = perf_record(dir, "g.data", {"-g"}, {known_bin(variant), "leaf", "0.5"});
      UnwindCheck c = check_recording(data, "leaf", kLeafPath);
      INFO("samples " << c.samples << ", in leaf " << c.in_leaf << ", on the path " << c.leaf_path
                      << "; first wrong: " << c.first_wrong << "; first inexact: " << c.first_inexact);
      REQUIRE(c.in_leaf >= 100);
      CHECK(c.wrong == 0);
      CHECK(c.differ_without_rule_cache == 0);
      CHECK(c.leaf_path * 100 >= c.in_leaf * 99);
    }
  }
}

TEST_CASE("cli: perf.data: swprof's complete stacks are at least perf script's on the same dwarf file",
          "[integration][perf_data]") {
  for (const char* mode : {"leaf", "threads"}) {
    SECTION(mode) {
      TempDir dir;
      const std::string data =
          perf_record(dir, "dwarf.data", {"--call-graph", "dwarf"}, {known_bin("O2_nofp"), mode, "0.5"});
      const double perf_share = perf_script_complete_share(dir, "dwarf.data");
      const UnwindCheck c = check_recording(data, "leaf", {});
      const double swprof_share = static_cast<double>(c.complete) / static_cast<double>(c.samples);
      INFO("swprof " << swprof_share << ", perf script " << perf_share);
      CHECK(swprof_share >= perf_share);
    }
  }
}

namespace {

// The kallsyms copy perf keeps in its build-id cache (HOME is the test's
// folder, so is the cache), each name but _text's and _stext's marked
// "cached_", and those two moved or not.
std::string perf_cached_kallsyms(const TempDir& dir) {
  const fs::path kernels = fs::path(dir.path()) / ".debug" / "[kernel.kallsyms]";
  if (!fs::is_directory(kernels)) return {};
  for (const auto& id : fs::directory_iterator(kernels))
    if (fs::is_regular_file(id.path() / "kallsyms")) return (id.path() / "kallsyms").string();
  return {};
}

void rewrite_kallsyms(const std::string& path, const std::string& name_prefix, bool move_text) {
  std::ifstream in(path);
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string addr, type, rest;
    fields >> addr >> type;
    std::getline(fields, rest);
    const bool text = rest == " _text" || rest == " _stext";  // kept: they tell the boot
    if (move_text && text) addr = "ffffffff80000000";
    out << addr << ' ' << type << ' ' << (text ? "" : name_prefix) << rest.substr(1) << '\n';
  }
  std::ofstream(path) << out.str();
}

}  // namespace

TEST_CASE("cli: perf.data: kernel frames are named from perf's build-id cache copy of kallsyms when it agrees",
          "[integration][perf_data]") {
  TempDir dir;
  // perf caches build-ids and kallsyms (no -N): dd spends its time in the
  // kernel, making random bytes.
  const ProcessResult rec = run_perf(dir, {"record", "-q", "-F", "999", "-g", "-o", "k.data", "--", "/bin/dd",
                                           "if=/dev/urandom", "of=/dev/null", "bs=1M", "count=100"});
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  const std::string cached = perf_cached_kallsyms(dir);
  REQUIRE_FALSE(cached.empty());
  const auto folded = [&] {
    const ProcessResult r = run({"/usr/bin/env", "-u", "PERF_BUILDID_DIR", "HOME=" + dir.path(), swprof_bin(), "report",
                                 "--format", "folded", dir.file("k.data")},
                                dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("kernel frames are shown as addresses") == std::string::npos);
    return r.out;
  };
  SECTION("the copy agrees with the recording: its names") {
    rewrite_kallsyms(cached, "cached_", false);
    CHECK(folded().find(";cached_") != std::string::npos);
  }
  SECTION("the copy is of another boot: not used (the running kernel, the recorded one, names them)") {
    rewrite_kallsyms(cached, "cached_", true);
    const std::string out = folded();
    CHECK_FALSE(out.empty());
    CHECK(out.find("cached_") == std::string::npos);
  }
}

TEST_CASE("cli: perf.data: every command reads it", "[integration][perf_data]") {
  TempDir dir;
  const std::string data =
      perf_record(dir, "perf.data", {"--call-graph", "dwarf"}, {known_bin("O2_nofp"), "leaf", "0.5"});
  const std::string own = dir.file("own.swprof");
  REQUIRE(swprof_in(dir, {"record", "-F", "999", "-o", own, "--", known_bin("O2_nofp"), "leaf", "0.3"}).exit_code == 0);

  for (const char* format : {"text", "json", "folded", "speedscope"}) {
    const ProcessResult r = swprof_in(dir, {"report", "-f", format, data});
    INFO(format << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("leaf") != std::string::npos);
  }
  const ProcessResult folded = swprof_in(dir, {"report", "-f", "folded", data});
  CHECK(folded.out.find("main;a;b;c;leaf") != std::string::npos);

  const ProcessResult flame = swprof_in(dir, {"flamegraph", data, "-o", dir.file("f.html")});
  INFO(flame.err);
  CHECK(flame.exit_code == 0);
  CHECK(read_file(dir.file("f.html")).find("leaf") != std::string::npos);

  const ProcessResult script = swprof_in(dir, {"script", data});
  CHECK(script.exit_code == 0);
  CHECK(script.out.find("leaf") != std::string::npos);

  const ProcessResult info = swprof_in(dir, {"info", data});
  INFO(info.err);
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("source format perf.data") != std::string::npos);
  CHECK(info.out.find("events:       cpu-clock") != std::string::npos);
  CHECK(info.out.find("complete stacks") != std::string::npos);

  const ProcessResult diff = swprof_in(dir, {"diff", data, own});
  INFO(diff.err);
  CHECK(diff.exit_code == 0);
  CHECK(diff.out.find("leaf") != std::string::npos);

  const ProcessResult merge = swprof_in(dir, {"merge", data, own, "-o", dir.file("m.json")});
  INFO(merge.err);
  CHECK(merge.exit_code == 0);
  CHECK(read_file(dir.file("m.json")).find("leaf") != std::string::npos);
}

TEST_CASE("cli: perf.data: cut or damaged files give one clear line, never a crash", "[integration][perf_data]") {
  TempDir dir;
  const std::string data =
      perf_record(dir, "perf.data", {"--call-graph", "dwarf"}, {known_bin("O2_nofp"), "leaf", "0.3"});
  const std::string bytes = read_file(data);
  REQUIRE(bytes.size() > 4096);
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir.file(name), std::ios::binary) << content;
    return dir.file(name);
  };
  auto check_clear = [&](const std::string& file) {
    const ProcessResult r = swprof_in(dir, {"report", "-f", "folded", file});
    INFO(file << " exit " << r.exit_code << ": " << r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 2));
    if (r.exit_code == 2) {
      CHECK(line_count(r.err) == 1);
      CHECK(r.out.empty());
    }
  };
  std::mt19937_64 rng(20261124);
  for (int i = 0; i < 8; ++i) check_clear(write("cut" + std::to_string(i), bytes.substr(0, rng() % bytes.size())));

  // Cut inside the data: a best-effort report with a warning.
  const ProcessResult cut = swprof_in(dir, {"report", "-f", "folded", write("half", bytes.substr(0, bytes.size() / 2))});
  INFO(cut.err);
  CHECK(cut.exit_code == 0);
  CHECK(cut.err.find("cut short") != std::string::npos);

  // Damaged header fields: nothing readable, exit 2 with one line.
  for (size_t at : {8, 16, 24, 32, 40}) {
    std::string bad = bytes;
    std::memset(bad.data() + at, 0xff, 8);
    const std::string file = write("bad" + std::to_string(at), bad);
    const ProcessResult r = swprof_in(dir, {"report", file});
    INFO(at << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("perf.data file") != std::string::npos);
  }
  for (int i = 0; i < 8; ++i) {
    std::string bad = bytes;
    for (int k = 0; k < 16; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    check_clear(write("damaged" + std::to_string(i), bad));
  }
}
