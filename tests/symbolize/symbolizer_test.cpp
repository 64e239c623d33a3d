// Symbolizer on the sym_target test program and its stripped copies: names,
// demangling, lines, inline chains, separate debuginfo, .dynsym-only and
// minidebuginfo binaries, damaged debuginfo, unknown addresses, the vDSO; and
// Go functions of the stripped Go test program, named from its pclntab.

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "binary/elf_binary.h"
#include "binary/go_pclntab.h"
#include "common/hex.h"
#include "profile/call_tree.h"
#include "sampler/proc.h"
#include "support/read_file.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"
#include "symbolize/symbolizer.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kBase = 0x555555550000;

// A return address (the probes' addresses are return addresses).
Frame return_frame(uint64_t pc) {
  Frame f;
  f.pc = pc;
  f.stepper = StepperKind::kCfi;
  return f;
}

bool any_warning_mentions(const Symbolizer& s, const std::string& text) {
  for (const auto& w : s.warnings())
    if (w.find(text) != std::string::npos) return true;
  return false;
}

std::string warnings_text(const Symbolizer& s) {
  std::string out;
  for (const auto& w : s.warnings()) out += w + "\n";
  return out;
}

// Checks the inline probe's frames: inner_step and outer_step inlined into
// run_inline, each with the line it was at.
void check_inline_chain(const SymbolizedAddress& a) {
  REQUIRE(a.frames.size() == 3);
  CHECK(a.frames[0].function == "inner_step");
  CHECK(a.frames[0].inlined);
  CHECK(basename_of(a.frames[0].file) == "sym_inline.c");
  CHECK(a.frames[0].line == marker_line("sym_inline.c", "@inner-calls-probe"));
  CHECK(a.frames[1].function == "outer_step");
  CHECK(a.frames[1].inlined);
  CHECK(basename_of(a.frames[1].file) == "sym_inline.c");
  CHECK(a.frames[1].line == marker_line("sym_inline.c", "@outer-calls-inner"));
  CHECK(a.frames[2].function == "run_inline");
  CHECK_FALSE(a.frames[2].inlined);
  CHECK(basename_of(a.frames[2].file) == "sym_inline.c");
  CHECK(a.frames[2].line == marker_line("sym_inline.c", "@run-calls-outer"));
  CHECK(a.frames[2].decl_line == marker_line("sym_inline.c", "@run-inline-decl"));
}

// The same frames: names, lines, declaration lines, inlined or not.
void check_same_frames(const SymbolizedAddress& got, const SymbolizedAddress& want) {
  REQUIRE(got.frames.size() == want.frames.size());
  for (size_t i = 0; i < got.frames.size(); ++i) {
    CHECK(got.frames[i].function == want.frames[i].function);
    CHECK(got.frames[i].file == want.frames[i].file);
    CHECK(got.frames[i].line == want.frames[i].line);
    CHECK(got.frames[i].decl_line == want.frames[i].decl_line);
    CHECK(got.frames[i].inlined == want.frames[i].inlined);
  }
}

SymbolizerOptions hermetic_options(const TempDir& dir) {
  SymbolizerOptions o;
  o.debug_roots = {dir.file("no-debug-root")};
  o.perf_map_dir = dir.file("no-perf-maps");
  return o;
}

// sym_target.stripped as <dir>/bin/app, with a folder <dir>/debug to keep
// its debuginfo in.
struct StrippedApp {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  const std::string root = dir.file("debug");

  StrippedApp() { copy_file(program_file("sym_target.stripped"), app); }

  // Copies sym_target.debug to the app's build-id path under `under`
  // (root by default), compressed by objcopy with `method` ("zlib", "zstd")
  // unless it is empty; returns its path.
  std::string add_debuginfo(const std::string& method = "", const std::string& under = "") const {
    const std::string debug = build_id_path(under.empty() ? root : under, app);
    copy_file(program_file("sym_target.debug"), debug);
    if (!method.empty()) command_output("objcopy --compress-debug-sections=" + method + " " + debug);
    return debug;
  }

  // Hermetic options that look for debuginfo under root only.
  SymbolizerOptions options() const {
    SymbolizerOptions o = hermetic_options(dir);
    o.debug_roots = {root};
    return o;
  }
};

// Every probe as `symbolizer` gives it, against the plain sym_target.debug
// under a root of its own; and `symbolizer` warned of nothing.
void check_probes_as_plain_debuginfo(const StrippedApp& s, const ProcessMaps& maps, Symbolizer& symbolizer) {
  SymbolizerOptions options = s.options();
  const std::string plain_root = s.dir.file("plain");
  s.add_debuginfo("", plain_root);
  options.debug_roots = {plain_root};
  Symbolizer reference(options);
  for (const auto& [tag, vaddr] : probe_addresses()) {
    INFO(tag);
    check_same_frames(symbolizer.symbolize(maps, 1, return_frame(kBase + vaddr)),
                      reference.symbolize(maps, 1, return_frame(kBase + vaddr)));
  }
  INFO(warnings_text(symbolizer));
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: a stripped executable's _start and main are named, with their offsets", "[symbolize]") {
  TempDir dir;
  Symbolizer symbolizer(hermetic_options(dir));
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, program_file("sym_target.stripped"), kBase);
  auto named = ElfBinary::open(program_file("sym_target"));
  REQUIRE(named);
  for (const char* name : {"_start", "main"}) {
    const FunctionSymbol* fn = named->function_named(name);
    REQUIRE(fn);
    REQUIRE(fn->size > 8);
    Frame f = return_frame(kBase + fn->start + 8);
    f.flags = kFrameExactPc;
    const auto& a = symbolizer.symbolize(maps, 1, f);
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == name);
    CHECK(a.frames[0].function_offset == 8);
  }
}

}  // namespace

TEST_CASE("symbolizer: names, lines and inline frames of optimized code", "[symbolize]") {
  TempDir dir;
  const std::string path = program_file("sym_target");
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, path, kBase);
  const auto& probes = probe_addresses();
  Symbolizer symbolizer(hermetic_options(dir));

  SECTION("functions inlined two deep are frames of their own, innermost first") {
    const uint64_t vaddr = probes.at("inline");
    const SymbolizedAddress& a = symbolizer.symbolize(maps, 1234, return_frame(kBase + vaddr));
    check_inline_chain(a);
    for (const SourceFrame& f : a.frames) {
      CHECK(f.module == "sym_target");
      CHECK(f.module_offset == file_offset_of(path, vaddr));
    }
    const auto symbols = nm_symbols(path, false);
    const auto start = symbols.find("run_inline");
    REQUIRE(start != symbols.end());
    CHECK(a.frames[2].function_offset == vaddr - start->second);
    CHECK(display_name(a.frames[2]) == "run_inline");
  }

  SECTION("a template member in a namespace is demangled") {
    const SymbolizedAddress& a = symbolizer.symbolize(maps, 1234, return_frame(kBase + probes.at("template")));
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == "sym_test::Box<int>::twice(int)");
    CHECK(basename_of(a.frames[0].file) == "sym_target.cpp");
    CHECK(a.frames[0].line == marker_line("sym_target.cpp", "@template-calls-probe"));
    CHECK(a.frames[0].decl_line > 0);
  }

  SECTION("a static function is named from .symtab") {
    const SymbolizedAddress& a = symbolizer.symbolize(maps, 1234, return_frame(kBase + probes.at("static")));
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == "static_worker");
    CHECK(a.frames[0].line == marker_line("sym_inline.c", "@static-calls-probe"));
  }

  SECTION("each distinct address is symbolized once") {
    const Frame f = return_frame(kBase + probes.at("inline"));
    const SymbolizedAddress& first = symbolizer.symbolize(maps, 1, f);
    const size_t cached = symbolizer.cached_addresses();
    const SymbolizedAddress& again = symbolizer.symbolize(maps, 2, f);  // another process, same binary
    CHECK(&first == &again);
    CHECK(symbolizer.cached_addresses() == cached);
  }

  SECTION("an exact pc is looked up as is, a return address one byte before") {
    // The probe's return address is the instruction after the call; as an
    // exact pc it names that instruction's own line, which is not the call's.
    Frame exact = return_frame(kBase + probes.at("inline"));
    exact.flags = kFrameExactPc;
    const SymbolizedAddress& a = symbolizer.symbolize(maps, 1, exact);
    const SymbolizedAddress& r = symbolizer.symbolize(maps, 1, return_frame(exact.pc));
    CHECK(&a != &r);
    CHECK(a.frames.back().function_offset == r.frames.back().function_offset);
    CHECK(a.frames.back().module_offset == r.frames.back().module_offset);
  }

  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: options turn off demangling and inline frames", "[symbolize]") {
  TempDir dir;
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, program_file("sym_target"), kBase);
  const auto& probes = probe_addresses();
  SymbolizerOptions options = hermetic_options(dir);

  SECTION("demangle = false keeps the symbol table's name") {
    options.demangle = false;
    Symbolizer symbolizer(options);
    const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probes.at("template")));
    CHECK(a.frames.back().function == "_ZN8sym_test3BoxIiE5twiceEi");
  }
  SECTION("inline_frames = false gives the real function at the leaf line") {
    options.inline_frames = false;
    Symbolizer symbolizer(options);
    const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probes.at("inline")));
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == "run_inline");
    CHECK(a.frames[0].line == marker_line("sym_inline.c", "@inner-calls-probe"));
  }
  SECTION("lines = false names functions only") {
    options.lines = false;
    Symbolizer symbolizer(options);
    const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probes.at("inline")));
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == "run_inline");
    CHECK(a.frames[0].file.empty());
    CHECK(a.frames[0].line == 0);
  }
}

TEST_CASE("symbolizer: separate debuginfo found by build-id", "[symbolize]") {
  const StrippedApp s;
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
  const Frame probe = return_frame(kBase + probe_addresses().at("inline"));

  SECTION("without it a fully stripped binary names nothing") {
    Symbolizer symbolizer(hermetic_options(s.dir));
    const auto& a = symbolizer.symbolize(maps, 1, probe);
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function.empty());
    CHECK(a.frames[0].file.empty());
    CHECK(display_name(a.frames[0]).starts_with("[unknown] app+0x"));
    CHECK(symbolizer.warnings().empty());
  }
  SECTION("under <root>/.build-id/xx/yyyy.debug it gives names, lines and inline frames") {
    s.add_debuginfo();
    SymbolizerOptions options = s.options();
    options.debug_roots = {s.dir.file("elsewhere"), s.root};
    Symbolizer symbolizer(options);
    check_inline_chain(symbolizer.symbolize(maps, 1, probe));
    const auto& t = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("template")));
    CHECK(t.frames.back().function == "sym_test::Box<int>::twice(int)");
    INFO(warnings_text(symbolizer));
    CHECK(symbolizer.warnings().empty());
  }
}

TEST_CASE("symbolizer: separate debuginfo found by .gnu_debuglink", "[symbolize]") {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.linked"), app);
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, app, kBase);
  const Frame probe = return_frame(kBase + probe_addresses().at("inline"));
  SymbolizerOptions options = hermetic_options(dir);
  const std::string root = dir.file("debug");
  options.debug_roots = {root};

  SECTION("beside the binary") { copy_file(program_file("sym_target.debug"), dir.file("bin/sym_target.debug")); }
  SECTION("in the binary's .debug folder") {
    copy_file(program_file("sym_target.debug"), dir.file("bin/.debug/sym_target.debug"));
  }
  SECTION("under <root>/<binary's folder>") {
    copy_file(program_file("sym_target.debug"), root + dir.file("bin/sym_target.debug"));
  }
  Symbolizer symbolizer(options);
  check_inline_chain(symbolizer.symbolize(maps, 1, probe));
  INFO(warnings_text(symbolizer));
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: a binary without a build-id takes the debuglink's file only when its CRC agrees",
          "[symbolize]") {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.linked"), app);
  command_output("objcopy --remove-section=.note.gnu.build-id " + app);
  REQUIRE(ElfBinary::open(app)->build_id().empty());
  const std::string debug = dir.file("bin/sym_target.debug");
  copy_file(program_file("sym_target.debug"), debug);
  const bool damaged = GENERATE(false, true);
  if (damaged) {  // one byte of a section name changed: still an ELF file, of another CRC
    std::string bytes = read_file(debug);
    const size_t at = bytes.rfind(".debug_info");
    REQUIRE(at != std::string::npos);
    bytes[at + 1] = 'D';
    write_file(debug, bytes);
  }
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, app, kBase);
  Symbolizer symbolizer(hermetic_options(dir));
  const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline")));
  INFO(warnings_text(symbolizer));
  if (!damaged) {
    check_inline_chain(a);
    CHECK(symbolizer.warnings().empty());
  } else {
    CHECK(a.frames.size() == 1);
    CHECK(a.frames.back().file.empty());
    CHECK(any_warning_mentions(symbolizer, "ignored " + debug + " as debuginfo of " + app));
  }
}

TEST_CASE("symbolizer: debuginfo of another build is rejected with a warning", "[symbolize]") {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.linked"), app);
  // A real ELF under the linked name, but from another build.
  copy_file(program_file("libsym_dynlib.so"), dir.file("bin/.debug/sym_target.debug"));
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, app, kBase);
  Symbolizer symbolizer(hermetic_options(dir));
  const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline")));
  CHECK(a.frames.size() == 1);
  CHECK(a.frames.back().file.empty());
  INFO(warnings_text(symbolizer));
  REQUIRE(symbolizer.warnings().size() == 1);
  CHECK(any_warning_mentions(symbolizer, dir.file("bin/.debug/sym_target.debug")));
}

TEST_CASE("symbolizer: damaged debuginfo gives one warning and names from symbols", "[symbolize]") {
  TempDir dir;
  const std::string root = dir.file("debug");
  SymbolizerOptions options = hermetic_options(dir);
  options.debug_roots = {root};
  const auto& probes = probe_addresses();

  SECTION("garbage where the build-id debug file should be") {
    const std::string app = dir.file("bin/app");
    copy_file(program_file("sym_target.nodebug"), app);
    const std::string debug = build_id_path(root, app);
    write_file(debug, std::string(4096, '\x5a'));
    BinaryCache binaries;
    const ProcessMaps maps = load_like_loader(binaries, app, kBase);
    Symbolizer symbolizer(options);
    for (int i = 0; i < 2; ++i) {
      const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probes.at("inline") + i));
      REQUIRE(a.frames.size() == 1);
      CHECK(a.frames[0].function == "run_inline");
      CHECK(a.frames[0].file.empty());
    }
    CHECK(symbolizer.symbolize(maps, 1, return_frame(kBase + probes.at("static"))).frames[0].function ==
          "static_worker");
    INFO(warnings_text(symbolizer));
    REQUIRE(symbolizer.warnings().size() == 1);
    CHECK(any_warning_mentions(symbolizer, debug));
  }

  SECTION("a debug file whose .debug_info is overwritten") {
    const std::string app = dir.file("bin/app");
    copy_file(program_file("sym_target.stripped"), app);
    const std::string debug = build_id_path(root, app);
    copy_file(program_file("sym_target.debug"), debug);
    auto info = ElfBinary::open(debug)->section(".debug_info");
    REQUIRE(info);
    REQUIRE(info->data.size() > 64);
    {
      std::fstream f(debug, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(info->offset));
      const std::string junk(info->data.size(), '\xff');
      f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
      REQUIRE(f.good());
    }
    BinaryCache binaries;
    const ProcessMaps maps = load_like_loader(binaries, app, kBase);
    Symbolizer symbolizer(options);
    for (const auto& [tag, vaddr] : probes) {
      const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + vaddr));
      CHECK(!a.frames.back().function.empty());  // the debug file's .symtab is intact
    }
    INFO(warnings_text(symbolizer));
    CHECK(symbolizer.warnings().size() == 1);
  }
}

TEST_CASE("symbolizer: debuginfo with compressed sections gives the same frames as uncompressed", "[symbolize]") {
  const std::string method = GENERATE(std::string("zlib"), std::string("zstd"));
  const StrippedApp s;
  const std::string debug = s.add_debuginfo(method);
  REQUIRE(command_output("readelf -SW " + debug + " | grep -c ' \\.debug_info .* C '") == "1\n");
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
  Symbolizer symbolizer(s.options());
  const auto& probe = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline")));
  INFO(method << ": " << warnings_text(symbolizer));
  check_inline_chain(probe);
  check_probes_as_plain_debuginfo(s, maps, symbolizer);
}

TEST_CASE("symbolizer: debuginfo rewritten by dwz gives the same frames as before", "[symbolize]") {
  // dwz (as Debian and Fedora run it on debug packages) moves DIEs that
  // units share into partial units (DW_TAG_imported_unit, DW_FORM_ref_addr)
  // and, with -m, into a supplementary file named by .gnu_debugaltlink
  // (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt). The inline chains' names
  // and lines must come out as they were, also when the debuginfo is then
  // compressed and read from memory.
  // multifile: the supplementary file where .gnu_debugaltlink names it;
  // by-build-id: named where it is not, found by its build-id under the
  // debug root (/usr/lib/debug/.build-id/ for a package).
  const std::string layout = GENERATE(std::string("single"), std::string("multifile"), std::string("by-build-id"));
  const std::string method = GENERATE(std::string(""), std::string("zlib"));
  const StrippedApp s;
  const std::string debug = s.add_debuginfo();
  if (layout == "single") {
    command_output("dwz " + debug);
    CHECK(command_output("readelf --debug-dump=info " + debug + " 2>/dev/null | grep -c DW_TAG_partial_unit") != "0\n");
  } else {
    // Two copies share everything: it all moves to the supplementary file.
    const std::string twin = s.dir.file("twin.debug");
    copy_file(debug, twin);
    const std::string common = s.dir.file("common.debug");
    const std::string named = layout == "multifile" ? common : s.dir.file("elsewhere/common.debug");
    command_output("dwz -m " + common + " -M " + named + " " + debug + " " + twin);
    REQUIRE(std::filesystem::exists(common));
    if (layout == "by-build-id") {
      const std::string by_id = build_id_path(s.root, common);
      std::filesystem::create_directories(std::filesystem::path(by_id).parent_path());
      std::filesystem::rename(common, by_id);
    }
    CHECK(command_output("readelf -SW " + debug + " | grep -c gnu_debugaltlink") == "1\n");
    CHECK(command_output("readelf --debug-dump=abbrev " + debug + " 2>/dev/null | grep -c DW_FORM_GNU_ref_alt") !=
          "0\n");
  }
  if (!method.empty()) command_output("objcopy --compress-debug-sections=" + method + " " + debug);

  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
  Symbolizer symbolizer(s.options());
  INFO(layout << " " << method);
  check_inline_chain(symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline"))));
  check_probes_as_plain_debuginfo(s, maps, symbolizer);
}

TEST_CASE("symbolizer: reading compressed debuginfo closes no descriptor it does not own", "[symbolize]") {
  // libdwfl closes a module's debuginfo descriptor when it ends; a lookup
  // that never told it which one leaves 0 there, and closed standard input.
  if (fcntl(0, F_GETFD) == -1) REQUIRE(open("/dev/null", O_RDONLY) == 0);
  const StrippedApp s;
  s.add_debuginfo("zlib");
  const int kept = open(s.app.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(kept >= 0);
  {
    BinaryCache binaries;
    const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
    Symbolizer symbolizer(s.options());
    check_inline_chain(symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline"))));
  }
  CHECK(fcntl(0, F_GETFD) != -1);
  CHECK(fcntl(kept, F_GETFD) != -1);
  close(kept);
}

// Overwrites the ch_size of `section`'s compression header in `path`.
static void claim_uncompressed_size(const std::string& path, const std::string& section, uint64_t size) {
  auto elf = ElfBinary::open(path);
  REQUIRE(elf);
  const auto s = elf->section(section);
  REQUIRE(s);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(s->offset + 8));  // Elf64_Chdr: ch_type, ch_reserved, ch_size
  f.write(reinterpret_cast<const char*>(&size), sizeof size);
  REQUIRE(f.good());
}

TEST_CASE("symbolizer: a compressed section claiming a huge size gives a warning and names from symbols",
          "[symbolize]") {
  const StrippedApp s;
  const std::string debug = s.add_debuginfo("zlib");
  claim_uncompressed_size(debug, ".debug_info", uint64_t{1} << 40);
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
  Symbolizer symbolizer(s.options());
  const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline")));
  REQUIRE(a.frames.size() == 1);
  CHECK(a.frames[0].function == "run_inline");  // the debug file's .symtab
  CHECK(a.frames[0].file.empty());
  INFO(warnings_text(symbolizer));
  REQUIRE(symbolizer.warnings().size() == 1);
  CHECK(any_warning_mentions(symbolizer, "ignored the compressed .debug_info section of " + debug +
                                             ": it claims 1099511627776 bytes uncompressed"));
}

TEST_CASE("symbolizer: without lines no DWARF is opened", "[symbolize]") {
  // A debug file whose DWARF is damaged warns when its DWARF is read: with
  // lines off (and so no inline frames), nothing warns.
  const StrippedApp s;
  claim_uncompressed_size(s.add_debuginfo("zlib"), ".debug_info", uint64_t{1} << 40);
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
  SymbolizerOptions options = s.options();
  options.lines = false;
  options.inline_frames = false;
  Symbolizer symbolizer(options);
  for (const auto& [tag, vaddr] : probe_addresses()) {
    const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + vaddr));
    REQUIRE(a.frames.size() == 1);
    CHECK(!a.frames[0].function.empty());
    CHECK(a.frames[0].file.empty());
  }
  INFO(warnings_text(symbolizer));
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: without debuginfod, a binary without debuginfo does not load libdebuginfod", "[symbolize]") {
  // libdw loads its debuginfod client (and curl, gnutls, ... behind it) the
  // first time its standard lookup finds nothing on disk. No test in this
  // program turns debuginfod on.
  const StrippedApp s;
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
  Symbolizer symbolizer(hermetic_options(s.dir));
  const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline")));
  CHECK(a.frames[0].function.empty());
  CHECK(read_file("/proc/self/maps").find("libdebuginfod") == std::string::npos);
}

TEST_CASE("symbolizer: a binary with only .dynsym names its exported functions", "[symbolize]") {
  TempDir dir;
  const std::string lib = program_file("libsym_dynlib.stripped.so");
  BinaryCache binaries;
  const uint64_t base = 0x7f0000000000;
  const ProcessMaps maps = load_like_loader(binaries, lib, base);
  Symbolizer symbolizer(hermetic_options(dir));
  const auto exported = nm_symbols(lib, true);
  for (const char* name : {"sym_exported_entry", "sym_exported_other"}) {
    auto it = exported.find(name);
    REQUIRE(it != exported.end());
    Frame f = return_frame(base + it->second + 2);
    f.flags = kFrameExactPc;
    const auto& a = symbolizer.symbolize(maps, 1, f);
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == name);
    CHECK(a.frames[0].function_offset == 2);
    CHECK(a.frames[0].module == "libsym_dynlib.stripped.so");
  }
  // A static function has no .dynsym entry: not named after itself.
  const auto all = nm_symbols(program_file("libsym_dynlib.so"), false);
  auto hidden = all.find("hidden_helper");
  REQUIRE(hidden != all.end());
  Frame f = return_frame(base + hidden->second);
  f.flags = kFrameExactPc;
  CHECK(symbolizer.symbolize(maps, 1, f).frames[0].function != "hidden_helper");
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: minidebuginfo names static functions of a stripped binary", "[symbolize]") {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.mini"), app);
  auto elf = ElfBinary::open(app);
  REQUIRE(elf);
  REQUIRE(elf->section(".gnu_debugdata"));
  REQUIRE_FALSE(elf->section(".symtab"));
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, app, kBase);
  Symbolizer symbolizer(hermetic_options(dir));
  const auto& a = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("static")));
  CHECK(a.frames.back().function == "static_worker");
  const auto& b = symbolizer.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline")));
  CHECK(b.frames.back().function == "run_inline");
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: unknown addresses keep their module and offset", "[symbolize]") {
  TempDir dir;
  Symbolizer symbolizer(hermetic_options(dir));

  SECTION("in no mapping") {
    ProcessMaps empty;
    const auto& a = symbolizer.symbolize(empty, 1, return_frame(0x1235));
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function.empty());
    CHECK(a.frames[0].module == "[unknown]");
    CHECK(a.frames[0].module_offset == 0x1235);
    CHECK(display_name(a.frames[0]) == "[unknown] [unknown]+0x1235");
  }
  SECTION("in a mapped file that is gone") {
    BinaryCache binaries;
    ProcessMaps maps;
    maps.add(resolve_mapping(binaries, 0x400000, 0x401000, 0x2000, "/nonexistent/libgone.so", true, {}));
    const auto& a = symbolizer.symbolize(maps, 1, return_frame(0x400101));
    CHECK(a.frames[0].function.empty());
    CHECK(a.frames[0].module == "libgone.so");
    CHECK(a.frames[0].module_offset == 0x2101);
    CHECK(display_name(a.frames[0]) == "[unknown] libgone.so+0x2101");
  }
  SECTION("in a binary, outside every function (its ELF header)") {
    BinaryCache binaries;
    const ProcessMaps maps = load_like_loader(binaries, program_file("sym_target"), kBase);
    Frame f = return_frame(kBase + 0x40);
    f.flags = kFrameExactPc;
    const auto& a = symbolizer.symbolize(maps, 1, f);
    CHECK(a.frames[0].function.empty());
    CHECK(display_name(a.frames[0]) == "[unknown] sym_target+0x40");
  }
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: the same pc asked again of other maps, another process or exactly gets its own answer",
          "[symbolize]") {
  TempDir dir;
  Symbolizer symbolizer(hermetic_options(dir));
  BinaryCache binaries;
  ProcessMaps first, second;
  first.add(resolve_mapping(binaries, 0x400000, 0x401000, 0x2000, "/nonexistent/libfirst.so", true, {}));
  second.add(resolve_mapping(binaries, 0x400000, 0x401000, 0x5000, "/nonexistent/libsecond.so", true, {}));
  const auto named = [&](const ProcessMaps& maps, uint32_t pid, const Frame& f) {
    return display_name(symbolizer.symbolize(maps, pid, f).frames[0]);
  };
  Frame exact = return_frame(0x400101);
  exact.flags = kFrameExactPc;
  for (int round = 0; round < 2; ++round) {  // the second round is answered from what the first asked
    CHECK(named(first, 1, return_frame(0x400101)) == "[unknown] libfirst.so+0x2101");
    CHECK(named(second, 1, return_frame(0x400101)) == "[unknown] libsecond.so+0x5101");
    CHECK(named(first, 1, exact) == "[unknown] libfirst.so+0x2101");
    CHECK(&symbolizer.symbolize(first, 1, exact) != &symbolizer.symbolize(first, 1, return_frame(0x400101)));
  }
  // Maps changed by a later mapping (mmap over the old one) are other maps.
  ProcessMaps changed = first;
  changed.add(resolve_mapping(binaries, 0x400000, 0x401000, 0x9000, "/nonexistent/libthird.so", true, {}));
  CHECK(named(changed, 1, return_frame(0x400101)) == "[unknown] libthird.so+0x9101");
  CHECK(named(first, 1, return_frame(0x400101)) == "[unknown] libfirst.so+0x2101");
  // JIT code is named per process (its perf map): outside binaries the pid counts.
  ProcessMaps anon;
  Mapping jit;
  jit.start = 0x7f0000000000;
  jit.end = 0x7f0000010000;
  jit.executable = true;
  anon.add(jit);
  symbolizer.add_recorded_perf_map(7, "7f0000000100 40 jitted_in_7\n");
  symbolizer.add_recorded_perf_map(8, "7f0000000100 40 jitted_in_8\n");
  for (int round = 0; round < 2; ++round) {
    CHECK(named(anon, 7, return_frame(0x7f0000000110)) == "jitted_in_7");
    CHECK(named(anon, 8, return_frame(0x7f0000000110)) == "jitted_in_8");
  }
  // A recording's copy of a map comes in steps: code asked about before
  // the lines that name it is named once they arrived, by either kind of copy.
  const std::string before_lines = named(anon, 9, return_frame(0x7f0000000210));
  CHECK(before_lines.find("[unknown]") != std::string::npos);
  CHECK(named(anon, 9, return_frame(0x7f0000000210)) == before_lines);
  symbolizer.add_recorded_perf_map(9, "7f0000000200 40 jitted_later\n");
  CHECK(named(anon, 9, return_frame(0x7f0000000210)) == "jitted_later");
  CHECK(named(anon, 10, return_frame(0x7f0000000310)).find("[unknown]") != std::string::npos);
  symbolizer.add_final_perf_map(10, "7f0000000300 40 jitted_at_the_end\n");
  CHECK(named(anon, 10, return_frame(0x7f0000000310)) == "jitted_at_the_end");
  CHECK(named(anon, 7, return_frame(0x7f0000000110)) == "jitted_in_7");  // other processes keep their names
}

TEST_CASE("symbolizer: a PLT stub of a stripped binary is named as perf names it", "[symbolize]") {
  TempDir dir;
  Symbolizer symbolizer(hermetic_options(dir));
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, program_file("plt_names_ibt.stripped"), kBase);
  uint64_t write_stub = 0;
  for (const auto& [address, name] : objdump_stub_labels(program_file("plt_names_ibt.plt.expected")))
    if (name == "write@plt") write_stub = address;
  REQUIRE(write_stub != 0);
  Frame f = return_frame(kBase + write_stub + 4);
  f.flags = kFrameExactPc;
  const auto& a = symbolizer.symbolize(maps, 1, f);
  REQUIRE(a.frames.size() == 1);
  CHECK(a.frames[0].function == "write@plt");
  CHECK(a.frames[0].function_offset == 4);
  CHECK(display_name(a.frames[0]) == "write@plt");
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: the vDSO is named from its own symbols", "[symbolize]") {
  TempDir dir;
  const std::vector<uint8_t> image = read_own_vdso();
  const uint64_t start = getauxval(AT_SYSINFO_EHDR);
  if (image.empty() || start == 0) {
    WARN("no vDSO: not checked");
    return;
  }
  // nm reads the same image from a file: the expected names and addresses.
  const std::string copy = dir.file("vdso.so");
  write_file(copy, std::string(image.begin(), image.end()));
  const auto symbols = nm_symbols(copy, true);
  auto it = symbols.find("__vdso_clock_gettime");
  REQUIRE(it != symbols.end());

  BinaryCache binaries;
  binaries.add_image("[vdso]", image);
  ProcessMaps maps;
  maps.add(resolve_mapping(binaries, start, start + ((image.size() + 0xfff) & ~size_t{0xfff}), 0, "[vdso]", true, {}));
  REQUIRE(maps.find(start)->binary);
  Symbolizer symbolizer(hermetic_options(dir));
  Frame f = return_frame(maps.find(start)->bias + it->second + 1);
  f.flags = kFrameExactPc;
  const auto& a = symbolizer.symbolize(maps, 1, f);
  REQUIRE(a.frames.size() == 1);
  CHECK(a.frames[0].module == "[vdso]");
  // clock_gettime and __vdso_clock_gettime are aliases: either name is right.
  bool known = false;
  for (const auto& [name, addr] : symbols) known |= addr == it->second && name == a.frames[0].function;
  INFO(a.frames[0].function);
  CHECK(known);
  CHECK(a.frames[0].function_offset == 1);
}

TEST_CASE("symbolizer: addresses in one unnamed function of a stripped binary share its start's name", "[symbolize]") {
  TempDir dir;
  Symbolizer symbolizer(hermetic_options(dir));
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, program_file("sym_target.stripped"), kBase);
  // Where the function is, from the unstripped twin (same addresses).
  auto named = ElfBinary::open(program_file("sym_target"));
  REQUIRE(named);
  // run_inline: main and _start are named in stripped executables too
  // (binary/startup_functions.h).
  const FunctionSymbol* fn = named->function_named("run_inline");
  REQUIRE(fn);
  REQUIRE(fn->size > 8);
  const uint64_t start_offset = *named->file_offset_of(fn->start);
  std::vector<SourceFrame> frames;
  for (uint64_t offset : {uint64_t{1}, fn->size - 1}) {
    Frame f = return_frame(kBase + fn->start + offset);
    f.flags = kFrameExactPc;
    const auto& a = symbolizer.symbolize(maps, 1, f);
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function.empty());
    CHECK(a.frames[0].start_offset == start_offset);
    CHECK(a.frames[0].function_offset == offset);
    frames.push_back(a.frames[0]);
  }
  char expected[64];
  snprintf(expected, sizeof expected, "[unknown] sym_target.stripped+0x%llx", static_cast<unsigned long long>(start_offset));
  CHECK(display_name(frames[0]) == expected);
  CHECK(display_name(frames[1]) == display_name(frames[0]));
  CHECK(frames[0].module_offset != frames[1].module_offset);
  CHECK(context_hash(frames[0].module, display_name(frames[0])) ==
        context_hash(frames[1].module, display_name(frames[1])));
  CHECK(symbolizer.warnings().empty());
}

TEST_CASE("symbolizer: Go functions of a stripped binary are named from the pclntab, with lines and inlined calls",
          "[symbolize][go]") {
  const std::string path = std::string(SWPROF_GO_DIR) + "/known_go.stripped";
  if (std::string(SWPROF_GO_DIR).empty() || !std::filesystem::exists(path)) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  TempDir dir;
  Symbolizer symbolizer(hermetic_options(dir));
  BinaryCache binaries;
  const ProcessMaps maps = load_like_loader(binaries, path, 0);  // not PIE: loaded at its link addresses
  auto binary = ElfBinary::open(path);
  REQUIRE(binary);
  const GoPclntab* table = binary->go_pclntab();
  REQUIRE(table);
  // main.leaf's loop: the name as Go writes it, the source line, the decl line.
  std::optional<GoPclntab::Func> leaf;
  for (size_t i = 0; i < table->size() && !leaf; ++i)
    if (auto f = table->func(i); f && table->name(*f) == "main.leaf") leaf = f;
  REQUIRE(leaf);
  const int loop_line = marker_line("go/known_go.go", "@go-leaf-loop");
  uint64_t loop_pc = 0;
  for (uint64_t pc = leaf->entry; pc < leaf->end && !loop_pc; ++pc)
    if (auto l = table->line(*leaf, pc); l && l->line == loop_line) loop_pc = pc;
  REQUIRE(loop_pc);
  Frame f = return_frame(loop_pc + 1);
  const auto& a = symbolizer.symbolize(maps, 1, f);
  REQUIRE(a.frames.size() == 1);
  CHECK(a.frames[0].function == "main.leaf");
  CHECK(basename_of(a.frames[0].file) == "known_go.go");
  CHECK(a.frames[0].line == static_cast<uint32_t>(loop_line));
  CHECK(a.frames[0].decl_line == static_cast<uint32_t>(table->start_line(*leaf)));
  CHECK(a.frames[0].function_offset == loop_pc + 1 - leaf->entry);  // of the return address, as for every frame
  // A runtime pc with inlined calls: the same frames as the table's, innermost first.
  size_t checked = 0;
  for (size_t i = 0; i < table->size() && !checked; ++i) {
    const auto fn = table->func(i);
    for (uint64_t pc = fn ? fn->entry : 0; fn && pc < fn->end && !checked; ++pc) {
      std::vector<GoFrame> expected;
      table->frames_at(*fn, pc, expected);
      if (expected.size() < 3) continue;
      Frame exact = return_frame(pc);
      exact.flags = kFrameExactPc;
      const auto& got = symbolizer.symbolize(maps, 1, exact);
      REQUIRE(got.frames.size() == expected.size());
      for (size_t k = 0; k < expected.size(); ++k) {
        CHECK(got.frames[k].function == std::string(expected[k].name));
        CHECK(got.frames[k].inlined == expected[k].inlined);
        CHECK(got.frames[k].line == static_cast<uint32_t>(expected[k].line));
      }
      CHECK_FALSE(got.frames.back().inlined);
      ++checked;
    }
  }
  CHECK(checked == 1);
}

TEST_CASE("symbolizer: one address in two binaries is two symbolized addresses, each kept once through growth",
          "[symbolize]") {
  TempDir dir;
  BinaryCache binaries;
  const ProcessMaps app = load_like_loader(binaries, program_file("sym_target"), kBase);
  const ProcessMaps stripped = load_like_loader(binaries, program_file("sym_target.stripped"), kBase);
  Symbolizer symbolizer(hermetic_options(dir));
  const Frame f = return_frame(kBase + probe_addresses().at("static"));
  const SymbolizedAddress& in_app = symbolizer.symbolize(app, 1, f);
  const SymbolizedAddress& in_stripped = symbolizer.symbolize(stripped, 1, f);
  CHECK(&in_app != &in_stripped);
  CHECK(in_app.frames.back().function == "static_worker");
  CHECK(symbolizer.cached_addresses() == 2);
  // Many more addresses: the first ones are still found, at the same place.
  for (uint64_t offset = 0; offset < 2000; ++offset) symbolizer.symbolize(app, 1, return_frame(kBase + 0x40 + offset));
  CHECK(symbolizer.cached_addresses() == 2002);
  CHECK(&symbolizer.symbolize(app, 1, f) == &in_app);
  CHECK(&symbolizer.symbolize(stripped, 7, f) == &in_stripped);
  CHECK(symbolizer.cached_addresses() == 2002);
}

// Symbolizer::prefetch reads a binary's symbols and DWARF on a thread of its
// own; lookups give what they give without it, and its warnings come only
// once a lookup reaches the binary.
TEST_CASE("symbolizer: a prefetched binary gives the same frames, and warnings only once looked up", "[symbolize]") {
  SECTION("compressed debuginfo: the same frames as without prefetch") {
    const StrippedApp s;
    s.add_debuginfo("zlib");
    BinaryCache binaries;
    const ProcessMaps maps = load_like_loader(binaries, s.app, kBase);
    Symbolizer prefetched(s.options());
    Symbolizer plain(s.options());
    prefetched.prefetch(maps, return_frame(kBase + probe_addresses().at("inline")));
    prefetched.prefetch(maps, return_frame(kBase + probe_addresses().at("static")));  // the same binary: once
    check_inline_chain(prefetched.symbolize(maps, 1, return_frame(kBase + probe_addresses().at("inline"))));
    for (const auto& [tag, vaddr] : probe_addresses()) {
      INFO(tag);
      check_same_frames(prefetched.symbolize(maps, 1, return_frame(kBase + vaddr)),
                        plain.symbolize(maps, 1, return_frame(kBase + vaddr)));
    }
    CHECK(prefetched.warnings() == plain.warnings());
  }
  SECTION("damaged debuginfo: no warning until a lookup reaches the binary, then the same one") {
    TempDir dir;
    const std::string app = dir.file("bin/app");
    copy_file(program_file("sym_target.nodebug"), app);
    const std::string root = dir.file("debug");
    write_file(build_id_path(root, app), std::string(4096, '\x5a'));
    SymbolizerOptions options = hermetic_options(dir);
    options.debug_roots = {root};
    BinaryCache binaries;
    const ProcessMaps maps = load_like_loader(binaries, app, kBase);
    const Frame probe = return_frame(kBase + probe_addresses().at("inline"));
    Symbolizer prefetched(options);
    prefetched.prefetch(maps, probe);
    CHECK(prefetched.warnings().empty());
    Symbolizer plain(options);
    CHECK(prefetched.symbolize(maps, 1, probe).frames[0].function == plain.symbolize(maps, 1, probe).frames[0].function);
    CHECK(prefetched.warnings().size() == 1);
    CHECK(prefetched.warnings() == plain.warnings());
  }
}
