// Kernel frames named from kallsyms: a fake table, a hidden (non-root) one,
// an unreadable one, and the running kernel's when it is readable.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cctype>
#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "support/kernel_notes.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"
#include "symbolize/kernel_symbols.h"
#include "symbolize/symbolizer.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// The plain table: every line kept, sorted as KernelSymbols sorts, the
// last entry at or below an address names it. What the compact table must
// answer alike.
struct PlainEntry {
  uint64_t addr;
  bool text;
  std::string name, module;
};

std::vector<PlainEntry> plain_table(const std::string& text) {
  std::vector<PlainEntry> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string addr_text, type, name, module;
    if (!(fields >> addr_text >> type >> name) || type.size() != 1 || !std::isxdigit(static_cast<unsigned char>(addr_text[0])))
      continue;
    fields >> module;
    size_t used = 0;
    const uint64_t addr = std::stoull(addr_text, &used, 16);
    if (used != addr_text.size()) continue;
    if (addr == 0 || type == "a" || type == "A" || type == "U") continue;
    const bool text_type = type == "t" || type == "T" || type == "w" || type == "W";
    out.push_back({addr, text_type, name, module.empty() ? "[kernel]" : module});
  }
  std::stable_sort(out.begin(), out.end(), [](const PlainEntry& a, const PlainEntry& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.text < b.text;
  });
  return out;
}

// The first text symbol at the nearest address at or below addr (the
// kernel's own choice among aliases), "(none)" when only data is there.
std::string plain_find(const std::vector<PlainEntry>& table, uint64_t addr) {
  auto it = std::upper_bound(table.begin(), table.end(), addr, [](uint64_t a, const PlainEntry& e) { return a < e.addr; });
  if (it == table.begin() || (it == table.end() && addr - table.back().addr >= 0x1000)) return "(none)";
  const uint64_t at = std::prev(it)->addr;
  auto first = std::lower_bound(table.begin(), it, at, [](const PlainEntry& e, uint64_t a) { return e.addr < a; });
  for (; first != it; ++first) {
    if (!first->text) continue;
    if (first->module == "[kernel]" && (first->name == "_etext" || first->name == "_einittext")) break;  // text ends
    return first->name + " " + first->module + "+" + std::to_string(addr - at);
  }
  return "(none)";
}

std::string compact_find(const KernelSymbols& k, uint64_t addr) {
  auto hit = k.find(addr);
  return hit ? std::string(hit->name) + " " + std::string(hit->module) + "+" + std::to_string(hit->offset) : "(none)";
}

const char* const kFakeKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000100 t do_thing\n"
    "ffffffff81000180 D some_data\n"
    "ffffffff81000200 T do_syscall_64\n"
    "not a line\n"
    "ffffffffc0a00000 t ext4_fill_super\t[ext4]\n"
    "ffffffffc0a00400 t ext4_sync_fs\t[ext4]\n";

// Symbolizer options whose kallsyms is kFakeKallsyms, written into `dir`.
SymbolizerOptions fake_kallsyms_options(const TempDir& dir) {
  SymbolizerOptions options;
  options.debug_roots = {};
  write_file(dir.file("kallsyms"), kFakeKallsyms);
  options.kallsyms_path = dir.file("kallsyms");
  return options;
}

}  // namespace

TEST_CASE("kernel symbols: lookups in a kallsyms table", "[symbolize][kernel]") {
  const KernelSymbols k = KernelSymbols::parse(kFakeKallsyms);
  REQUIRE(k.available());
  CHECK_FALSE(k.hidden());
  auto hit = k.find(0xffffffff81000110);
  REQUIRE(hit);
  CHECK(hit->name == "do_thing");
  CHECK(hit->module == "[kernel]");
  CHECK(hit->offset == 0x10);
  // A data symbol ends the function before it.
  CHECK(k.find(0xffffffff8100017f)->name == "do_thing");
  CHECK_FALSE(k.find(0xffffffff81000180));
  CHECK_FALSE(k.find(0xffffffff810001c0));
  CHECK(k.find(0xffffffffc0a00410)->name == "ext4_sync_fs");
  CHECK(k.find(0xffffffffc0a00410)->module == "[ext4]");
  CHECK_FALSE(k.find(0xffffffff80000000));
  CHECK_FALSE(k.find(0xffffffffc0a00400 + 0x100000));
}

TEST_CASE("kernel symbols: aliases, runs of data symbols and lines out of order", "[symbolize][kernel]") {
  const KernelSymbols k = KernelSymbols::parse(
      "ffffffff81000000 T first\n"
      "ffffffff81000000 t first_alias\n"  // at one address the first text symbol names it, as the kernel's lookup
      "ffffffff81000100 T at_data\n"
      "ffffffff81000100 D data_at_code\n"  // a text symbol wins over a data one at its address
      "ffffffff81000200 D d1\n"
      "ffffffff81000300 b d2\n"
      "ffffffff81000400 r d3\n"
      "ffffffffc0000000 t mod_fn\t[mod]\n"
      "ffffffff81000500 T late\n"  // out of address order
      "ffffffff81000600 A absolute\n");
  REQUIRE(k.available());
  CHECK(k.find(0xffffffff81000010)->name == "first");
  CHECK(k.find(0xffffffff81000110)->name == "at_data");
  CHECK(k.find(0xffffffff81000110)->offset == 0x10);
  CHECK_FALSE(k.find(0xffffffff81000200));
  CHECK_FALSE(k.find(0xffffffff81000350));
  CHECK_FALSE(k.find(0xffffffff81000450));
  CHECK(k.find(0xffffffff81000610)->name == "late");  // "A" symbols are no address
  CHECK(k.find(0xffffffffc0000010)->name == "mod_fn");
  CHECK(k.find(0xffffffffc0000010)->module == "[mod]");
  CHECK(k.find(0xffffffffc0000fff)->name == "mod_fn");
  CHECK_FALSE(k.find(0xffffffffc0001000));  // past the last symbol's reach
  // One entry per address; of the data run only the first, which ends at_data.
  CHECK(k.size() == 5);
}

TEST_CASE("kernel symbols: nothing is named at or past the end marks of the kernel's text", "[symbolize][kernel]") {
  const std::string text =
      "ffffffff81000000 T last_function\n"
      "ffffffff81001000 T _etext\n"
      "ffffffff82000000 T init_function\n"
      "ffffffff82000800 T _einittext\n"
      "ffffffffc0001000 t _etext\t[mod]\n";  // a module's symbol of that name is one like any other
  for (const KernelSymbols& k : {KernelSymbols::parse(text), [&] {
         std::optional<uint64_t> unused;
         return KernelSymbols::index(text, "", unused);
       }()}) {
    CHECK(k.find(0xffffffff81000ff0)->name == "last_function");
    CHECK_FALSE(k.find(0xffffffff81001000));
    CHECK_FALSE(k.find(0xffffffff81001040));
    CHECK(k.find(0xffffffff82000010)->name == "init_function");
    CHECK_FALSE(k.find(0xffffffff82000810));
    CHECK(k.find(0xffffffffc0001010)->name == "_etext");
  }
}

TEST_CASE("kernel symbols: a table of data symbols names no code", "[symbolize][kernel]") {
  const KernelSymbols k = KernelSymbols::parse("ffffffff81000000 D only_data\n");
  CHECK_FALSE(k.available());
  CHECK_FALSE(k.hidden());
  CHECK_FALSE(k.find(0xffffffff81000010));
}

TEST_CASE("kernel symbols: zeroed addresses mean hidden, not one big function", "[symbolize][kernel]") {
  const KernelSymbols k = KernelSymbols::parse("0000000000000000 T _stext\n0000000000000000 t do_thing\n");
  CHECK(k.hidden());
  CHECK_FALSE(k.available());
  CHECK_FALSE(k.find(0xffffffff81000110));
}

TEST_CASE("kernel symbols: the symbolizer names kernel frames", "[symbolize][kernel]") {
  TempDir dir;
  SymbolizerOptions options;
  options.debug_roots = {};

  SECTION("from a readable table") {
    write_file(dir.file("kallsyms"), kFakeKallsyms);
    options.kallsyms_path = dir.file("kallsyms");
    Symbolizer s(options);
    const auto& a = s.symbolize_kernel(0xffffffff81000204);
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].function == "do_syscall_64");
    CHECK(a.frames[0].module == "[kernel]");
    CHECK(a.frames[0].function_offset == 4);
    CHECK(&s.symbolize_kernel(0xffffffff81000204) == &a);
    CHECK(s.symbolize_kernel(0xffffffffc0a00001).frames[0].module == "[ext4]");
    const auto& unknown = s.symbolize_kernel(0xffffffff80000010);
    CHECK(unknown.frames[0].function.empty());
    CHECK(display_name(unknown.frames[0]) == "[unknown] [kernel]+0xffffffff80000010");
    CHECK(s.warnings().empty());
  }
  SECTION("hidden from this user") {
    write_file(dir.file("kallsyms"), "0000000000000000 T _stext\n0000000000000000 t do_thing\n");
    options.kallsyms_path = dir.file("kallsyms");
    Symbolizer s(options);
    CHECK(display_name(s.symbolize_kernel(0xffffffff81000110).frames[0]) == "[unknown] [kernel]+0xffffffff81000110");
    s.symbolize_kernel(0xffffffff81000120);
    REQUIRE(s.warnings().size() == 1);
    CHECK(s.warnings()[0].find("kptr_restrict") != std::string::npos);
  }
  SECTION("unreadable") {
    options.kallsyms_path = dir.file("missing");
    Symbolizer s(options);
    CHECK(s.symbolize_kernel(0xffffffff81000110).frames[0].function.empty());
    REQUIRE(s.warnings().size() == 1);
    CHECK(s.warnings()[0].find("cannot read") != std::string::npos);
  }
}

TEST_CASE("kernel symbols: the running kernel's table", "[symbolize][kernel]") {
  std::ifstream in("/proc/kallsyms");
  std::string line, addr_text, type, name;
  uint64_t addr = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (fields >> addr_text >> type >> name && name == "schedule" && (type == "T" || type == "t")) {
      addr = std::stoull(addr_text, nullptr, 16);
      break;
    }
  }
  if (addr == 0) {
    WARN("kernel symbols are not readable here: not checked");
    return;
  }
  Symbolizer s;
  const auto& a = s.symbolize_kernel(addr + 1);
  CHECK(a.frames[0].module == "[kernel]");
  CHECK(!a.frames[0].function.empty());  // "schedule" or an alias at its address
  CHECK(a.frames[0].function_offset == 1);
}

TEST_CASE("kernel symbols: the recording's symbols are used instead of kallsyms", "[symbolize][kernel]") {
  TempDir dir;
  SymbolizerOptions options;
  options.kallsyms_path = dir.file("missing");  // as on a machine without the recording's kernel
  Symbolizer s(options);
  s.use_recorded_kernel_symbols("ffffffff81000200 T do_syscall_64\nffffffffc0a00400 t ext4_sync_fs\t[ext4]\n");
  const auto& a = s.symbolize_kernel(0xffffffff81000210);
  CHECK(a.frames[0].function == "do_syscall_64");
  CHECK(a.frames[0].module == "[kernel]");
  CHECK(a.frames[0].function_offset == 0x10);
  CHECK(s.symbolize_kernel(0xffffffffc0a00404).frames[0].module == "[ext4]");
  CHECK(s.warnings().empty());  // kallsyms_path was never read
}

TEST_CASE("kernel symbols: the compact table names every address of the running kernel as the plain one",
          "[symbolize][kernel]") {
  std::ifstream in("/proc/kallsyms");
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<PlainEntry> plain = plain_table(text.str());
  if (plain.empty()) {
    WARN("kernel symbols are not readable here: not checked");
    return;
  }
  const KernelSymbols k = KernelSymbols::parse(text.str());
  CHECK(k.size() < plain.size());
  size_t differ = 0;
  for (size_t i = 0; i < plain.size(); i += exhaustive_step())
    for (uint64_t addr : {plain[i].addr - 1, plain[i].addr, plain[i].addr + 1, plain[i].addr + 0x20})
      differ += compact_find(k, addr) != plain_find(plain, addr);
  CHECK(differ == 0);
}

TEST_CASE("kernel symbols: kallsyms read ahead on a thread, once, and only when the recording names none",
          "[symbolize][kernel]") {
  TempDir dir;
  SymbolizerOptions options = fake_kallsyms_options(dir);

  SECTION("prepared, then used") {
    Symbolizer s(options);
    CHECK(s.kallsyms_reads() == 0);
    CHECK(s.kernel_symbols_ready());  // nothing being read: a lookup reads them itself
    s.prepare_kernel_symbols();
    s.prepare_kernel_symbols();
    CHECK(s.kallsyms_reads() == 1);
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function == "do_syscall_64");
    CHECK(s.kernel_symbols_ready());
    s.prepare_kernel_symbols();
    CHECK(s.kallsyms_reads() == 1);
    CHECK(s.warnings().empty());
  }
  SECTION("prepared: not ready while read, ready once read, without a lookup") {
    // 48 MB: reading and indexing it takes tens of ms, the check right after
    // the thread starts a few µs.
    std::string big = "ffffffff81000000 T _stext\nffffffff81000200 T do_syscall_64\n";
    big.reserve(size_t{49} << 20);
    char line[64];
    for (uint64_t i = 0; big.size() < (size_t{48} << 20); ++i) {
      std::snprintf(line, sizeof line, "%016llx t filler_%llu\n",
                    static_cast<unsigned long long>(0xffffffff81001000ull + 16 * i), static_cast<unsigned long long>(i));
      big += line;
    }
    write_file(dir.file("kallsyms"), big);
    Symbolizer s(options);
    s.prepare_kernel_symbols();
    CHECK_FALSE(s.kernel_symbols_ready());
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!s.kernel_symbols_ready() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(s.kernel_symbols_ready());
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function == "do_syscall_64");
  }
  SECTION("prepared, never used: the thread ends with the symbolizer") {
    Symbolizer s(options);
    s.prepare_kernel_symbols();
    CHECK(s.kallsyms_reads() == 1);
  }
  SECTION("not prepared: read on first use") {
    Symbolizer s(options);
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function == "do_syscall_64");
    CHECK(s.kallsyms_reads() == 1);
  }
  SECTION("the recording's symbols: never read") {
    Symbolizer s(options);
    s.use_recorded_kernel_symbols("ffffffff81000200 T recorded_fn\n");
    s.prepare_kernel_symbols();
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function == "recorded_fn");
    CHECK(s.kallsyms_reads() == 0);
  }
  SECTION("unreadable: the warning comes once, when the symbols are used") {
    options.kallsyms_path = dir.file("missing");
    Symbolizer s(options);
    s.prepare_kernel_symbols();
    CHECK(s.warnings().empty());
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function.empty());
    s.symbolize_kernel(0xffffffff81000208);
    REQUIRE(s.warnings().size() == 1);
    CHECK(s.warnings()[0].find("cannot read") != std::string::npos);
  }
  SECTION("its warning comes first, whenever the symbols were first used") {
    options.kallsyms_path = dir.file("missing");
    Symbolizer s(options);
    s.prepare_kernel_symbols();
    s.add_recorded_perf_map(77, "not a perf map line\n");
    Frame jit;
    jit.pc = 0x7f1000000011;
    s.symbolize(ProcessMaps(), 77, jit);  // the malformed line's warning, before the kernel's
    s.symbolize_kernel(0xffffffff81000204);
    const std::vector<std::string> w = s.warnings();
    REQUIRE(w.size() == 2);
    CHECK(w[0].find("cannot read") != std::string::npos);
    CHECK(w[1].find("malformed") != std::string::npos);
  }
}

TEST_CASE("kernel symbols: lines in another layout than kallsyms' own read as the usual ones", "[symbolize][kernel]") {
  const std::string usual =
      "ffffffff81000000 T _text\n"
      "ffffffff81000100 t do_thing\n"
      "ffffffffc0a00000 t ext4_fill_super\t[ext4]\n";
  const std::string other =  // short addresses, tabs, several blanks, upper-case digits, CRLF-less last line
      "FFFFFFFF81000000\tT\t_text\n"
      "ffffffff81000100  t   do_thing\n"
      "  ffffffffc0a00000 t ext4_fill_super [ext4]";
  const KernelSymbols a = KernelSymbols::parse(usual), b = KernelSymbols::parse(other);
  CHECK(a.size() == b.size());
  for (uint64_t addr : {0xffffffff81000004ull, 0xffffffff81000104ull, 0xffffffffc0a00004ull})
    CHECK(compact_find(a, addr) == compact_find(b, addr));
  CHECK(compact_find(KernelSymbols::parse("81000100 t short_address\n"), 0x81000104) == "short_address [kernel]+4");
  // A digit that is not one: the line is no symbol's.
  CHECK_FALSE(KernelSymbols::parse("ffffffff8100g000 T bad_digit\n").available());
}

TEST_CASE("kernel symbols: a text parsed in pieces, watching for the kernel's own symbol by name",
          "[symbolize][kernel]") {
  const std::string text =
      "ffffffff81000000 T _stext\n"
      "ffffffff81000010 t __text_start\n"
      "ffffffff81000020 T _text_not\n"
      "ffffffffc0a00000 t _text\t[mod]\n"  // a module's: not the kernel's
      "ffffffff81000000 T _text\n"
      "ffffffff81000040 T _text\n"          // the first one counts
      "ffffffff81000400 T last";
  const auto watched = [&](const std::string& name, size_t cut) {
    KernelSymbolsParser parser(16);
    parser.watch(name);
    const size_t at = text.rfind('\n', cut) + 1;  // pieces of whole lines
    parser.add(std::string_view(text).substr(0, at));
    parser.add(std::string_view(text).substr(at));
    const KernelSymbols k = parser.finish();
    CHECK(compact_find(k, 0xffffffff81000404) == compact_find(KernelSymbols::parse(text), 0xffffffff81000404));
    return parser.watched_address();
  };
  for (size_t cut : {size_t{0}, size_t{40}, size_t{100}, text.size() - 1}) {
    CHECK(watched("_text", cut) == 0xffffffff81000000ull);
    CHECK(watched("_stext", cut) == 0xffffffff81000000ull);
    CHECK(watched("last", cut) == 0xffffffff81000400ull);  // no newline at the end
    CHECK_FALSE(watched("text", cut));
    CHECK_FALSE(watched("missing", cut));
  }
  KernelSymbolsParser hidden(0);
  hidden.watch("_text");
  hidden.add("0000000000000000 T _text\n");
  CHECK(hidden.watched_address() == 0u);
  CHECK(hidden.finish().hidden());
}

TEST_CASE("kernel symbols: module symbols outside the given module ranges are forgotten", "[symbolize][kernel]") {
  KernelSymbols k = KernelSymbols::parse(
      "ffffffff81000000 T _text\n"
      "ffffffff81000100 T kernel_fn\n"
      "ffffffffc0a00000 t ext4_fn\t[ext4]\n"
      "ffffffffc0b00000 t xfs_fn\t[xfs]\n"
      "ffffffffc0c00000 t nfs_fn\t[nfs]\n");
  k.keep_modules_within({{"[ext4]", 0xffffffffc0a00000, 0xffffffffc0a10000},     // where the symbols are
                         {"[xfs]", 0xffffffffc0f00000, 0xffffffffc0f10000},      // elsewhere: another layout
                         {"[other]", 0xffffffffc0c00000, 0xffffffffc0c10000}});  // another module there
  CHECK(compact_find(k, 0xffffffff81000104) == "kernel_fn [kernel]+4");
  CHECK(compact_find(k, 0xffffffffc0a00004) == "ext4_fn [ext4]+4");
  CHECK(compact_find(k, 0xffffffffc0b00004) == "(none)");
  CHECK(compact_find(k, 0xffffffffc0c00004) == "(none)");
  CHECK(compact_find(k, 0xffffffffc0f00004) == "(none)");
}

TEST_CASE("kernel symbols: a perf.data recording's kernel: kallsyms counted as read only when it was",
          "[symbolize][kernel]") {
  TempDir dir;
  SymbolizerOptions options = fake_kallsyms_options(dir);
  options.perf_buildid_dir = dir.file("debug");
  options.kernel_notes_path = dir.file("notes");
  RecordedKernel kernel;
  kernel.build_id = BuildId(20, 0x31);
  kernel.text_symbol = "_stext";
  kernel.text_address = 0xffffffff81000000;
  SECTION("the recorded kernel runs: read, on the prepared thread") {
    write_file(options.kernel_notes_path, kernel_notes_with_build_id(kernel.build_id));
    Symbolizer s(options);
    s.use_recorded_kernel(kernel);
    s.prepare_kernel_symbols();
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function == "do_syscall_64");
    CHECK(s.kallsyms_reads() == 1);
    CHECK(s.warnings().empty());
  }
  SECTION("another kernel runs: never read, one warning") {
    write_file(options.kernel_notes_path, kernel_notes_with_build_id(BuildId(20, 0x32)));
    Symbolizer s(options);
    s.use_recorded_kernel(kernel);
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function.empty());
    s.symbolize_kernel(0xffffffff81000208);
    CHECK(s.kallsyms_reads() == 0);
    CHECK(s.warnings().size() == 1);
  }
  SECTION("the symbols a swprof recording kept win") {
    Symbolizer s(options);
    s.use_recorded_kernel_symbols("ffffffff81000200 T recorded_fn\n");
    s.use_recorded_kernel(kernel);
    s.prepare_kernel_symbols();
    CHECK(s.symbolize_kernel(0xffffffff81000204).frames[0].function == "recorded_fn");
    CHECK(s.kallsyms_reads() == 0);
  }
}

namespace {

// index() of `text` answers every address near a line as the plain table
// does (and parse()); returns how many addresses differ.
size_t index_differs(const std::string& text, size_t step = 1) {
  std::optional<uint64_t> watched;
  const KernelSymbols indexed = KernelSymbols::index(text, "", watched);
  const KernelSymbols parsed = KernelSymbols::parse(text);
  const std::vector<PlainEntry> plain = plain_table(text);
  size_t differ = 0;
  for (size_t i = 0; i < plain.size(); i += step) {
    const PlainEntry& e = plain[i];
    for (uint64_t addr : {e.addr - 1, e.addr, e.addr + 1, e.addr + 0x20, e.addr + 0xfff, e.addr + 0x1000}) {
      const std::string want = plain_find(plain, addr);
      const std::string got = compact_find(indexed, addr);
      differ += got != want || compact_find(parsed, addr) != want;
      if (got != want) UNSCOPED_INFO(std::hex << addr << ": " << got << " instead of " << want);
    }
  }
  CHECK(indexed.available() == parsed.available());
  CHECK(indexed.hidden() == parsed.hidden());
  return differ;
}

}  // namespace

TEST_CASE("kernel symbols: an indexed kallsyms answers as the parsed one", "[symbolize][kernel]") {
  const std::string kernel_then_modules =
      "0000000000000000 A fixed_percpu_data\n"  // older kernels: per-CPU symbols at 0 come first
      "ffffffff81000000 T _text\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000000 t _stext_alias\n"
      "ffffffff81000100 T at_data\n"
      "ffffffff81000100 D data_at_code\n"
      "ffffffff81000200 D d1\n"
      "ffffffff81000300 b d2\n"
      "ffffffff81000300 A absolute_among_data\n"
      "ffffffff81000400 T after_data\n"
      "ffffffff81000500 A only_absolute\n"
      "ffffffff81000600 W weak_fn\n"
      "ffffffff81000700 R last_kernel_data\n"
      "ffffffffc0a00400 t ext4_sync_fs\t[ext4]\n"
      "ffffffffc0a00000 t ext4_fill_super\t[ext4]\n"
      "ffffffffc0b00000 t xfs_fn\t[xfs]\n"
      "ffffffff81000800 t after_modules\n"  // the kernel's own again: parsed with the modules
      "ffffffffc0203000 t ftrace_trampoline\t[__builtin__ftrace]\n";
  CHECK(index_differs(kernel_then_modules) == 0);
  CHECK(index_differs(kFakeKallsyms) == 0);  // "not a line": the rest is parsed
  CHECK(index_differs("ffffffff81000100 T b\nffffffff81000000 T a\nffffffff81000200 T c\n") == 0);  // out of order
  CHECK(index_differs("ffffffff81000000 T only\n") == 0);  // the last symbol's reach
  CHECK(index_differs("ffffffff81000000 T last_kernel\nffffffff81002000 t mod\t[m]\n") == 0);
  CHECK(index_differs("ffffffff81000000 t no_newline_at_the_end") == 0);
  CHECK(index_differs("ffffffff81000000 D only_data\n") == 0);
  // Lines of no address out of order do not matter.
  CHECK(index_differs("ffffffff81000100 T b\nffffffff81000050 A abs\nffffffff81000200 T c\n") == 0);
  // The kernel's own line and a module's at one address: the text symbol names it.
  CHECK(index_differs("ffffffff81000100 D d\nffffffff81000100 t f\t[mod]\nffffffff81000200 T g\n") == 0);
  CHECK(index_differs("ffffffff81000100 T f\nffffffff81000100 d d\t[mod]\nffffffff81000200 T g\n") == 0);
  std::string aliases;  // one address, many names: each lookup is one search all the same
  for (int i = 0; i < 20000; ++i) aliases += "ffffffff81000000 " + std::string(i % 3 ? "t" : "D") + " alias" + std::to_string(i) + "\n";
  CHECK(index_differs(aliases + "ffffffff81001000 T next\n") == 0);
  {
    std::optional<uint64_t> unused;
    CHECK(KernelSymbols::index(aliases, "", unused).size() == 1);
  }

  std::optional<uint64_t> watched;
  const KernelSymbols hidden = KernelSymbols::index("0000000000000000 T _text\n0000000000000000 t f\n", "_text", watched);
  CHECK(hidden.hidden());
  CHECK_FALSE(hidden.available());
  CHECK(watched == 0u);
  CHECK_FALSE(hidden.find(0xffffffff81000110));

  for (const char* name : {"_text", "after_modules", "xfs_fn", "missing"}) {
    std::optional<uint64_t> from_index;
    KernelSymbols::index(kernel_then_modules, name, from_index);
    KernelSymbolsParser parser(0);
    parser.watch(name);
    parser.add(kernel_then_modules);
    CHECK(from_index == parser.watched_address());
  }
  // Kept as it is: a name of the kernel's own lines is the text's own bytes.
  auto owner = std::make_shared<const std::string>(kernel_then_modules);
  const KernelSymbols indexed = KernelSymbols::index(owner, *owner, "", watched);
  const std::string_view first = indexed.find(0xffffffff81000010)->name;  // of the aliases the first, as the kernel
  CHECK(first == "_text");
  CHECK(first.data() == owner->data() + owner->find("_text"));
  CHECK(indexed.find(0xffffffffc0a00010)->module == "[ext4]");
}

TEST_CASE("kernel symbols: the running kernel's kallsyms indexed answers as the plain table", "[symbolize][kernel]") {
  std::ifstream in("/proc/kallsyms");
  std::stringstream text;
  text << in.rdbuf();
  if (plain_table(text.str()).empty()) {
    WARN("kernel symbols are not readable here: not checked");
    return;
  }
  CHECK(index_differs(text.str(), exhaustive_step()) == 0);
}
