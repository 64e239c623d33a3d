// The one-pass CFA program interpreter (binary/cfa_program.h) against
// libdw's per-row answers (CfiCompileOptions::reference_per_row), on real
// binaries and on damaged CFI, and on one FDE of 80,000 rows.

#include "binary/cfa_program.h"

#include <catch2/catch.hpp>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "binary/cfi_table.h"
#include "support/compressed_dwarf.h"
#include "support/elf_files.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string stats_text(const CfiTableStats& s) {
  std::ostringstream out;
  out << s.fdes << " fdes, " << s.rows << " rows, " << s.interpreted << " interpreted, " << s.rules << " rules, "
      << s.skipped_rows << " skipped rows, " << s.skipped_fdes << " skipped fdes";
  return out.str();
}

// Both tables hold the same rows and rules, and the same statistics.
void check_same_table(const CfiTable& fast, const CfiTable& reference) {
  CHECK(stats_text(fast.stats()) == stats_text(reference.stats()));
  const auto a = fast.rows();
  const auto b = reference.rows();
  REQUIRE(a.size() == b.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].start == b[i].start && a[i].end == b[i].end && *a[i].rule == *b[i].rule) continue;
    if (++differ <= 5)
      FAIL_CHECK(std::hex << "row " << a[i].start << "-" << a[i].end << " " << describe(*a[i].rule) << " vs " << b[i].start
                          << "-" << b[i].end << " " << describe(*b[i].rule));
  }
  CHECK(differ == 0);
}

void check_binary(const std::string& path) {
  INFO(path);
  auto binary = open_binary(path);
  for (bool hdr : {true, false}) {
    INFO("eh_frame_hdr " << hdr);
    auto fast = CfiTable::compile(*binary, {.use_eh_frame_hdr = hdr});
    auto reference = CfiTable::compile(*binary, {.use_eh_frame_hdr = hdr, .reference_per_row = true});
    check_same_table(*fast, *reference);
  }
}

void check_long_table(const ElfBinary& binary, const CfiTable& table) {
  const FunctionSymbol* f = binary.function_named("cfi_long_fde");
  REQUIRE(f);
  REQUIRE(f->size == 80001);
  const CfiTableStats& s = table.stats();
  CHECK(s.fdes == 1);
  CHECK(s.interpreted == 80001);  // the first row, then one per DW_CFA_advance_loc
  CHECK(s.rows == 80001);         // neighbours differ: nothing merges
  CHECK(s.rules == 2);
  CHECK(s.skipped() == 0);
  for (uint64_t off = 0; off <= 80000; ++off) {
    const CfiRule* rule = table.lookup(f->start + off);
    REQUIRE(rule);
    const bool pushed = off % 2 == 1 && off < 80000;
    REQUIRE(describe(*rule) == (pushed ? "cfa=rsp+16 ra=[cfa-8]" : "cfa=rsp+8 ra=[cfa-8]"));
  }
  CHECK(table.lookup(f->start + 80001) == nullptr);
}

}  // namespace

TEST_CASE("one pass over each FDE gives libdw's rows for the C and C++ runtimes and the loader", "[cfi][cfa_program]") {
  std::vector<std::string> paths;
  for (const char* lib : {"libc.so.6", "libstdc++.so", "ld-linux-x86-64.so", "libm.so", "libgcc_s.so"})
    for (const auto& p : mapped_libraries(lib)) paths.push_back(p);
  REQUIRE(paths.size() >= 3);
  for (const auto& path : paths) check_binary(path);
}

TEST_CASE("one pass over each FDE gives libdw's rows for the test programs and fixtures", "[cfi][cfa_program]") {
  std::vector<std::string> paths = split_paths(SWPROF_CFI_TEST_PROGRAMS);
  paths.push_back("/proc/self/exe");
  paths.push_back(SWPROF_CFI_FIXTURE);
  paths.push_back(SWPROF_CFI_FIXTURE_NOHDR);
  for (const auto& path : paths) check_binary(path);
}

TEST_CASE("one pass over each FDE gives libdw's rows for .debug_frame, beside compressed DWARF too", "[cfi][cfa_program]") {
  swprof::testing::TempDir dir;
  const std::string plain = std::string(KNOWN_STACK_DIR) + "/known_stack_O2_nofp_debugframe";
  const std::string mixed = dir.file("compressed_dwarf");
  REQUIRE(swprof::testing::write_compressed_dwarf_plain_debug_frame(plain, mixed, dir.path()));
  for (const auto& path : {plain, mixed}) {
    check_binary(path);
    auto binary = open_binary(path);
    const CfiTableStats with = CfiTable::compile(*binary, {.reference_per_row = true})->stats();
    const CfiTableStats without =
        CfiTable::compile(*binary, {.use_debug_frame = false, .reference_per_row = true})->stats();
    CHECK(with.fdes > without.fdes + 5);  // the program's own functions, from .debug_frame
  }
}

// The same rows and rules, without failing the test case.
bool same_rows(const CfiTable& a, const CfiTable& b) {
  const auto x = a.rows();
  const auto y = b.rows();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].start != y[i].start || x[i].end != y[i].end || !(*x[i].rule == *y[i].rule)) return false;
  return true;
}

TEST_CASE("one pass over damaged CFI: a table like libdw's rows, never a crash", "[cfi][cfa_program]") {
  const CfiSections fixture = cfi_sections(SWPROF_CFI_FIXTURE);
  std::mt19937 rng(4321);
  const int rounds = 300;
  int differ = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<uint8_t> image = fixture.file_copy();
    // A few bytes of the entries changed (past the first length field).
    damage_section(image, fixture.eh_frame, rng, 3, 8);
    auto binary = ElfBinary::from_image("damaged", std::move(image));
    REQUIRE(binary);
    auto fast = CfiTable::compile(*binary);
    auto reference = CfiTable::compile(*binary, {.reference_per_row = true});
    // Rows stay sorted and apart whatever the damage.
    uint64_t end = 0;
    for (const auto& row : fast->rows()) {
      REQUIRE(row.start >= end);
      REQUIRE(row.end > row.start);
      end = row.end;
    }
    if (!same_rows(*fast, *reference)) ++differ;
  }
  // Damage can make the two differ, in two ways only libdw's internals
  // explain: where a damaged FDE's range covers others, libdw answers their
  // pcs from whichever FDE its index finds, while the interpreter runs the
  // program of the FDE it compiles; and libdw reads an operand cut off by
  // the end of an entry from the bytes after it. About 1.5% of rounds.
  WARN(differ << " of " << rounds << " damaged tables differ from libdw's rows");
  CHECK(differ * 20 <= rounds);
}

TEST_CASE("an FDE of 80,000 rows compiles in one pass", "[cfi][cfa_program]") {
  auto binary = open_binary(SWPROF_CFI_LONG_FIXTURE);
  check_long_table(*binary, *CfiTable::compile(*binary));
}

// The same FDE through libdw's per-row answers: quadratic, about 16 s. Run by
// hand to compare times (swprof_unwind_tests "[cfa_program_reference]" -d yes).
TEST_CASE("an FDE of 80,000 rows through libdw's per-row answers", "[.][cfa_program_reference]") {
  auto binary = open_binary(SWPROF_CFI_LONG_FIXTURE);
  check_long_table(*binary, *CfiTable::compile(*binary, {.reference_per_row = true}));
}
