// The table compiled an FDE at a time (binary/lazy_cfi_table.h) against the
// whole table (binary/cfi_table.h): the same rule at every pc, on the test
// programs, the C and C++ runtimes, cc1, damaged CFI and a binary with
// compressed DWARF beside a plain .debug_frame; only the FDEs looked up are
// compiled, once, whatever the threads.

#include "binary/lazy_cfi_table.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "binary/cfi_table.h"
#include "support/compressed_dwarf.h"
#include "support/elf_files.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// The pcs worth comparing: each row's first, middle and last pc and the pc
// after it (the next row or a gap), and a spread of pcs over the whole span.
std::vector<uint64_t> probe_pcs(const CfiTable& eager) {
  std::vector<uint64_t> pcs;
  const auto rows = eager.rows();
  for (size_t i = 0; i < rows.size(); i += exhaustive_step()) {
    const auto& row = rows[i];
    pcs.insert(pcs.end(), {row.start, row.start + (row.end - row.start) / 2, row.end - 1, row.end});
    if (row.start > 0) pcs.push_back(row.start - 1);
  }
  if (!rows.empty()) {
    const uint64_t lo = rows.front().start, hi = rows.back().end;
    const uint64_t step = std::max<uint64_t>(1, (hi - lo) / (20000 / exhaustive_step()));
    for (uint64_t pc = lo; pc < hi; pc += step) pcs.push_back(pc);
  }
  return pcs;
}

// Counts the pcs where the two tables disagree (rule or none).
size_t disagreements(const CfiTable& eager, const LazyCfiTable& lazy, const std::vector<uint64_t>& pcs) {
  size_t differ = 0;
  for (uint64_t pc : pcs) {
    const CfiRule* a = eager.lookup(pc);
    const CfiRule* b = lazy.lookup(pc);
    if ((a == nullptr) != (b == nullptr) || (a && !(*a == *b))) {
      if (differ == 0) UNSCOPED_INFO("first difference at 0x" << std::hex << pc);
      ++differ;
    }
  }
  return differ;
}

void check_same_rules(const std::string& path, const CfiCompileOptions& options = {}) {
  INFO(path << " (.eh_frame_hdr " << options.use_eh_frame_hdr << ", .debug_frame " << options.use_debug_frame << ")");
  auto binary = open_binary(path);
  auto eager = CfiTable::compile(*binary, options);
  auto lazy = LazyCfiTable::open(*binary, options);
  const std::vector<uint64_t> pcs = probe_pcs(*eager);
  CHECK(disagreements(*eager, *lazy, pcs) == 0);
  CHECK(lazy->compiled_fdes() <= lazy->fdes());
  CHECK(lazy->empty() == eager->empty());
}

}  // namespace

TEST_CASE("lazy CFI gives the whole table's rule at every pc of the test programs and fixtures", "[cfi][lazy]") {
  std::vector<std::string> paths = split_paths(SWPROF_CFI_TEST_PROGRAMS);
  paths.push_back("/proc/self/exe");
  paths.push_back(SWPROF_CFI_FIXTURE);
  paths.push_back(SWPROF_CFI_FIXTURE_NOHDR);
  paths.push_back(SWPROF_CFI_LONG_FIXTURE);
  for (const auto& path : paths) {
    check_same_rules(path);
    check_same_rules(path, {.use_eh_frame_hdr = false});
    check_same_rules(path, {.use_eh_frame_hdr = true, .use_debug_frame = false});
  }
}

TEST_CASE("lazy CFI gives the whole table's rule at every pc of the runtimes, the loader and cc1", "[cfi][lazy]") {
  std::vector<std::string> paths;
  for (const char* lib : {"libc.so.6", "libstdc++.so", "ld-linux-x86-64.so", "libm.so", "libgcc_s.so"})
    for (const auto& p : mapped_libraries(lib)) paths.push_back(p);
  REQUIRE(paths.size() >= 3);
  for (const auto& p : cc1_paths()) paths.push_back(p);
  for (const auto& path : paths) check_same_rules(path);
  for (const auto& p : mapped_libraries("libc.so.6")) check_same_rules(p, {.use_eh_frame_hdr = false});
}

TEST_CASE("lazy CFI gives the whole table's rule on damaged CFI, overlapping FDEs included", "[cfi][lazy]") {
  const CfiSections fixture = cfi_sections(SWPROF_CFI_FIXTURE);
  // Every pc of the fixture's code, and a little around it.
  const auto rows = CfiTable::compile(*fixture.binary)->rows();
  REQUIRE(!rows.empty());
  std::vector<uint64_t> pcs;
  for (uint64_t pc = rows.front().start - 64; pc < rows.back().end + 64; ++pc) pcs.push_back(pc);
  std::mt19937 rng(2468);
  size_t differ = 0, overlapping = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> image = fixture.file_copy();
    damage_section(image, round % 4 == 0 ? fixture.eh_frame_hdr : fixture.eh_frame, rng, 3, 8);
    std::shared_ptr<const ElfBinary> binary = ElfBinary::from_image("damaged", std::move(image));
    REQUIRE(binary);
    auto eager = CfiTable::compile(*binary);
    auto lazy = LazyCfiTable::open(*binary);
    differ += disagreements(*eager, *lazy, pcs);
    // Damage that widens an FDE's range makes it overlap the next ones.
    const auto damaged_rows = eager->rows();
    if (!damaged_rows.empty() && damaged_rows.back().end > rows.back().end) ++overlapping;
  }
  CHECK(differ == 0);
  CHECK(overlapping > 0);
}

TEST_CASE("lazy CFI compiles only the FDEs looked up", "[cfi][lazy]") {
  auto binary = open_binary(SWPROF_CFI_FIXTURE);
  auto lazy = LazyCfiTable::open(*binary);
  REQUIRE(lazy->fdes() > 3);
  CHECK(lazy->compiled_fdes() == 0);
  const FunctionSymbol* f = binary->function_named("cfi_rbp_frame");
  REQUIRE(f);
  CHECK(lazy->lookup(f->start) != nullptr);
  CHECK(lazy->compiled_fdes() == 1);
  const CfiRule* again = lazy->lookup(f->start + 1);
  CHECK(again != nullptr);
  CHECK(lazy->compiled_fdes() == 1);
  CHECK(lazy->lookup(0) == nullptr);  // no FDE: nothing compiled
  CHECK(lazy->compiled_fdes() == 1);
  const FunctionSymbol* other = binary->function_named("cfi_frameless");
  REQUIRE(other);
  CHECK(lazy->lookup(other->start) != nullptr);
  CHECK(lazy->compiled_fdes() == 2);
}

TEST_CASE("lazy CFI from several threads: each FDE compiled once, the same rules everywhere", "[cfi][lazy]") {
  const std::vector<std::string> libc = mapped_libraries("libc.so.6");
  REQUIRE(!libc.empty());
  auto binary = open_binary(libc.front());
  auto eager = CfiTable::compile(*binary);
  const std::vector<uint64_t> pcs = probe_pcs(*eager);

  // The same pc from every thread at once, on fresh tables: one compile.
  const uint64_t hot = eager->rows().at(eager->rows().size() / 2).start;
  for (int round = 0; round < 20; ++round) {
    auto lazy = LazyCfiTable::open(*binary);
    std::vector<const CfiRule*> seen(8);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < seen.size(); ++t) threads.emplace_back([&, t] { seen[t] = lazy->lookup(hot); });
    for (auto& t : threads) t.join();
    CHECK(lazy->compiled_fdes() == 1);
    CHECK(std::set<const CfiRule*>(seen.begin(), seen.end()).size() == 1);
    CHECK(seen[0] != nullptr);
  }

  // Every probe from every thread, each in its own order: the same answers.
  auto lazy = LazyCfiTable::open(*binary);
  std::vector<std::vector<const CfiRule*>> found(4, std::vector<const CfiRule*>(pcs.size()));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < found.size(); ++t) {
    threads.emplace_back([&, t] {
      std::vector<size_t> order(pcs.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(t)));
      for (size_t i : order) found[t][i] = lazy->lookup(pcs[i]);
    });
  }
  for (auto& t : threads) t.join();
  size_t differ = 0;
  for (size_t t = 1; t < found.size(); ++t) differ += found[t] != found[0];
  CHECK(differ == 0);
  CHECK(disagreements(*eager, *lazy, pcs) == 0);
  CHECK(lazy->compiled_fdes() <= lazy->fdes());
}

// The CFI of the program's own code is only in .debug_frame; its other DWARF
// is compressed. Reading .debug_frame must not open that DWARF: libdw would
// decompress it, writing section headers into the image (over the read-only
// file mapping of ElfBinary::open, a crash).
TEST_CASE("lazy CFI of a binary with compressed DWARF and a plain .debug_frame: the plain binary's rules, its DWARF untouched",
          "[cfi][lazy]") {
  swprof::testing::TempDir dir;
  const std::string plain = std::string(KNOWN_STACK_DIR) + "/known_stack_O2_nofp_debugframe";
  const std::string mixed = dir.file("compressed_dwarf");
  REQUIRE(swprof::testing::write_compressed_dwarf_plain_debug_frame(plain, mixed, dir.path()));
  REQUIRE(swprof::testing::section_compressed(mixed, ".debug_info"));
  REQUIRE_FALSE(swprof::testing::section_compressed(mixed, ".debug_frame"));

  check_same_rules(mixed);
  check_same_rules(mixed, {.use_eh_frame_hdr = false});

  // The same code as the plain binary: the same rule at every pc, and the
  // leaf's from .debug_frame.
  auto original = open_binary(plain);
  auto eager = CfiTable::compile(*original);
  auto from_file = open_binary(mixed);
  auto lazy = LazyCfiTable::open(*from_file);
  CHECK(disagreements(*eager, *lazy, probe_pcs(*eager)) == 0);
  const FunctionSymbol* leaf = original->function_named("leaf");
  REQUIRE(leaf);
  CHECK(lazy->lookup(leaf->start) != nullptr);
  CHECK(CfiTable::compile(*original, {.use_eh_frame_hdr = true, .use_debug_frame = false})->lookup(leaf->start) ==
        nullptr);

  // Over a writable image, no byte changes: no section was decompressed.
  const Bytes file = from_file->file_bytes();
  auto image = ElfBinary::from_image("compressed_dwarf", std::vector<uint8_t>(file.begin(), file.end()));
  REQUIRE(image);
  auto lazy_image = LazyCfiTable::open(*image);
  auto whole_image = CfiTable::compile(*image);
  CHECK(disagreements(*whole_image, *lazy_image, probe_pcs(*eager)) == 0);
  CHECK(std::equal(file.begin(), file.end(), image->file_bytes().begin(), image->file_bytes().end()));
}
