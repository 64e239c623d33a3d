#include "profile/stack_builder.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>

#include "profile/leaf_cache.h"
#include "support/source_frames.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// Allocations made on this thread while counting (the replaced global
// operator new below counts them).
thread_local bool g_counting = false;
thread_local size_t g_allocations = 0;

}  // namespace

// Every `new` of this test program, counted while a test asks.
void* operator new(std::size_t size) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
// Every form whose memory the deletes below free: the nothrow form too, or a
// sanitizer's own nothrow new would hand its memory to free (Catch2 uses it).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_allocations;
  return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

// An unwound sample with its symbols, as the pipeline hands it over (leaf first).
struct FakeSample {
  UnwoundSample unwound;
  std::vector<const SymbolizedAddress*> user, kernel;
  std::string comm = "app";

  void add_user(const SymbolizedAddress& where, uint8_t flags = 0) {
    Frame f;
    f.pc = 0x1000 + user.size();
    f.flags = flags;
    unwound.walk.frames.push_back(f);
    user.push_back(&where);
  }
  void add_kernel(const SymbolizedAddress& where) {
    unwound.kernel_ips.push_back(0xffffffff81000000 + kernel.size());
    kernel.push_back(&where);
  }
  PipelineSample view() const { return PipelineSample{unwound, comm, true, user, kernel}; }
};

// "function/module" of each frame, with the frame's flags when set.
std::vector<std::string> names(const CallTree& tree, const std::vector<uint32_t>& stack) {
  std::vector<std::string> out;
  for (uint32_t id : stack) {
    const CctFrame& f = tree.frame(id);
    out.push_back(f.function + "/" + f.module + (f.flags ? "#" + std::to_string(f.flags) : ""));
  }
  return out;
}

}  // namespace

TEST_CASE("stack builder: user frames root first, inlined functions below their caller, kernel frames last",
          "[stack_builder]") {
  const SymbolizedAddress leaf = address({source("inlined_helper", "app", true), source("compute", "app")});
  const SymbolizedAddress main_fn = address({source("main", "app")});
  const SymbolizedAddress k_leaf = address({source("k_leaf", "[kernel]")});
  const SymbolizedAddress k_caller = address({source("k_caller", "[kernel]")});
  FakeSample s;
  s.add_user(leaf);
  s.add_user(main_fn);
  s.add_kernel(k_leaf);
  s.add_kernel(k_caller);
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kNone, false);
  CHECK(names(tree, builder.frames(s.view())) ==
        std::vector<std::string>{"main/app", "compute/app", "inlined_helper/app#1", "k_caller/[kernel]#4",
                                 "k_leaf/[kernel]#4"});
}

TEST_CASE("stack builder: a guessed frame is kept apart from an exact one at the same address", "[stack_builder]") {
  const SymbolizedAddress f = address({source("f", "app")});
  FakeSample exact, guessed;
  exact.add_user(f);
  guessed.add_user(f, kFrameGuess);
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kNone, false);
  const std::vector<uint32_t> a = builder.frames(exact.view());
  const std::vector<uint32_t> b = builder.frames(guessed.view());
  CHECK(names(tree, a) == std::vector<std::string>{"f/app"});
  CHECK(names(tree, b) == std::vector<std::string>{"f/app#2"});
  CHECK(a != b);
  CHECK(builder.frames(exact.view()) == a);  // the second time from the cache, the same ids
}

TEST_CASE("stack builder: a sample without frames is one unknown frame", "[stack_builder]") {
  FakeSample s;
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kNone, false);
  CHECK(names(tree, builder.frames(s.view())) == std::vector<std::string>{"[unknown]/[unknown]"});
}

TEST_CASE("stack builder: unknown functions are named by module and offset", "[stack_builder]") {
  SourceFrame unknown = source("", "lib.so");
  unknown.module_offset = 0x1234;
  const SymbolizedAddress where = address({unknown});
  FakeSample s;
  s.add_user(where);
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kNone, false);
  CHECK(names(tree, builder.frames(s.view())) == std::vector<std::string>{"[unknown] lib.so+0x1234/lib.so"});
}

TEST_CASE("stack builder: reversed, then under the thread root", "[stack_builder]") {
  const SymbolizedAddress leaf = address({source("leaf", "app")});
  const SymbolizedAddress root = address({source("main", "app")});
  FakeSample s;
  s.unwound.tid = 42;
  s.add_user(leaf);
  s.add_user(root);
  CallTree tree;
  SECTION("per thread") {
    StackBuilder builder(tree, ThreadRoots::kThread, true);
    std::vector<uint32_t>& stack = builder.frames(s.view());
    builder.arrange(stack, 42, "app");
    CHECK(names(tree, stack) == std::vector<std::string>{"app [42]/[thread]#8", "leaf/app", "main/app"});
  }
  SECTION("by name; a renamed thread gets the root of its new name") {
    StackBuilder builder(tree, ThreadRoots::kComm, false);
    std::vector<uint32_t>& stack = builder.frames(s.view());
    builder.arrange(stack, 42, "app");
    CHECK(names(tree, stack) == std::vector<std::string>{"app/[thread]#8", "main/app", "leaf/app"});
    std::vector<uint32_t>& again = builder.frames(s.view());
    builder.arrange(again, 42, "renamed");
    CHECK(names(tree, again) == std::vector<std::string>{"renamed/[thread]#8", "main/app", "leaf/app"});
  }
  SECTION("no thread roots, not reversed: unchanged") {
    StackBuilder builder(tree, ThreadRoots::kNone, false);
    std::vector<uint32_t>& stack = builder.frames(s.view());
    const std::vector<uint32_t> before = stack;
    builder.arrange(stack, 42, "app");
    CHECK(stack == before);
  }
}

TEST_CASE("thread root names: the name, or name [tid] per thread, unknown names", "[stack_builder]") {
  CHECK(thread_root_name(ThreadRoots::kComm, "worker", 7) == "worker");
  CHECK(thread_root_name(ThreadRoots::kThread, "worker", 7) == "worker [7]");
  CHECK(thread_root_name(ThreadRoots::kThread, "", 7) == "[unknown] [7]");
  CHECK(thread_root_name(ThreadRoots::kComm, "", 7) == "[unknown]");
}

TEST_CASE("stack builder: a sample inside execve is its old program's frame under [in execve], or that frame alone",
          "[stack_builder]") {
  const SymbolizedAddress execve = address({source("execve", "libc.so.6")});
  SourceFrame nowhere = source("", "[unknown]");
  nowhere.module_offset = 0x7f0000001234;
  const SymbolizedAddress unknown = address({nowhere});
  const SymbolizedAddress k_exec = address({source("load_elf_binary", "[kernel]")});
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kNone, false);
  FakeSample named;
  named.add_user(execve);
  named.add_kernel(k_exec);
  named.unwound.walk.end = WalkEnd::kNoMappingsYet;
  CHECK(names(tree, builder.frames(named.view())) ==
        std::vector<std::string>{"[in execve]/[exec]", "execve/libc.so.6", "load_elf_binary/[kernel]#4"});
  FakeSample lost;
  lost.add_user(unknown);
  lost.add_kernel(k_exec);
  lost.unwound.walk.end = WalkEnd::kNoMappingsYet;
  CHECK(names(tree, builder.frames(lost.view())) ==
        std::vector<std::string>{"[in execve]/[exec]", "load_elf_binary/[kernel]#4"});
  SECTION("any other walk keeps its frames as they are") {
    lost.unwound.walk.end = WalkEnd::kUnmappedPc;
    CHECK(names(tree, builder.frames(lost.view())) ==
          std::vector<std::string>{"[unknown] [unknown]+0x7f0000001234/[unknown]", "load_elf_binary/[kernel]#4"});
  }
}

TEST_CASE("stack builder: an off-CPU sample switched out while runnable ends in [preempted], a wait does not",
          "[stack_builder]") {
  const SymbolizedAddress main_fn = address({source("main", "app")});
  const SymbolizedAddress schedule = address({source("schedule", "[kernel]")});
  FakeSample s;
  s.add_user(main_fn);
  s.add_kernel(schedule);
  OffCpuWeight preempted;
  preempted.weight_ns = preempted.preempted_ns = 2000;
  preempted.preempted = preempted.matched = true;
  PipelineSample view = s.view();
  view.kind = SampleKind::kOffCpu;
  view.weight = 2000;
  view.off_cpu = &preempted;
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kNone, false);
  CHECK(names(tree, builder.frames(view)) ==
        std::vector<std::string>{"main/app", "schedule/[kernel]#4", "[preempted]/[kernel]#4"});
  OffCpuWeight blocked = preempted;
  blocked.preempted = false;
  view.off_cpu = &blocked;
  CHECK(names(tree, builder.frames(view)) == std::vector<std::string>{"main/app", "schedule/[kernel]#4"});
}

TEST_CASE("thread root names read back: name and tid of a per-thread root, nothing for a name alone", "[stack_builder]") {
  using Parsed = std::optional<std::pair<std::string, uint32_t>>;
  CHECK(parse_thread_root_name(thread_root_name(ThreadRoots::kThread, "worker", 7)) == Parsed({"worker", 7}));
  CHECK(parse_thread_root_name(thread_root_name(ThreadRoots::kThread, "a [b] [1]", 4294967295u)) ==
        Parsed({"a [b] [1]", 4294967295u}));
  CHECK(parse_thread_root_name(thread_root_name(ThreadRoots::kThread, "", 9)) == Parsed({"[unknown]", 9}));
  CHECK(parse_thread_root_name("worker") == std::nullopt);
  CHECK(parse_thread_root_name("worker []") == std::nullopt);
  CHECK(parse_thread_root_name("worker [x1]") == std::nullopt);
  CHECK(parse_thread_root_name("worker [4294967296]") == std::nullopt);
  CHECK(parse_thread_root_name("worker [7] ") == std::nullopt);
}

TEST_CASE("stack builder: a stack seen before is built, arranged and added without allocating", "[stack_builder]") {
  const SymbolizedAddress leaf = address({source("inlined_helper", "app", true), source("compute", "app")});
  const SymbolizedAddress main_fn = address({source("main", "app")});
  const SymbolizedAddress k_leaf = address({source("k_leaf", "[kernel]")});
  FakeSample s;
  s.add_user(leaf);
  s.add_user(main_fn, kFrameGuess);
  s.add_kernel(k_leaf);
  const PipelineSample view = s.view();
  CallTree tree;
  StackBuilder builder(tree, ThreadRoots::kThread, true);
  LeafCache leaves(tree);
  auto add = [&] {
    std::vector<uint32_t>& stack = builder.frames(view);
    builder.arrange(stack, 42, s.comm);
    tree.add_self(leaves.node_at(stack), 1, 10);
  };
  add();  // interns the addresses and makes the nodes
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 100; ++i) add();
  g_counting = false;
  CHECK(g_allocations == 0);
  CHECK(tree.total() == 101);
  CHECK(tree.nodes().size() == 6);  // root, thread, k_leaf, inlined_helper, compute, main
}
