#include "binary/cfi_table.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "support/elf_files.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// "none" when no row covers the address.
std::string rule_at(const CfiTable& table, uint64_t vaddr) {
  const CfiRule* rule = table.lookup(vaddr);
  return rule ? describe(*rule) : "none";
}

struct Expected {
  uint64_t offset;
  const char* rule;
};

// Checks every address of a function against the rule of the instruction it
// belongs to (`rows` lists the first offset of each run of equal rules).
void check_function(const CfiTable& table, const ElfBinary& binary, const char* name, std::vector<Expected> rows) {
  const uint64_t start = function_start(binary, name);
  const uint64_t size = binary.function_named(name)->size;
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint64_t end = i + 1 < rows.size() ? rows[i + 1].offset : size;
    for (uint64_t off = rows[i].offset; off < end; ++off) {
      INFO(name << "+" << off);
      CHECK(rule_at(table, start + off) == rows[i].rule);
    }
  }
}

}  // namespace

TEST_CASE("fixture CFI compiles to the expected rule at every instruction", "[cfi]") {
  const char* path = GENERATE(SWPROF_CFI_FIXTURE, SWPROF_CFI_FIXTURE_NOHDR);
  INFO(path);
  auto binary = open_binary(path);
  auto table = CfiTable::compile(*binary);
  const CfiTableStats& stats = table->stats();

  SECTION("a standard rbp frame through prologue, body and epilogue") {
    const uint64_t f = function_start(*binary, "cfi_rbp_frame");
    CHECK(code_byte(*binary, f + 0) == 0x55);  // push %rbp
    CHECK(code_byte(*binary, f + 1) == 0x48);  // mov %rsp,%rbp
    CHECK(code_byte(*binary, f + 4) == 0x53);  // push %rbx
    CHECK(code_byte(*binary, f + 7) == 0x5d);  // pop %rbp
    CHECK(code_byte(*binary, f + 8) == 0xc3);  // ret
    check_function(*table, *binary, "cfi_rbp_frame",
                   {{0, "cfa=rsp+8 ra=[cfa-8]"},
                    {1, "cfa=rsp+16 ra=[cfa-8] rbp=[cfa-16]"},
                    {4, "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16]"},
                    {5, "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16] rbx=[cfa-24]"},
                    {7, "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16]"},
                    {8, "cfa=rsp+8 ra=[cfa-8] rbp=[cfa-16]"}});
  }
  SECTION("a frameless function, with the redundant row merged") {
    const uint64_t f = function_start(*binary, "cfi_frameless");
    CHECK(code_byte(*binary, f + 0) == 0x48);  // sub $0x28,%rsp
    CHECK(code_byte(*binary, f + 10) == 0xc3);
    check_function(*table, *binary, "cfi_frameless",
                   {{0, "cfa=rsp+8 ra=[cfa-8]"}, {4, "cfa=rsp+48 ra=[cfa-8]"}, {10, "cfa=rsp+8 ra=[cfa-8]"}});
    auto row = table->row_at(f + 5);
    REQUIRE(row);
    CHECK(row->start == f + 4);
    CHECK(row->end == f + 10);
  }
  SECTION("the PLT expression") {
    check_function(*table, *binary, "cfi_plt_like", {{0, "cfa=plt(rsp+8,k=11) ra=[cfa-8]"}});
  }
  SECTION("a DRAP prologue: CFA through r10, then *(rbp-8)") {
    const uint64_t f = function_start(*binary, "cfi_drap");
    CHECK(code_byte(*binary, f + 13) == 0x55);  // push %rbp
    CHECK(code_byte(*binary, f + 19) == 0x90);  // nop
    CHECK(code_byte(*binary, f + 22) == 0x5d);  // pop %rbp
    CHECK(code_byte(*binary, f + 27) == 0xc3);  // ret
    check_function(*table, *binary, "cfi_drap",
                   {{0, "cfa=rsp+8 ra=[cfa-8]"},
                    {5, "cfa=r10+0 ra=[cfa-8]"},
                    {17, "cfa=r10+0 ra=[cfa-8] rbp=[rbp+0]"},
                    {19, "cfa=[rbp-8] ra=[cfa-8] rbp=[rbp+0]"},
                    {22, "cfa=r10+0 ra=[cfa-8] rbp=[rbp+0]"},
                    {23, "cfa=r10+0 ra=[cfa-8]"},
                    {27, "cfa=rsp+8 ra=[cfa-8]"}});
  }
  SECTION("an entry point with an undefined return address") {
    check_function(*table, *binary, "cfi_entry", {{0, "cfa=rsp+8 ra=undef"}});
  }
  SECTION("every register rule kind; offsets beyond 16 bits are unsupported") {
    check_function(*table, *binary, "cfi_reg_rules",
                   {{0, "cfa=rsp+8 ra=[cfa-8]"},
                    {2, "cfa=rsp+16 ra=[cfa-8] rbp=undef r12=[cfa-16] r13=cfa-32 r15=[cfa-4096]"},
                    {3, "none"},
                    {4, "cfa=rsp+16 ra=[cfa-8] rbp=undef r12=[cfa-16] r13=cfa-32 r15=[cfa-4096]"},
                    {6, "cfa=rsp+8 ra=[cfa-8] rbp=undef r12=[cfa-16] r13=cfa-32 r15=[cfa-4096]"}});
  }
  SECTION("an unsupported expression leaves a hole, and is counted") {
    check_function(*table, *binary, "cfi_unsupported",
                   {{0, "cfa=rsp+8 ra=[cfa-8]"}, {1, "none"}, {2, "cfa=rsp+8 ra=[cfa-8]"}});
    CHECK(stats.skipped_rows == 2);  // cfi_reg_rules+3, cfi_unsupported+1
    CHECK(stats.skipped_fdes == 0);
  }
  SECTION("code without CFI has no rule") {
    const uint64_t f = function_start(*binary, "cfi_none");
    CHECK(table->lookup(f) == nullptr);
    CHECK(table->lookup(f + 1) == nullptr);
    CHECK(table->lookup(0) == nullptr);
    CHECK(table->lookup(~uint64_t{0}) == nullptr);
  }
  SECTION(".debug_frame rows are compiled too") {
    check_function(*table, *binary, "cfi_debug_frame_only",
                   {{0, "cfa=rsp+8 ra=[cfa-8]"},
                    {1, "cfa=rsp+16 ra=[cfa-8] rbp=[cfa-16]"},
                    {4, "cfa=rbp+16 ra=[cfa-8] rbp=[cfa-16]"},
                    {5, "cfa=rsp+8 ra=[cfa-8] rbp=[cfa-16]"}});
    auto without = CfiTable::compile(*binary, {.use_eh_frame_hdr = true, .use_debug_frame = false});
    CHECK(without->lookup(function_start(*binary, "cfi_debug_frame_only")) == nullptr);
    CHECK(without->stats().fdes == 7);
  }
  SECTION("stats count FDEs and rows") {
    CHECK(stats.fdes == 8);  // 7 in .eh_frame, 1 in .debug_frame
    CHECK(stats.interpreted > stats.rows);
    CHECK(stats.rules < stats.rows);
    CHECK(!table->empty());
  }
}

TEST_CASE("FDEs found through .eh_frame_hdr and by walking .eh_frame give the same table", "[cfi]") {
  auto with_hdr = open_binary(SWPROF_CFI_FIXTURE);
  auto a = CfiTable::compile(*with_hdr, {.use_eh_frame_hdr = true});
  auto b = CfiTable::compile(*with_hdr, {.use_eh_frame_hdr = false});
  auto nohdr = CfiTable::compile(*open_binary(SWPROF_CFI_FIXTURE_NOHDR));
  for (uint64_t addr = 0xff0; addr < 0x10b0; ++addr) {
    INFO(std::hex << addr);
    CHECK(rule_at(*a, addr) == rule_at(*b, addr));
    CHECK(rule_at(*a, addr) == rule_at(*nohdr, addr));
  }
}

TEST_CASE("libc.so.6 compiles into a table with many rows and few skipped", "[cfi]") {
  const std::vector<std::string> libcs = mapped_libraries("libc.so.6");
  REQUIRE(!libcs.empty());
  const std::string& path = libcs.front();
  auto libc = open_binary(path);
  const auto t0 = std::chrono::steady_clock::now();
  auto table = CfiTable::compile(*libc);
  const auto t1 = std::chrono::steady_clock::now();
  const CfiTableStats& s = table->stats();
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  WARN(path << ": " << s.fdes << " FDEs, " << s.interpreted << " rows interpreted -> " << s.rows
            << " rows after merging, " << s.rules << " distinct rules, " << s.skipped_rows << " rows and "
            << s.skipped_fdes << " FDEs skipped, " << table->memory_bytes() / 1024 << " KiB, compiled in "
            << ms << " ms");
  CHECK(s.fdes > 1000);
  CHECK(s.rows > 10000);
  CHECK(s.skipped_fdes == 0);
  CHECK(s.skipped_rows * 200 < s.interpreted);  // signal trampolines and the like: well under 0.5%

  // The PLT rows are the linker's expression.
  if (auto plt = libc->section(".plt"); plt && plt->data.size() > 16) {
    const CfiRule* rule = table->lookup(plt->addr + 16);
    REQUIRE(rule);
    CHECK(rule->cfa == CfaRule::kPlt);
    CHECK(rule->plt_threshold == 11);
  }
  // Every function symbol's entry: CFA = rsp+8, RA at CFA-8 (unless it has no CFI).
  const FunctionSymbol* memcpy_fn = libc->function_named("memcpy");
  if (memcpy_fn) {
    const CfiRule* rule = table->lookup(memcpy_fn->start);
    if (rule) CHECK(describe(*rule).rfind("cfa=rsp+8 ra=[cfa-8]", 0) == 0);
  }

  // Walking .eh_frame finds the same rows as the header's table.
  auto walked = CfiTable::compile(*libc, {.use_eh_frame_hdr = false});
  CHECK(walked->stats().rows == s.rows);
  CHECK(walked->stats().fdes == s.fdes);
  size_t compared = 0;
  for (uint64_t addr = 0; addr < 0x200000; addr += 7, ++compared) {
    const CfiRule* x = table->lookup(addr);
    const CfiRule* y = walked->lookup(addr);
    REQUIRE((x == nullptr) == (y == nullptr));
    if (x) REQUIRE(*x == *y);
  }
  CHECK(compared > 0);
}

TEST_CASE("corrupt CFI is skipped and counted, never a crash", "[cfi]") {
  const CfiSections fixture = cfi_sections(SWPROF_CFI_FIXTURE);
  std::mt19937 rng(1234);
  size_t compiled = 0, with_skips = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<uint8_t> image = fixture.file_copy();
    // Flip a few bytes inside .eh_frame or .eh_frame_hdr.
    const ElfSection& target = round % 4 == 0 ? fixture.eh_frame_hdr : fixture.eh_frame;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      const size_t at = target.offset + rng() % target.data.size();
      image[at] = static_cast<uint8_t>(rng());
    }
    auto binary = ElfBinary::from_image("corrupt", std::move(image));
    REQUIRE(binary);
    auto table = CfiTable::compile(*binary);
    REQUIRE(table);
    ++compiled;
    if (table->stats().skipped() > 0) ++with_skips;
    // Whatever survived still answers lookups.
    for (uint64_t addr = 0x1000; addr < 0x10a0; ++addr) (void)table->lookup(addr);
  }
  CHECK(compiled == 400);
  CHECK(with_skips > 0);

  // A binary with the CFI sections wiped out compiles to an empty table.
  std::vector<uint8_t> wiped = fixture.file_copy();
  const ElfSection& eh_frame = fixture.eh_frame;
  std::fill(wiped.begin() + static_cast<long>(eh_frame.offset),
            wiped.begin() + static_cast<long>(eh_frame.offset + eh_frame.data.size()), 0xff);
  auto binary = ElfBinary::from_image("wiped", std::move(wiped));
  REQUIRE(binary);
  auto table = CfiTable::compile(*binary, {.use_eh_frame_hdr = true, .use_debug_frame = false});
  CHECK(table->lookup(function_start(*binary, "cfi_rbp_frame")) == nullptr);
  CHECK(table->stats().skipped() > 0);
}

