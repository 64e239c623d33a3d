#include "sampler/remote_memory.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>

namespace swprof {
namespace {

// Two pages: the first readable and filled, the second `second` (PROT_NONE or unmapped).
struct TwoPages {
  explicit TwoPages(bool unmap_second) {
    void* map = mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    bytes = static_cast<uint8_t*>(map);
    for (size_t i = 0; i < kPage; ++i) bytes[i] = static_cast<uint8_t>(i * 7);
    if (unmap_second) REQUIRE(munmap(bytes + kPage, kPage) == 0);
    else REQUIRE(mprotect(bytes + kPage, kPage, PROT_NONE) == 0);
    mapped = unmap_second ? kPage : 2 * kPage;
  }
  ~TwoPages() { munmap(bytes, mapped); }
  uint64_t at(size_t off) const { return reinterpret_cast<uint64_t>(bytes) + off; }
  static constexpr size_t kPage = 4096;
  uint8_t* bytes = nullptr;
  size_t mapped = 0;
};

}  // namespace

TEST_CASE("remote memory is read page by page up to the first unreadable page", "[remote_memory]") {
  for (bool unmap : {false, true}) {
    TwoPages pages(unmap);
    int err = -1;
    auto got = read_remote_memory(getpid(), pages.at(4096 - 100), 1000, &err);
    CHECK(err == 0);
    REQUIRE(got.size() == 100);  // stops where the page ends, keeping the bytes before it
    CHECK(std::memcmp(got.data(), pages.bytes + 4096 - 100, 100) == 0);
    CHECK(read_remote_memory(getpid(), pages.at(4096), 64, &err).empty());
    CHECK(err == EFAULT);
  }
}

TEST_CASE("a remote read into a buffer leaves the bytes it could not read alone", "[remote_memory]") {
  TwoPages pages(false);
  std::vector<uint8_t> out(300, 0xee);
  const RemoteRead r = read_remote_memory(getpid(), pages.at(4096 - 200), std::span(out));
  CHECK(r.error == 0);
  CHECK(r.bytes == 200);
  CHECK(std::memcmp(out.data(), pages.bytes + 4096 - 200, 200) == 0);
  CHECK(out[200] == 0xee);
  CHECK(out[299] == 0xee);
}

TEST_CASE("a remote read is bounded: too large or wrapping ranges are refused", "[remote_memory]") {
  std::vector<uint8_t> big(kMaxRemoteRead + 1);
  CHECK(read_remote_memory(getpid(), reinterpret_cast<uint64_t>(big.data()), std::span(big)).error == EINVAL);
  int err = 0;
  CHECK(read_remote_memory(getpid(), reinterpret_cast<uint64_t>(big.data()), kMaxRemoteRead + 4096, &err).empty());
  CHECK(err == EINVAL);
  uint8_t two[16];
  CHECK(read_remote_memory(getpid(), ~uint64_t{0} - 7, std::span(two)).error == EINVAL);
  CHECK(read_remote_memory(getpid(), 0, std::span(two, 0)).error == 0);
  // The largest allowed read works whole.
  const RemoteRead r = read_remote_memory(getpid(), reinterpret_cast<uint64_t>(big.data()),
                                          std::span(big).first(kMaxRemoteRead));
  CHECK(r.error == 0);
  CHECK(r.bytes == kMaxRemoteRead);
}

TEST_CASE("a remote read of another process's memory, and of one that is gone", "[remote_memory]") {
  static uint8_t marker[64];
  for (size_t i = 0; i < sizeof marker; ++i) marker[i] = static_cast<uint8_t>(0x40 + i);
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // holds its copy of marker until the pipe closes
    close(pipefd[1]);
    char c;
    while (read(pipefd[0], &c, 1) > 0) {}
    _exit(0);
  }
  close(pipefd[0]);
  std::memset(marker, 0, sizeof marker);  // ours changes; the child's copy does not
  int err = -1;
  auto got = read_remote_memory(child, reinterpret_cast<uint64_t>(marker), sizeof marker, &err);
  CHECK(err == 0);
  REQUIRE(got.size() == sizeof marker);
  CHECK(got[0] == 0x40);
  CHECK(got[63] == 0x40 + 63);
  close(pipefd[1]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(read_remote_memory(child, reinterpret_cast<uint64_t>(marker), sizeof marker, &err).empty());
  CHECK(err == ESRCH);
}

}  // namespace swprof
