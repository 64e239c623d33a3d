// Go's function table on real binaries (bench/RESULTS.md, "Go"): the time
// GoPclntab::find takes on a binary just opened, the resident memory it adds
// (pages of the mapped file it touches plus what it allocates), and the time
// of one lookup as the Go stepper and the symbolizer make it: func_at +
// sp_delta + line at random pcs inside the table's range.
//   swprof_go_pclntab_bench BINARY...

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

#include "binary/elf_binary.h"
#include "binary/go_pclntab.h"

namespace {

long resident_kb() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void bench(const char* path) {
  auto binary = swprof::ElfBinary::open(path);
  if (!binary) {
    std::printf("%s: cannot open\n", path);
    return;
  }
  const long before = resident_kb();
  const auto t0 = std::chrono::steady_clock::now();
  const swprof::GoPclntab* t = binary->go_pclntab();
  const double find_ms = ms_since(t0);
  const long added = resident_kb() - before;
  if (!t) {
    std::printf("%s: no Go table (%.2f ms)\n", path, find_ms);
    return;
  }
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint64_t> pcs(t->min_pc(), t->max_pc() - 1);
  constexpr int kLookups = 1'000'000;
  uint64_t found = 0;
  const auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < kLookups; ++i) {
    const uint64_t pc = pcs(rng);
    if (auto f = t->func_at(pc)) {
      found += t->sp_delta(*f, pc).value_or(0) >= 0;
      found += t->line(*f, pc).has_value();
    }
  }
  const double lookup_ns = ms_since(t1) * 1e6 / kLookups;
  // What the Go stepper asks on a rule-cache miss.
  const auto t2 = std::chrono::steady_clock::now();
  for (int i = 0; i < kLookups; ++i) {
    const uint64_t pc = pcs(rng);
    if (auto f = t->func_at(pc)) found += t->sp_delta(*f, pc).value_or(0) >= 0;
  }
  const double step_ns = ms_since(t2) * 1e6 / kLookups;
  std::printf("%s: %s (%s layout), %zu functions, %.1f MB of Go text; find %.1f ms, +%ld KB resident; "
              "func_at+sp_delta %.0f ns, +line %.0f ns (%llu hits)\n",
              path, t->version().c_str(), swprof::go_layout_name(t->layout()), t->size(),
              (t->max_pc() - t->min_pc()) / 1e6, find_ms, added, step_ns, lookup_ns,
              static_cast<unsigned long long>(found));
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) bench(argv[i]);
  return 0;
}
