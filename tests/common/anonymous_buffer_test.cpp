#include "common/anonymous_buffer.h"

#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>

using namespace swprof;

namespace {

// Whether the page holding `p` is mapped (mincore fails with ENOMEM on a hole).
bool mapped(const uint8_t* p) {
  const auto page = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095};
  unsigned char in_core = 0;
  return ::mincore(reinterpret_cast<void*>(page), 4096, &in_core) == 0 || errno != ENOMEM;
}

}  // namespace

TEST_CASE("anonymous buffer: zeroed, writable, and keeping a prefix gives the rest back", "[common]") {
  constexpr size_t kMiB = size_t{1} << 20;
  AnonymousBuffer b = AnonymousBuffer::allocate(64 * kMiB);
  REQUIRE_FALSE(b.empty());
  REQUIRE(b.size() == 64 * kMiB);
  CHECK(reinterpret_cast<uintptr_t>(b.data()) % (2 * kMiB) == 0);  // a huge page's start
  CHECK(b.data()[0] == 0);
  CHECK(b.data()[64 * kMiB - 1] == 0);
  std::memset(b.data(), 0x5a, 3 * kMiB + 5);
  uint8_t* const data = b.data();
  b.keep(3 * kMiB + 5);
  CHECK(b.size() == 3 * kMiB + 5);
  CHECK(b.data() == data);
  CHECK(b.data()[3 * kMiB + 4] == 0x5a);
  CHECK(mapped(data + 4 * kMiB - 1));    // the huge page holding the last byte kept stays
  CHECK_FALSE(mapped(data + 4 * kMiB));  // beyond it, given back
  CHECK_FALSE(mapped(data + 60 * kMiB));
  b.keep(10 * kMiB);  // more than it holds: nothing changes
  CHECK(b.size() == 3 * kMiB + 5);
}
