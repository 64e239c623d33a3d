// Kernel frames named from kallsyms: a fake table, a hidden (non-root) one,
// an unreadable one, and the running kernel's when it is readable.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "support/sym_fixtures.h"
#include "support/temp_dir.h"
#include "symbolize/kernel_symbols.h"
#include "symbolize/symbolizer.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const char* const kFakeKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000100 t do_thing\n"
    "ffffffff81000180 D some_data\n"
    "ffffffff81000200 T do_syscall_64\n"
    "not a line\n"
    "ffffffffc0a00000 t ext4_fill_super\t[ext4]\n"
    "ffffffffc0a00400 t ext4_sync_fs\t[ext4]\n";

}  // namespace

TEST_CASE("kernel symbols: lookups in a kallsyms table", "[symbolize][kernel]") {
  const KernelSymbols k = KernelSymbols::parse(kFakeKallsyms);
  REQUIRE(k.available());
  CHECK_FALSE(k.hidden());
  auto hit = k.find(0xffffffff81000110);
  REQUIRE(hit);
  CHECK(*hit->name == "do_thing");
  CHECK(*hit->module == "[kernel]");
  CHECK(hit->offset == 0x10);
  // A data symbol ends the function before it.
  CHECK(*k.find(0xffffffff8100017f)->name == "do_thing");
  CHECK_FALSE(k.find(0xffffffff81000180));
  CHECK_FALSE(k.find(0xffffffff810001c0));
  CHECK(*k.find(0xffffffffc0a00410)->name == "ext4_sync_fs");
  CHECK(*k.find(0xffffffffc0a00410)->module == "[ext4]");
  CHECK_FALSE(k.find(0xffffffff80000000));
  CHECK_FALSE(k.find(0xffffffffc0a00400 + 0x100000));
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
