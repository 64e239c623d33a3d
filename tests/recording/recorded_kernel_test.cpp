// What a perf.data file tells of its kernel (RecordedKernel), and where
// perf's build-id cache keeps that kernel's kallsyms.

#include "recording/recorded_kernel.h"

#include <catch2/catch.hpp>
#include <optional>

#include "support/scoped_env.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

MappingRecord kernel_mapping(uint64_t start, uint64_t length, uint64_t pgoff, const std::string& path) {
  MappingRecord m;
  m.pid = 0xffffffffu;
  m.start = start;
  m.length = length;
  m.file_offset = pgoff;
  m.path = path;
  return m;
}

}  // namespace

TEST_CASE("recording: recorded kernel: the kernel's text mapping and its modules' mappings", "[recording][kernel]") {
  RecordedKernel k;
  k.add_mapping(kernel_mapping(0xffffffff9a000000, 0x1200000, 0xffffffff9a000000, "[kernel.kallsyms]_text"));
  k.add_mapping(kernel_mapping(0xffffffffc0a00000, 0x10000, 0, "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko.xz"));
  k.add_mapping(kernel_mapping(0xffffffffc0b00000, 0x2000, 0, "[snd_hda_intel]"));
  k.add_mapping(kernel_mapping(0xffffffffc0c00000, 0x2000, 0, "[guest.kernel.kallsyms]_text"));
  CHECK(k.text_symbol == "_text");
  CHECK(k.text_address == 0xffffffff9a000000);
  REQUIRE(k.modules.size() == 2);
  CHECK(k.modules[0].name == "[ext4]");
  CHECK(k.modules[0].start == 0xffffffffc0a00000);
  CHECK(k.modules[0].end == 0xffffffffc0a10000);
  CHECK(k.modules[1].name == "[snd_hda_intel]");

  RecordedKernel older;
  older.add_mapping(kernel_mapping(0xffffffff81000000, 0x1000000, 0xffffffff81000000, "[kernel.kallsyms]_stext"));
  CHECK(older.text_symbol == "_stext");
}

TEST_CASE("recording: recorded kernel: module names as kallsyms has them", "[recording][kernel]") {
  CHECK(kernel_module_name("/lib/modules/6.1.0/kernel/net/netfilter/nf-nat.ko.xz") == "[nf_nat]");
  CHECK(kernel_module_name("/lib/modules/6.1.0/extra/zfs.ko") == "[zfs]");
  CHECK(kernel_module_name("[ext4]") == "[ext4]");
  CHECK(kernel_module_name("/") == "");
  CHECK(kernel_module_name("") == "");
}

TEST_CASE("recording: recorded kernel: perf's build-id cache folder and kallsyms path", "[recording][kernel]") {
  const BuildId id = {0x48, 0xdc, 0x54, 0x0c};
  CHECK(perf_kallsyms_cache_path("/h/.debug", id) == "/h/.debug/[kernel.kallsyms]/48dc540c/kallsyms");
  {
    ScopedEnv dir("PERF_BUILDID_DIR", "/cache");
    ScopedEnv home("HOME", "/home/u");
    CHECK(perf_buildid_dir() == "/cache");
  }
  {
    ScopedEnv dir("PERF_BUILDID_DIR", std::nullopt);
    ScopedEnv home("HOME", "/home/u");
    CHECK(perf_buildid_dir() == "/home/u/.debug");
  }
  {
    ScopedEnv dir("PERF_BUILDID_DIR", std::nullopt);
    ScopedEnv home("HOME", std::nullopt);
    CHECK(perf_buildid_dir().empty());
  }
}
