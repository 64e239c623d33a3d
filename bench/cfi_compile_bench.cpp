// CFI compilation: the one-pass interpreter (each FDE's CFA program run once)
// against the reference that asks libdw for the row at each address, on
// binaries of several sizes. Binaries that are missing are skipped.
//
//   build/bench/swprof_cfi_compile_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "binary/cfi_table.h"
#include "binary/elf_binary.h"

using namespace swprof;

namespace {

void compile(benchmark::State& state, const std::string& path, bool per_row) {
  auto binary = ElfBinary::open(path);
  if (!binary) {
    state.SkipWithError(("cannot open " + path).c_str());
    return;
  }
  CfiCompileOptions options;
  options.reference_per_row = per_row;
  size_t rows = 0;
  for (auto _ : state) {
    auto table = CfiTable::compile(*binary, options);
    rows = table->rows().size();
    benchmark::DoNotOptimize(rows);
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
  const std::vector<std::pair<std::string, std::string>> binaries = {
      {"ld.so", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
      {"libc", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
      {"libstdc++", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"},
      {"cc1plus", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus"},
  };
  for (const auto& [name, path] : binaries)
    for (bool per_row : {false, true})
      benchmark::RegisterBenchmark(("BM_CompileCfi/" + name + (per_row ? "/per_row" : "/one_pass")).c_str(),
                                   [path = path, per_row](benchmark::State& s) { compile(s, path, per_row); })
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.5);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
