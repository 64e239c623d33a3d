// Where a perf.data recording's kernel symbols come from: perf's build-id
// cache when its copy agrees with the recording, else the running kernel's
// kallsyms when it is the recorded kernel, else nowhere with one warning.
// The running kernel is faked by a notes file, the cache by a folder.

#include "symbolize/kernel_symbols_loader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/kernel_notes.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const BuildId kRecordedId(20, 0xab);
const BuildId kOtherId(20, 0xcd);
constexpr uint64_t kText = 0xffffffff9a000000;  // where the recorded boot had _text

std::string notes_of(const BuildId& id) { return kernel_notes_with_build_id(id); }

std::string kallsyms_at(uint64_t text, const std::string& prefix) {
  char lines[512];
  std::snprintf(lines, sizeof lines,
                "%016llx T _stext\n%016llx T _text\n%016llx T %sfunction\n"
                "ffffffffc0a00000 t %smodule_function\t[ext4]\n",
                static_cast<unsigned long long>(text), static_cast<unsigned long long>(text),
                static_cast<unsigned long long>(text + 0x100), prefix.c_str(), prefix.c_str());
  return lines;
}

struct Fixture {
  TempDir dir;
  KernelSymbolsPlaces places;
  RecordedKernel kernel;
  Fixture() {
    places.kallsyms_path = dir.file("kallsyms");
    places.perf_buildid_dir = dir.file("debug");
    places.notes_path = dir.file("notes");
    write_file(places.kallsyms_path, kallsyms_at(kText, "running_"));
    write_file(places.notes_path, notes_of(kOtherId));  // another kernel runs
    kernel.build_id = kRecordedId;
    kernel.text_symbol = "_text";
    kernel.text_address = kText;
    kernel.modules = {{"[ext4]", 0xffffffffc0a00000, 0xffffffffc0a10000}};
  }
  std::string cache_file() const { return perf_kallsyms_cache_path(places.perf_buildid_dir, kRecordedId); }
  void write_cache(const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(cache_file()).parent_path());
    write_file(cache_file(), text);
  }
  std::string name_of(const KernelSymbolsLoad& load, uint64_t addr) const {
    auto hit = load.symbols.find(addr);
    return hit ? std::string(hit->name) : "(none)";
  }
};

}  // namespace

TEST_CASE("kernel symbols loader: perf's cached copy of the recorded kernel's kallsyms", "[symbolize][kernel]") {
  Fixture f;
  f.write_cache(kallsyms_at(kText, "cached_"));
  SECTION("agrees with the recording: used, kallsyms never read") {
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x104) == "cached_function");
    CHECK(f.name_of(load, 0xffffffffc0a00004) == "cached_module_function");
    CHECK_FALSE(load.warning);
    CHECK_FALSE(load.read_kallsyms);
  }
  SECTION("even when the running kernel is the recorded one") {
    write_file(f.places.notes_path, notes_of(kRecordedId));
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x104) == "cached_function");
    CHECK_FALSE(load.read_kallsyms);
  }
  SECTION("its module symbols outside the recorded module mappings are not used") {
    f.kernel.modules = {{"[ext4]", 0xffffffffc0b00000, 0xffffffffc0b10000}};  // ext4 was elsewhere then
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x104) == "cached_function");
    CHECK(f.name_of(load, 0xffffffffc0a00004) == "(none)");
    CHECK(f.name_of(load, 0xffffffffc0b00004) == "(none)");
  }
  SECTION("of another boot (_text elsewhere): not used; another kernel runs: no names, one warning") {
    f.kernel.text_address = kText + 0x200000;
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x200104) == "(none)");
    CHECK_FALSE(load.symbols.available());
    CHECK_FALSE(load.read_kallsyms);
    REQUIRE(load.warning);
    CHECK(load.warning->find("another boot") != std::string::npos);
    CHECK(load.warning->find(to_hex(kRecordedId)) != std::string::npos);
    CHECK(load.warning->find("shown as addresses") != std::string::npos);
  }
  SECTION("a recording without a kernel mapping cannot tell: not used") {
    f.kernel.text_symbol.clear();
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK_FALSE(load.symbols.available());
    REQUIRE(load.warning);
  }
  SECTION("older perf's kernel mapping names _stext") {
    f.kernel.text_symbol = "_stext";
    CHECK(f.name_of(load_recorded_kernel_symbols(f.kernel, f.places), kText + 0x104) == "cached_function");
  }
}

TEST_CASE("kernel symbols loader: without a cached copy, the running kernel's kallsyms when it is the recorded one",
          "[symbolize][kernel]") {
  Fixture f;
  SECTION("the recorded kernel runs: kallsyms read") {
    write_file(f.places.notes_path, notes_of(kRecordedId));
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x104) == "running_function");
    CHECK(load.read_kallsyms);
    CHECK_FALSE(load.warning);
  }
  SECTION("the recorded kernel runs, but was booted again since (_text elsewhere): no names, one warning") {
    write_file(f.places.notes_path, notes_of(kRecordedId));
    write_file(f.places.kallsyms_path, kallsyms_at(kText + 0x400000, "running_"));
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK_FALSE(load.symbols.available());
    REQUIRE(load.warning);
    CHECK(load.warning->find("another boot") != std::string::npos);
  }
  SECTION("another kernel runs: kallsyms not read, one warning saying how to get names") {
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x104) == "(none)");
    CHECK_FALSE(load.read_kallsyms);
    REQUIRE(load.warning);
    CHECK(load.warning->find("not the running one") != std::string::npos);
    CHECK(load.warning->find("has no copy") != std::string::npos);
    CHECK(load.warning->find(f.cache_file()) != std::string::npos);
    CHECK(load.warning->find("~/.debug") != std::string::npos);
  }
  SECTION("the running kernel's build-id unreadable: not taken for the recorded one") {
    f.places.notes_path = f.dir.file("missing-notes");
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK_FALSE(load.read_kallsyms);
    REQUIRE(load.warning);
  }
  SECTION("a recording that names no kernel build-id (older perf): kallsyms as it is") {
    f.kernel.build_id.clear();
    f.kernel.text_address = 0x1000;  // not checked: such files had no say
    const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
    CHECK(f.name_of(load, kText + 0x104) == "running_function");
    CHECK(load.read_kallsyms);
  }
}

TEST_CASE("kernel symbols loader: hostile cache files are not used and never block", "[symbolize][kernel][untrusted]") {
  Fixture f;
  write_file(f.places.notes_path, notes_of(kRecordedId));  // the fallback: kallsyms_path
  std::filesystem::create_directories(std::filesystem::path(f.cache_file()).parent_path());
  SECTION("garbage") { write_file(f.cache_file(), std::string(100000, '\x7f') + "\n_text\n"); }
  SECTION("larger than any kallsyms") {
    write_file(f.cache_file(), kallsyms_at(kText, "cached_"));
    REQUIRE(::truncate(f.cache_file().c_str(), static_cast<off_t>(kMaxKallsymsBytes + 1)) == 0);  // sparse
  }
  SECTION("a folder") { std::filesystem::create_directory(f.cache_file()); }
  SECTION("a FIFO (refused before it is opened)") { REQUIRE(::mkfifo(f.cache_file().c_str(), 0600) == 0); }
  SECTION("hidden addresses (recorded without privilege)") { f.write_cache(kallsyms_at(0, "cached_")); }
  const KernelSymbolsLoad load = load_recorded_kernel_symbols(f.kernel, f.places);
  CHECK(f.name_of(load, kText + 0x104) == "running_function");
  CHECK(load.read_kallsyms);
}
