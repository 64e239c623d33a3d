#include "sampler/stack_extender.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <vector>

#include "recording/recording_format.h"
#include "sampler/perf_event.h"

namespace swprof {
namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(seed + i * 31);
  return out;
}

Bytes view(const std::vector<uint8_t>& v) { return Bytes(v.data(), v.size()); }

}  // namespace

bool bit(const std::vector<uint8_t>& map, size_t word) { return (map.at(word / 8) >> (word % 8)) & 1; }

TEST_CASE("the map of a copy's end marks the words either read found different", "[stack_extender]") {
  // The copy's last 256 bytes (32 words, word 0 the last), read twice.
  const std::vector<uint8_t> tail = pattern(256, 3);
  std::vector<uint8_t> map;
  mark_changed_words(view(tail), view(tail), view(tail), map);
  REQUIRE(map.size() == 4);
  CHECK(map == std::vector<uint8_t>(4, 0));

  SECTION("a byte changed in the first read, or only in the second") {
    std::vector<uint8_t> first = tail, again = tail;
    first[255] ^= 0x80;  // the copy's very last byte: word 0
    again[0] ^= 1;       // its first byte: word 31
    first[100] ^= 4;     // word (256 - 100 - 1) / 8 = 19
    mark_changed_words(view(tail), view(first), view(again), map);
    CHECK(bit(map, 0));
    CHECK(bit(map, 31));
    CHECK(bit(map, 19));
    CHECK_FALSE(bit(map, 1));
    CHECK(std::count_if(map.begin(), map.end(), [](uint8_t b) { return b != 0; }) == 3);
  }
  SECTION("a read cut short: the words it lacks count as changed") {
    mark_changed_words(view(tail), view(tail), view(tail).first(248), map);
    CHECK(bit(map, 0));
    CHECK_FALSE(bit(map, 1));
    mark_changed_words(view(tail), view(tail), Bytes(), map);
    CHECK(map == std::vector<uint8_t>(4, 0xff));
  }
}

namespace {

// A sample of this thread whose "copy" is the first `copied` bytes of `stack`
// (a buffer standing in for the thread's stack: the extender reads on past it).
SampleView truncated_sample(const std::vector<uint8_t>& stack, size_t copied) {
  SampleView s;
  s.pid = static_cast<uint32_t>(getpid());
  s.tid = s.pid;
  s.abi = 2;
  s.nregs = 20;
  s.regs[kRegSp] = reinterpret_cast<uint64_t>(stack.data());
  s.stack = Bytes(stack.data(), copied);
  s.stack_truncated = true;
  return s;
}

// Pages of this process's memory, the last `unreadable` of them PROT_NONE
// (where a stack's mapping ends), each readable page filled with a pattern.
class Pages {
 public:
  Pages(size_t readable, size_t unreadable) : size_((readable + unreadable) * kPage) {
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    base_ = static_cast<uint8_t*>(p);
    for (size_t i = 0; i < readable * kPage; ++i) base_[i] = static_cast<uint8_t>(i * 7 + 1);
    if (unreadable) REQUIRE(mprotect(base_ + readable * kPage, unreadable * kPage, PROT_NONE) == 0);
  }
  ~Pages() { munmap(base_, size_); }
  Pages(const Pages&) = delete;
  Pages& operator=(const Pages&) = delete;
  uint8_t* at(size_t offset) const { return base_ + offset; }
  static constexpr size_t kPage = 4096;

 private:
  size_t size_;
  uint8_t* base_ = nullptr;
};

// A sample whose copy the kernel ended, not at --stack-size, at `end`: from
// `sp` to the page boundary `end`, as when the page there was not present
// or not readable.
SampleView sample_ending_at_page(const uint8_t* sp, const uint8_t* end) {
  SampleView s;
  s.pid = static_cast<uint32_t>(getpid());
  s.tid = s.pid;
  s.time = 1000;
  s.abi = 2;
  s.nregs = 20;
  s.regs[kRegSp] = reinterpret_cast<uint64_t>(sp);
  s.stack = Bytes(sp, static_cast<size_t>(end - sp));
  return s;
}

}  // namespace

TEST_CASE("a copy the kernel ended at a page it could not read is read on past that page", "[stack_extender]") {
  // The kernel copies without faulting pages in: a page of the stack that
  // is not present (a large frame's array never written) ends the copy
  // there, short of --stack-size, while the stack goes on past it.
  const Pages pages(4, 1);
  SampleView s = sample_ending_at_page(pages.at(100), pages.at(Pages::kPage));
  REQUIRE(copy_ends_at_page(s));
  StackExtender extender(64 * 1024);
  extender.extend(s);
  CHECK(s.stack_beyond == 3 * Pages::kPage);  // up to the unreadable page, where the mapping ends
  REQUIRE(s.stack.size() == 4 * Pages::kPage - 100);
  CHECK(std::memcmp(s.stack.data(), pages.at(100), s.stack.size()) == 0);
  CHECK(extender.counts().tried == 1);
  CHECK(extender.counts().at_page == 1);
  CHECK(extender.last_sample_ns() == 1000);

  SECTION("a copy that ends short of a page boundary, or at --stack-size, is no such copy") {
    SampleView inside = sample_ending_at_page(pages.at(100), pages.at(Pages::kPage - 8));
    CHECK_FALSE(copy_ends_at_page(inside));
    inside.stack_truncated = true;
    CHECK_FALSE(copy_ends_at_page(inside));
  }
}

TEST_CASE("a copy that ends at its stack's top is read on once, not at every sample", "[stack_extender]") {
  const Pages pages(2, 1);
  StackExtender extender(64 * 1024);
  SampleView first = sample_ending_at_page(pages.at(100), pages.at(2 * Pages::kPage));
  extender.extend(first);
  CHECK(first.stack_beyond == 0);
  CHECK(extender.counts().unread == 1);
  SampleView again = sample_ending_at_page(pages.at(300), pages.at(2 * Pages::kPage));
  extender.extend(again);
  CHECK(again.stack_beyond == 0);
  CHECK(extender.counts().tried == 1);  // the thread's top is known
  SECTION("a copy of the same thread ending elsewhere is read on") {
    SampleView lower = sample_ending_at_page(pages.at(100), pages.at(Pages::kPage));
    extender.extend(lower);
    CHECK(extender.counts().tried == 2);
    CHECK(lower.stack_beyond == Pages::kPage);
  }
  SECTION("a truncated copy is read on wherever it ends") {
    SampleView cut = sample_ending_at_page(pages.at(100), pages.at(2 * Pages::kPage));
    cut.stack_truncated = true;
    extender.extend(cut);
    CHECK(extender.counts().tried == 2);
  }
}

TEST_CASE("a truncated copy is read on past its end from the live process", "[stack_extender]") {
  const std::vector<uint8_t> stack = pattern(64 * 1024, 9);
  SECTION("unchanged: the sample holds the copy and the bytes after it, up to the bound, and a map of none changed") {
    StackExtender extender(16 * 1024);
    SampleView s = truncated_sample(stack, 8192);
    extender.extend(s);
    CHECK(s.stack_beyond == 16 * 1024);
    REQUIRE(s.stack.size() == 8192 + 16 * 1024);
    CHECK(std::memcmp(s.stack.data(), stack.data(), s.stack.size()) == 0);
    CHECK(s.beyond_changed.size() == 8192 / 64);  // the whole copy
    CHECK(std::all_of(s.beyond_changed.begin(), s.beyond_changed.end(), [](uint8_t b) { return b == 0; }));
    CHECK(extender.counts().tried == 1);
    CHECK(extender.counts().kept == 1);
    CHECK(extender.counts().changed == 0);
    CHECK(extender.counts().bytes == 16 * 1024);
  }
  SECTION("the copy's end no longer holds what was copied: the bytes are kept, the map says where") {
    StackExtender extender(16 * 1024);
    std::vector<uint8_t> copy(stack.begin(), stack.begin() + 8192);
    copy[8192 - 8] ^= 1;  // as if the thread had since written there
    SampleView s = truncated_sample(stack, 8192);
    s.stack = Bytes(copy.data(), copy.size());
    extender.extend(s);
    CHECK(s.stack_beyond == 16 * 1024);
    REQUIRE(!s.beyond_changed.empty());
    CHECK(s.beyond_changed[0] == 1);  // word 0, the copy's last
    CHECK(extender.counts().changed == 1);
    CHECK(extender.counts().kept == 1);
  }
  SECTION("the whole copy is read again, but for the bytes at its start past a multiple of 64") {
    StackExtender extender(4096);
    SampleView s = truncated_sample(stack, 32768 + 40);
    extender.extend(s);
    CHECK(s.stack_beyond == 4096);
    CHECK(s.beyond_changed.size() == 32768 / 64);
  }
  SECTION("samples whose copy was whole, off-CPU samples, and a bound of 0 are left alone") {
    for (int which = 0; which < 3; ++which) {
      StackExtender extender(which == 2 ? 0 : 4096);
      SampleView s = truncated_sample(stack, 8192);
      if (which == 0) s.stack_truncated = false;
      if (which == 1) s.off_cpu = true;
      extender.extend(s);
      CHECK(s.stack_beyond == 0);
      CHECK(s.stack.size() == 8192);
      CHECK(extender.counts().tried == 0);
    }
  }
  SECTION("a process that is gone: nothing is kept") {
    StackExtender extender(4096);
    SampleView s = truncated_sample(stack, 8192);
    s.pid = 0x7ffffff0;  // above pid_max
    extender.extend(s);
    CHECK(s.stack_beyond == 0);
    CHECK(extender.counts().unread == 1);
  }
  SECTION("a sample read after its process is gone keeps nothing, even after one that kept bytes") {
    StackExtender extender(16 * 1024);
    SampleView first = truncated_sample(stack, 8192);
    extender.extend(first);
    REQUIRE(first.stack_beyond == 16 * 1024);
    SampleView second = truncated_sample(stack, 8192);
    second.pid = 0x7ffffff0;  // above pid_max: the live read fails
    extender.extend(second);
    CHECK(second.stack_beyond == 0);
    CHECK(second.stack.size() == 8192);
    CHECK(extender.counts().kept == 1);
    CHECK(extender.counts().unread == 1);
  }
  SECTION("the bound is at most kMaxStackBeyond") {
    StackExtender extender(kMaxStackBeyond + 4096);
    std::vector<uint8_t> big = pattern(kMaxStackBeyond + 65536, 1);
    SampleView s = truncated_sample(big, 8192);
    extender.extend(s);
    CHECK(s.stack_beyond == kMaxStackBeyond);
  }
}

}  // namespace swprof
