// What `swprof info` says about each binary (symbolize/binary_report.h), on
// the test programs built every way: with and without CFI, frame pointers,
// .symtab, DWARF, minidebuginfo; static. Expected counts come from binutils
// (readelf), never from the code under test.

#include "symbolize/binary_report.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>

#include "support/sym_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// No separate debuginfo anywhere: what the file itself has.
SymbolizerOptions no_debug_roots() {
  SymbolizerOptions o;
  o.debug_roots.clear();
  return o;
}

BinaryReport inspect(const std::string& program, const SymbolizerOptions& options = no_debug_roots()) {
  BinaryCache binaries;
  return inspect_binary(program_file(program), {}, binaries, options);
}

// FDEs readelf lists in `section` (".eh_frame" or ".debug_frame").
size_t readelf_fdes(const std::string& path, const std::string& section) {
  std::istringstream in(command_output("readelf --debug-dump=frames " + path + " 2>/dev/null"));
  size_t n = 0;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Contents of the ")) inside = line.find(" " + section + " ") != std::string::npos;
    n += inside && line.find(" FDE ") != std::string::npos;
  }
  return n;
}

// Defined function symbols (FUNC or IFUNC, at a non-zero address) readelf
// lists in the symbol table `table` (".symtab" or ".dynsym").
size_t readelf_functions(const std::string& path, const std::string& table) {
  std::istringstream in(command_output("readelf -sW " + path));
  size_t n = 0;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Symbol table ")) inside = line.find("'" + table + "'") != std::string::npos;
    std::istringstream fields(line);
    std::string num, value, size, type, bind, vis, ndx;
    if (!inside || !(fields >> num >> value >> size >> type >> bind >> vis >> ndx)) continue;
    n += (type == "FUNC" || type == "IFUNC") && ndx != "UND" && std::stoull(value, nullptr, 16) != 0;
  }
  return n;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("binary report: an unstripped PIE with CFI and DWARF, counted as readelf counts", "[binary_report]") {
  const std::string path = program_file("sym_target");
  const BinaryReport r = inspect("sym_target");
  CHECK(r.status == BinaryStatus::kFound);
  CHECK(r.kind == "PIE executable");
  CHECK(r.eh_frame_fdes == readelf_fdes(path, ".eh_frame"));
  CHECK(r.eh_frame_fdes > 5);
  CHECK(r.eh_frame_hdr);
  CHECK(r.debug_frame_fdes == 0);
  CHECK(r.cfi_share() > 0.5);  // a small program: crtbegin's code has no FDEs
  CHECK_FALSE(r.lacks_cfi());
  CHECK(r.cfi_bytes <= r.code_bytes);
  CHECK(r.symtab_functions == readelf_functions(path, ".symtab"));
  CHECK(r.dynsym_functions == readelf_functions(path, ".dynsym"));
  CHECK(r.symtab_functions > 5);
  CHECK_FALSE(r.minidebuginfo);
  CHECK(r.dwarf_file == path);
  CHECK(r.plt_entries > 0);
  CHECK(binary_advice(r, "").empty());
}

TEST_CASE("binary report: stripped, names only from where they are left", "[binary_report]") {
  SECTION("nothing: no .symtab, no DWARF") {
    const BinaryReport r = inspect("sym_target.stripped");
    CHECK(r.symtab_functions == 0);
    CHECK(r.dwarf_file.empty());
    CHECK_FALSE(r.has_full_names());
    CHECK(r.eh_frame_fdes == readelf_fdes(program_file("sym_target.stripped"), ".eh_frame"));
    const auto advice = binary_advice(r, "");
    REQUIRE(advice.size() == 1);
    CHECK(advice[0].find("build with -g, or keep .symtab") != std::string::npos);
  }
  SECTION("separate debuginfo found by build-id is named where it is") {
    TempDir dir;
    const std::string debug = program_file("sym_target.debug");
    BinaryCache binaries;
    const auto binary = ElfBinary::open(program_file("sym_target.stripped"));
    REQUIRE(binary);
    std::string hex;
    for (uint8_t b : binary->build_id()) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
    const std::string placed = dir.path() + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
    copy_file(debug, placed);
    SymbolizerOptions options;
    options.debug_roots = {dir.path()};
    const BinaryReport r = inspect_binary(program_file("sym_target.stripped"), {}, binaries, options);
    CHECK(r.dwarf_file == placed);
    CHECK(r.has_full_names());
    CHECK(binary_advice(r, "").empty());
  }
  SECTION(".symtab without DWARF: only lines are missing") {
    const BinaryReport r = inspect("sym_target.nodebug");
    CHECK(r.symtab_functions == readelf_functions(program_file("sym_target.nodebug"), ".symtab"));
    CHECK(r.dwarf_file.empty());
    CHECK(binary_advice(r, "") == std::vector<std::string>{"source lines and inline frames: build with -g"});
  }
  SECTION("minidebuginfo") {
    const BinaryReport r = inspect("sym_target.mini");
    CHECK(r.minidebuginfo);
    CHECK(r.symtab_functions == 0);
    CHECK(r.has_full_names());
  }
  SECTION("a stripped shared library: .dynsym only") {
    const BinaryReport r = inspect("libsym_dynlib.stripped.so");
    CHECK(r.kind == "shared library");
    BinaryCache binaries;
    const BinaryReport libc = inspect_binary("/lib/x86_64-linux-gnu/libc.so.6", {}, binaries, no_debug_roots());
    CHECK(libc.kind == "shared library");  // with an interpreter too, to run as a program
    CHECK(r.symtab_functions == 0);
    CHECK(r.dynsym_functions == readelf_functions(program_file("libsym_dynlib.stripped.so"), ".dynsym"));
    CHECK(r.dynsym_functions > 0);
  }
}

TEST_CASE("binary report: CFI and frame pointers under the flag matrix", "[binary_report]") {
  SECTION("CFI only in .debug_frame") {
    const std::string path = program_file("known_stack_O2_nofp_debugframe");
    const BinaryReport r = inspect("known_stack_O2_nofp_debugframe");
    CHECK(r.debug_frame_fdes == readelf_fdes(path, ".debug_frame"));
    CHECK(r.debug_frame_fdes > 5);
    CHECK(r.eh_frame_fdes == readelf_fdes(path, ".eh_frame"));
  }
  SECTION("no CFI, frame pointers: unwound by frame pointers, nothing to rebuild") {
    const BinaryReport r = inspect("known_stack_O2_fp_nocfi");
    CHECK(r.lacks_cfi());
    CHECK(r.prologues_checked > 5);
    CHECK(r.frame_pointer_share() >= 0.5);
    CHECK_FALSE(mentions(binary_advice(r, ""), "unwound by analysis"));
  }
  SECTION("no CFI, no frame pointers: rebuild with either") {
    const BinaryReport r = inspect("known_stack_O2_nofp_nocfi");
    CHECK(r.lacks_cfi());
    CHECK(r.frame_pointer_share() < 0.5);
    CHECK(mentions(binary_advice(r, ""), "build with -fasynchronous-unwind-tables or -fno-omit-frame-pointer"));
    CHECK(binary_advice(r, "somepkg").back() == "code without CFI or frame pointers is unwound by analysis");
  }
  SECTION("a static executable") {
    const BinaryReport r = inspect("plt_static");
    CHECK(r.kind == "static executable");
    CHECK(r.plt_entries > 0);  // its IRELATIVE stubs
  }
  SECTION("stripped static code without CFI: discovery counts the functions only calls reveal") {
    const BinaryReport r = inspect("known_static.stripped");
    CHECK(r.symtab_functions == 0);
    REQUIRE(r.discovery_run);
    // main (found as _start's argument), a, b, c, leaf and the clock helper at
    // least; each is a .symtab function of the unstripped twin without an FDE.
    CHECK(r.discovered_functions >= 6);
    CHECK(r.discovered_functions <= readelf_functions(program_file("known_static"), ".symtab"));
    CHECK_FALSE(r.discovery_budget_hit);
    CHECK(r.go_functions == 0);
  }
  SECTION("a binary with .symtab needs no discovery") {
    CHECK_FALSE(inspect("known_static").discovery_run);
  }
}

TEST_CASE("binary report: a stripped Go program is named from its pclntab, nothing to install", "[binary_report][go]") {
  const std::string path = std::string(SWPROF_GO_DIR) + "/known_go.stripped";
  if (std::string(SWPROF_GO_DIR).empty() || !std::filesystem::exists(path)) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  BinaryCache binaries;
  const BinaryReport r = inspect_binary(path, {}, binaries, no_debug_roots());
  CHECK(r.symtab_functions == 0);
  CHECK(r.go_functions > 1000);  // the runtime's functions and main's
  CHECK(r.go_version.starts_with("go1."));
  CHECK_FALSE(r.discovery_run);
  CHECK(r.has_full_names());
  CHECK(binary_advice(r, "").empty());
}

TEST_CASE("binary report: missing and changed binaries say what to do", "[binary_report]") {
  TempDir dir;
  BinaryCache binaries;
  const BinaryReport missing = inspect_binary(dir.file("gone"), {}, binaries, no_debug_roots());
  CHECK(missing.status == BinaryStatus::kMissing);
  CHECK_FALSE(missing.problem.empty());
  CHECK(mentions(binary_advice(missing, ""), "not on this machine: 'swprof archive RECORDING' where it was recorded"));
  const std::string copy = dir.file("sym_target");
  copy_file(program_file("sym_target"), copy);
  const BinaryReport changed = inspect_binary(copy, std::vector<uint8_t>(20, 0xab), binaries, no_debug_roots());
  CHECK(changed.status == BinaryStatus::kChanged);
  CHECK(mentions(binary_advice(changed, ""), "rebuilt or updated since the recording: 'swprof archive RECORDING'"));
}

TEST_CASE("binary advice: Debian packages get their debug package", "[binary_report]") {
  BinaryReport r;
  r.dynsym_functions = 100;
  CHECK(binary_advice(r, "libc6") == std::vector<std::string>{"names and lines: apt install libc6-dbg"});
  CHECK(binary_advice(r, "coreutils") ==
        std::vector<std::string>{"names and lines: apt install coreutils-dbgsym (from the debian-debug archive), or "
                                 "a debuginfod server (--debuginfod)"});
}
