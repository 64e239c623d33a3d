#include "sampler/proc.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "recording/build_id.h"
#include "support/temp_dir.h"

using namespace swprof;

TEST_CASE("parses /proc/PID/maps lines", "[proc]") {
  const std::string text =
      "55d0c4a00000-55d0c4a28000 r--p 00000000 08:01 1311234                    /usr/bin/dash\n"
      "55d0c4a28000-55d0c4a3c000 r-xp 00028000 08:01 1311234                    /usr/bin/my prog (deleted)\n"
      "7ffd3d1f0000-7ffd3d1f2000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
      "garbage line\n";
  auto maps = parse_proc_maps(text);
  REQUIRE(maps.size() == 4);
  CHECK(maps[0].start == 0x55d0c4a00000);
  CHECK(maps[0].end == 0x55d0c4a28000);
  CHECK(maps[0].perms == "r--p");
  CHECK(maps[1].offset == 0x28000);
  CHECK(maps[1].dev_major == 8);
  CHECK(maps[1].inode == 1311234);
  CHECK(maps[1].path == "/usr/bin/my prog (deleted)");
  CHECK(maps[2].path == "[vdso]");
  CHECK(maps[3].path.empty());
}

TEST_CASE("reads this process's threads and state", "[proc]") {
  auto tids = list_threads(getpid());
  CHECK(std::find(tids.begin(), tids.end(), getpid()) != tids.end());
  CHECK(process_alive(getpid()));
  CHECK_FALSE(process_state(999999999).has_value());
}

TEST_CASE("the vDSO image and build-ids", "[proc]") {
  auto vdso = read_own_vdso();
  REQUIRE(vdso.size() >= 4096);
  CHECK(std::memcmp(vdso.data(), "\x7f" "ELF", 4) == 0);
  auto id = read_build_id(Bytes(vdso.data(), vdso.size()));
  REQUIRE(id);
  CHECK(to_hex(*id).size() == id->size() * 2);
  CHECK(read_build_id("/proc/self/exe").has_value());  // linked with a build-id by default
  CHECK_FALSE(read_build_id("/etc/hostname").has_value());
  CHECK_FALSE(read_build_id("/no/such/file").has_value());
}

TEST_CASE("a FIFO or a device is never opened for a build-id or as text", "[proc]") {
  testing::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(read_build_id(fifo).has_value());  // would block in open() if it were opened
  CHECK_FALSE(read_text_file(fifo).has_value());
  CHECK_FALSE(read_text_file("/dev/zero").has_value());  // would never end
  CHECK(read_text_file("/proc/self/stat").has_value());  // size 0, read to its end
}
