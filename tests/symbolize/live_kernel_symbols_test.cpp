// The running kernel's names asked per address: the "%pS" texts read, and
// every address of the running kernel named as its /proc/kallsyms names it.

#include "symbolize/live_kernel_symbols.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "recording/build_id.h"
#include "symbolize/kernel_symbols_loader.h"
#include "symbolize/symbolizer.h"

using namespace swprof;

namespace {

std::string describe(const std::optional<KernelSymbols::Hit>& hit) {
  if (!hit) return "(none)";
  return std::string(hit->name) + " " + std::string(hit->module) + "+" + std::to_string(hit->offset);
}

std::string running_kallsyms() {
  std::ifstream in(kRunningKallsyms);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The addresses of the kernel's own text symbols in `kallsyms`, one per
// line (0 when hidden).
std::vector<uint64_t> text_addresses(const std::string& kallsyms) {
  std::vector<uint64_t> out;
  std::istringstream in(kallsyms);
  std::string line, addr_text, type, name;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (fields >> addr_text >> type >> name && (type == "t" || type == "T") && line.find('\t') == std::string::npos)
      out.push_back(std::stoull(addr_text, nullptr, 16));
  }
  return out;
}

}  // namespace

TEST_CASE("live kernel symbols: the kernel's \"%pS\" texts", "[symbolize][kernel]") {
  auto hit = LiveKernelSymbols::parse("do_syscall_64+0x3f/0x110");
  REQUIRE(hit);
  CHECK(hit->name == "do_syscall_64");
  CHECK(hit->module == "[kernel]");
  CHECK(hit->offset == 0x3f);
  CHECK(describe(LiveKernelSymbols::parse("ext4_sync_fs+0x0/0x2a0 [ext4]")) == "ext4_sync_fs [ext4]+0");
  CHECK(describe(LiveKernelSymbols::parse("bpf_prog_6deef7357e7b4530_sd_fw_ingress+0x1c/0x60 [bpf]")) ==
        "bpf_prog_6deef7357e7b4530_sd_fw_ingress [bpf]+28");
  CHECK(describe(LiveKernelSymbols::parse("clk_core_round.cold+0x11/0x2d")) == "clk_core_round.cold [kernel]+17");
  CHECK(describe(LiveKernelSymbols::parse("odd+name+0x2/0x10")) == "odd+name [kernel]+2");
  // No symbol holds the address: the kernel prints it.
  CHECK_FALSE(LiveKernelSymbols::parse("0xffffffff81234567"));
  CHECK_FALSE(LiveKernelSymbols::parse(""));
  CHECK_FALSE(LiveKernelSymbols::parse("+0x1/0x2"));
  CHECK_FALSE(LiveKernelSymbols::parse("name+0x1/0x2 [ext4"));
  CHECK_FALSE(LiveKernelSymbols::parse("name+0xzz/0x10"));
  CHECK_FALSE(LiveKernelSymbols::parse("name+0x1/"));
}

TEST_CASE("live kernel symbols: every address of the running kernel named as its kallsyms names it",
          "[symbolize][kernel]") {
  if (geteuid() != 0) {
    WARN("not root: the kernel names no addresses for this user, nothing compared");
    return;
  }
  std::optional<LiveKernelSymbols> live = LiveKernelSymbols::open();
  REQUIRE(live);  // root on Linux >= 5.14 with BPF, as the machines this runs on
  const std::string text = running_kallsyms();
  const KernelSymbols table = KernelSymbols::parse(text);
  const std::vector<uint64_t> addrs = text_addresses(text);
  REQUIRE(addrs.size() > 1000);
  size_t differ = 0, asked = 0;
  std::ostringstream differences;  // the first few
  for (size_t i = 0; i < addrs.size(); ++i) {
    // Every symbol's start and a byte inside, and between the symbols of
    // every 16th line, a few places further on.
    std::vector<uint64_t> probes = {addrs[i], addrs[i] + 1};
    if (i % 16 == 0) probes.insert(probes.end(), {addrs[i] + 0x40, addrs[i] + 0x400});
    for (uint64_t addr : probes) {
      const std::string want = describe(table.find(addr)), got = describe(live->find(addr));
      ++asked;
      if (want != got && differ++ < 10)
        differences << std::hex << addr << std::dec << ": kallsyms " << want << ", live " << got << "\n";
    }
  }
  INFO(asked << " addresses asked; differences:\n" << differences.str());
  CHECK(differ == 0);
  // Below the kernel: nothing.
  CHECK_FALSE(live->find(0x1000));
}

TEST_CASE("live kernel symbols: a report's symbolizer asks the running kernel, a recorded one only of its boot",
          "[symbolize][kernel]") {
  if (geteuid() != 0) {
    WARN("not root: not checked");
    return;
  }
  const std::string text = running_kallsyms();
  std::optional<uint64_t> text_at;
  KernelSymbols::index(text, "_text", text_at);
  const std::optional<BuildId> id = running_kernel_build_id();
  REQUIRE(text_at);
  REQUIRE(id);
  RecordedKernel kernel;
  kernel.build_id = *id;
  kernel.text_symbol = "_text";
  kernel.text_address = *text_at;
  KernelSymbolsPlaces places;  // /proc/kallsyms, no perf cache
  places.perf_buildid_dir = "/nonexistent";

  SECTION("the recorded boot: asked, not read") {
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(kernel, places);
    CHECK(load.live);
    CHECK(load.read_kallsyms);
    CHECK_FALSE(load.warning);
  }
  SECTION("another boot (the kernel elsewhere): read whole, which says so") {
    kernel.text_address = *text_at + 0x200000;
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(kernel, places);
    CHECK_FALSE(load.live);
    REQUIRE(load.warning);
    CHECK(load.warning->find("another boot") != std::string::npos);
  }
  SECTION("a kallsyms of the test's own: read, never asked") {
    const KernelSymbolsLoad load = load_kallsyms("/proc/self/../kallsyms");
    CHECK_FALSE(load.live);
    CHECK(load.symbols.available());
  }
  SECTION("the symbolizer names a kernel address as the table does") {
    const KernelSymbols table = KernelSymbols::parse(text);
    const uint64_t addr = *text_at + 0x1234;
    SymbolizerOptions o;
    o.perf_buildid_dir = places.perf_buildid_dir;  // not $HOME/.debug: perf may have cached this kernel there
    Symbolizer s(o);
    s.use_recorded_kernel(kernel);
    const SourceFrame& f = s.symbolize_kernel(addr).frames[0];
    CHECK(f.function + " " + f.module + "+" + std::to_string(f.function_offset) == describe(table.find(addr)));
    CHECK(s.kallsyms_reads() == 1);
  }
}
