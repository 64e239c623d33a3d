// Function discovery on real binaries (bench/RESULTS.md): time, instructions
// decoded, starts by source, and, given the same binary with symbols (or a
// separate .debug file of it), recall and precision against its function
// symbols. Symbols of the binary under test are seeds, so measure stripped copies.
//
//   swprof_function_starts_bench BINARY [REFERENCE] [--gaps] [--all-fde] [--no-fde-exits] [--no-pointers] [--budget N] [--list]
// (--all-fde: descend from every FDE start too, DiscoveryLimits::parse_fde_functions;
// --no-fde-exits: without what FDE-covered code hands to code outside every FDE)
// (--no-pointers: no function pointers in data or code as starts, DiscoveryLimits::data_pointers)
// (--list: every false start and missed start, with the reference function it falls in)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "binary/elf_binary.h"
#include "binary/function_starts.h"

using namespace swprof;

namespace {

void print_stats(const std::string& path, const FunctionStarts& found, bool gaps) {
  const DiscoveryStats& s = found.stats();
  double exec_mb = 0;
  if (auto b = ElfBinary::open(path))
    for (const auto& [lo, hi] : b->executable_ranges()) exec_mb += static_cast<double>(hi - lo) / 1e6;
  printf("%s  gaps %s\n", path.c_str(), gaps ? "on" : "off");  // (--all-fde is not echoed: see the command)
  printf("  %.1f ms, %zu instructions decoded, %.1f MB of code (%.0f MB/s), %zu starts, %zu targets rejected%s\n",
         s.seconds * 1e3, s.instructions, exec_mb, exec_mb / s.seconds, found.starts().size(), s.rejected_targets,
         s.budget_hit ? ", BUDGET HIT" : "");
  printf("  by source:");
  for (size_t i = 0; i < kStartSourceCount; ++i)
    if (s.by_source[i]) printf(" %s %zu", start_source_name(i), s.by_source[i]);
  printf("\n");
}

// Recall: reference function starts (in executable code) found; precision: found starts that are reference starts.
void print_accuracy(const FunctionStarts& found, const ElfBinary& reference, bool list) {
  std::set<uint64_t> expected;
  for (const FunctionSymbol& f : reference.functions()) expected.insert(f.start);
  size_t in_code = 0, hits = 0;
  for (uint64_t s : expected) {
    const auto f = found.at(s);
    if (!f) continue;  // not in the binary's executable code (e.g. a .debug file's other layout)
    ++in_code;
    hits += f->start == s;
  }
  const size_t starts = found.starts().size();
  for (uint64_t s : found.starts()) {
    if (!list || expected.count(s)) continue;
    const FunctionSymbol* in = reference.function_at(s);
    const auto f = found.at(s);
    printf("  false start 0x%llx sources 0x%x in %s+0x%llx\n", static_cast<unsigned long long>(s), f->sources,
           in ? in->name.c_str() : "?", in ? static_cast<unsigned long long>(s - in->start) : 0ull);
  }
  for (uint64_t s : expected) {
    const auto f = found.at(s);
    if (list && f && f->start != s)
      printf("  missed 0x%llx %s\n", static_cast<unsigned long long>(s), reference.function_at(s) ? reference.function_at(s)->name.c_str() : "?");
  }
  printf("  vs %zu reference starts in code: recall %.2f %% (%zu), precision %.2f %% (%zu false starts)\n", in_code,
         in_code ? 100.0 * static_cast<double>(hits) / static_cast<double>(in_code) : 0.0, hits,
         starts ? 100.0 * static_cast<double>(hits) / static_cast<double>(starts) : 0.0, starts - hits);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, reference;
  DiscoveryLimits limits;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--gaps")) limits.parse_gaps = true;
    else if (!strcmp(argv[i], "--list")) list = true;
    else if (!strcmp(argv[i], "--all-fde")) limits.parse_fde_functions = true;
    else if (!strcmp(argv[i], "--no-fde-exits")) limits.fde_exits = false;
    else if (!strcmp(argv[i], "--no-pointers")) limits.data_pointers = false;
    else if (!strcmp(argv[i], "--budget") && i + 1 < argc) limits.max_instructions = strtoull(argv[++i], nullptr, 10);
    else if (path.empty()) path = argv[i];
    else reference = argv[i];
  }
  if (path.empty()) {
    fprintf(stderr, "usage: %s BINARY [REFERENCE] [--gaps] [--budget N]\n", argv[0]);
    return 2;
  }
  auto binary = ElfBinary::open(path);
  if (!binary) {
    fprintf(stderr, "cannot open %s\n", path.c_str());
    return 1;
  }
  const auto found = FunctionStarts::discover(*binary, limits);
  print_stats(path, *found, limits.parse_gaps);
  if (!reference.empty()) {
    auto ref = ElfBinary::open(reference);
    if (!ref) {
      fprintf(stderr, "cannot open %s\n", reference.c_str());
      return 1;
    }
    print_accuracy(*found, *ref, list);
  }
  return 0;
}
