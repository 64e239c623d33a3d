// Symbolization speed on this process's own code: distinct addresses per
// second on a fresh Symbolizer (symbols + DWARF lines + inline chains, the
// per-binary libdwfl set-up included), and cached lookups per second (what
// the millionth sample of a hot address costs).
//
//   build/bench/swprof_symbolize_bench [--benchmark_* flags]
//
// Addresses are spread evenly over the executable mappings of the benchmark
// itself (a C++ RelWithDebInfo binary with inlining) and of libc (DWARF from
// /usr/lib/debug when its debuginfo is installed).
//
// kallsyms_parse: KernelSymbols::parse of this machine's /proc/kallsyms
// (what perf's build-id cache copy of it holds), lines per second.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/regular_file.h"
#include "recording/records.h"
#include "sampler/proc.h"
#include "symbolize/kernel_symbols.h"
#include "symbolize/symbolizer.h"
#include "unwind/address_space.h"

using namespace swprof;

namespace {

constexpr size_t kAddressesPerBinary = 20000;

struct Target {
  ProcessMaps maps;
  std::vector<uint64_t> addresses;
};

BinaryCache g_binaries;

// This process's maps, and kAddressesPerBinary addresses spread over the
// executable mappings whose path contains `name`.
Target make_target(const std::string& name) {
  Target t;
  auto text = read_text_file("/proc/self/maps");
  if (!text) return t;
  for (const ProcMapping& p : parse_proc_maps(*text)) {
    const bool exec = p.perms.size() > 2 && p.perms[2] == 'x';
    t.maps.add(resolve_mapping(g_binaries, p.start, p.end, p.offset, p.path, exec, {}));
    if (!exec || p.path.find(name) == std::string::npos) continue;
    const uint64_t step = std::max<uint64_t>(1, (p.end - p.start) / kAddressesPerBinary);
    for (uint64_t a = p.start + 1; a < p.end && t.addresses.size() < kAddressesPerBinary; a += step)
      t.addresses.push_back(a);
  }
  return t;
}

const Target& self_target() {
  static const Target t = make_target("swprof_symbolize_bench");
  return t;
}

const Target& libc_target() {
  static const Target t = make_target("libc.so");
  return t;
}

void count_frames(benchmark::State& state, uint64_t frames, uint64_t named, uint64_t with_lines, uint64_t lookups) {
  state.counters["frames/addr"] = static_cast<double>(frames) / static_cast<double>(lookups);
  state.counters["named%"] = 100.0 * static_cast<double>(named) / static_cast<double>(lookups);
  state.counters["lines%"] = 100.0 * static_cast<double>(with_lines) / static_cast<double>(lookups);
}

// Every address once on a fresh Symbolizer: the cost of a distinct address.
void distinct(benchmark::State& state, const Target& (*target)()) {
  const Target& t = target();
  if (t.addresses.empty()) {
    state.SkipWithError("no executable mapping found");
    return;
  }
  uint64_t frames = 0, named = 0, with_lines = 0, lookups = 0;
  for (auto _ : state) {
    Symbolizer symbolizer;
    for (uint64_t pc : t.addresses) {
      const SymbolizedAddress& a = symbolizer.symbolize(t.maps, 1, Frame{pc, 0, StepperKind::kCfi, 0});
      frames += a.frames.size();
      named += !a.frames.back().function.empty();
      with_lines += a.frames.back().line != 0;
      ++lookups;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(lookups));
  count_frames(state, frames, named, with_lines, lookups);
}

// The same addresses again and again: every lookup is a cache hit.
void cached(benchmark::State& state, const Target& (*target)()) {
  const Target& t = target();
  if (t.addresses.empty()) {
    state.SkipWithError("no executable mapping found");
    return;
  }
  Symbolizer symbolizer;
  for (uint64_t pc : t.addresses) symbolizer.symbolize(t.maps, 1, Frame{pc, 0, StepperKind::kCfi, 0});
  uint64_t lookups = 0, frames = 0;
  for (auto _ : state) {
    for (uint64_t pc : t.addresses) {
      frames += symbolizer.symbolize(t.maps, 1, Frame{pc, 0, StepperKind::kCfi, 0}).frames.size();
      ++lookups;
    }
  }
  benchmark::DoNotOptimize(frames);
  state.SetItemsProcessed(static_cast<int64_t>(lookups));
}

// A whole kallsyms parsed into a fresh table.
void kallsyms_parse(benchmark::State& state) {
  auto text = read_regular_file("/proc/kallsyms", kMaxKallsymsBytes);
  if (!text || !KernelSymbols::parse(*text.value).available()) {
    state.SkipWithError("/proc/kallsyms is not readable here");
    return;
  }
  const auto lines = std::count(text.value->begin(), text.value->end(), '\n');
  for (auto _ : state) benchmark::DoNotOptimize(KernelSymbols::parse(*text.value).size());
  state.SetItemsProcessed(state.iterations() * lines);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.value->size()));
}

// The same kallsyms indexed (KernelSymbols::index, as reports read a file)
// and `lookups` addresses spread over it looked up: what a report pays.
void kallsyms_index(benchmark::State& state) {
  auto text = read_regular_file("/proc/kallsyms", kMaxKallsymsBytes);
  if (!text || !KernelSymbols::parse(*text.value).available()) {
    state.SkipWithError("/proc/kallsyms is not readable here");
    return;
  }
  const std::vector<uint64_t> addresses = [&] {
    std::vector<uint64_t> all;
    std::istringstream in(*text.value);
    std::string addr, type;
    for (std::string line; std::getline(in, line);)
      if (std::istringstream(line) >> addr >> type && (type == "t" || type == "T")) all.push_back(std::stoull(addr, nullptr, 16) + 4);
    std::vector<uint64_t> some;
    for (size_t i = 0; i < static_cast<size_t>(state.range(0)) && !all.empty(); ++i)
      some.push_back(all[i * 7919 % all.size()]);
    return some;
  }();
  const auto lines = std::count(text.value->begin(), text.value->end(), '\n');
  const auto owner = std::make_shared<const std::string>(std::move(*text.value));
  size_t named = 0;
  for (auto _ : state) {
    std::optional<uint64_t> watched;
    const KernelSymbols k = KernelSymbols::index(owner, *owner, "_text", watched);
    for (uint64_t a : addresses) named += k.find(a).has_value();
  }
  benchmark::DoNotOptimize(named);
  state.SetItemsProcessed(state.iterations() * lines);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(owner->size()));
}

}  // namespace

BENCHMARK(kallsyms_parse)->Unit(benchmark::kMillisecond);
BENCHMARK(kallsyms_index)->Arg(0)->Arg(300)->Arg(3000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(distinct, self, &self_target)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK_CAPTURE(distinct, libc, &libc_target)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK_CAPTURE(cached, self, &self_target)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(cached, libc, &libc_target)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
