#include "binary/startup_functions.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "binary/elf_binary.h"

using namespace swprof;

namespace {

std::string program(const std::string& name) { return std::string(KNOWN_STACK_DIR) + "/" + name; }

uint64_t symbol(const ElfBinary& binary, const std::string& name) {
  const FunctionSymbol* f = binary.function_named(name);
  return f ? f->start : 0;
}

}  // namespace

TEST_CASE("startup functions: a stripped executable's are where its unstripped twin's symbols are", "[startup]") {
  for (const std::string variant : {"pie", "nopie", "static", "static_pie"}) {
    SECTION(variant) {
      const auto twin = ElfBinary::open(program("known_startup_" + variant));
      const auto stripped = ElfBinary::open(program("known_startup_" + variant + ".stripped"));
      REQUIRE(twin);
      REQUIRE(stripped);
      REQUIRE(stripped->functions().size() < 10);  // no .symtab: .dynsym at most
      const StartupFunctions& f = stripped->startup_functions();
      CHECK(f.start == symbol(*twin, "_start"));
      CHECK(f.main == symbol(*twin, "main"));
      CHECK(f.name_at(f.start) == "_start");
      CHECK(f.name_at(f.main) == "main");
      if (variant.starts_with("static")) {
        CHECK(f.libc_start_main == symbol(*twin, "__libc_start_main"));
        CHECK(f.libc_start_call_main == symbol(*twin, "__libc_start_call_main"));
        CHECK(f.name_at(f.libc_start_call_main) == "__libc_start_call_main");
      } else {
        // The call goes through the GOT, into libc.so.6, which names its own.
        CHECK(f.libc_start_main == 0);
        CHECK(f.libc_start_call_main == 0);
      }
      CHECK(f.name_at(f.main + 1).empty());
      CHECK(f.name_at(0).empty());
      // A return address inside main names it, with the offset from its start.
      const std::optional<StartupFunction> in_main = startup_function_at(*stripped, f.main + 4);
      REQUIRE(in_main);
      CHECK(in_main->name == "main");
      CHECK(in_main->start == f.main);
    }
  }
}

TEST_CASE("startup functions: a stripped static musl program's are where its twin's symbols are", "[startup]") {
  if (!std::filesystem::exists(program("known_startup_musl.stripped"))) {
    WARN("known_startup_musl was not built (musl-gcc is not installed); skipped");
    return;
  }
  const auto twin = ElfBinary::open(program("known_startup_musl"));
  const auto stripped = ElfBinary::open(program("known_startup_musl.stripped"));
  REQUIRE(twin);
  REQUIRE(stripped);
  REQUIRE(stripped->functions().empty());
  const StartupFunctions& f = stripped->startup_functions();
  CHECK(f.start == twin->entry());  // crt_arch.h's _start is an untyped symbol, no function
  CHECK(f.name_at(f.start) == "_start");
  CHECK(f.start_c == symbol(*twin, "_start_c"));
  CHECK(f.main == symbol(*twin, "main"));
  CHECK(f.libc_start_main == symbol(*twin, "__libc_start_main"));
  CHECK(f.libc_start_main_stage2 == symbol(*twin, "libc_start_main_stage2"));
  CHECK(f.libc_start_call_main == 0);  // glibc's
  for (const char* name : {"_start_c", "main", "__libc_start_main", "libc_start_main_stage2"}) {
    INFO(name);
    CHECK(f.name_at(symbol(*twin, name)) == name);
  }
  // A return address inside libc_start_main_stage2 (after its call of main) names it.
  const std::optional<StartupFunction> in_stage2 = startup_function_at(*stripped, f.libc_start_main_stage2 + 0x20);
  REQUIRE(in_stage2);
  CHECK(in_stage2->name == "libc_start_main_stage2");
}

TEST_CASE("startup functions: glibc's entry code names none of musl's start-up functions", "[startup]") {
  const auto glibc = ElfBinary::open(program("known_startup_static.stripped"));
  REQUIRE(glibc);
  CHECK(glibc->startup_functions().start_c == 0);
  CHECK(glibc->startup_functions().libc_start_main_stage2 == 0);
}

TEST_CASE("startup functions: a shared library's entry point is no _start", "[startup]") {
  // libc.so.6 can be run (it has PT_INTERP and an entry point), but it is
  // not flagged PIE: its entry code is no program's _start.
  const auto libc = ElfBinary::open("/lib/x86_64-linux-gnu/libc.so.6");
  REQUIRE(libc);
  CHECK(libc->entry() != 0);
  CHECK(libc->startup_functions().start == 0);
  CHECK_FALSE(startup_function_at(*libc, libc->entry()));
}

TEST_CASE("startup functions: a cgo Go program, linked by gcc, starts as glibc's programs do", "[startup]") {
  // Its entry code is glibc's start.S and its main the C main of runtime/cgo.
  const std::string dir = SWPROF_GO_DIR;
  if (dir.empty() || !std::filesystem::exists(dir + "/known_go.stripped")) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  const auto twin = ElfBinary::open(dir + "/known_go");
  const auto stripped = ElfBinary::open(dir + "/known_go.stripped");
  REQUIRE(twin);
  REQUIRE(stripped);
  const StartupFunctions& f = stripped->startup_functions();
  CHECK(f.start == symbol(*twin, "_start"));
  CHECK(f.main == symbol(*twin, "main"));
  CHECK(f.libc_start_main == 0);  // dynamic: libc.so.6's
}
