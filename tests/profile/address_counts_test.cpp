#include "profile/address_counts.h"

#include <catch2/catch.hpp>
#include <memory>

#include "profile/stack_builder.h"
#include "support/elf_image.h"
#include "support/source_frames.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A binary for mappings to point at (its bytes are never read here).
std::shared_ptr<const ElfBinary> fake_binary() {
  static const std::shared_ptr<const ElfBinary> binary =
      ElfBinary::from_image("app", make_elf_image({{".text", SHT_PROGBITS, SHF_EXECINSTR, 0x1000, {0xc3}}}));
  REQUIRE(binary);
  return binary;
}

// The maps of a process that loaded the fake binary's code ([0x1000, 0x3000)
// of its ELF addresses, file offset 0x1000) at `bias`.
std::shared_ptr<ProcessMaps> maps_at(uint64_t bias) {
  auto maps = std::make_shared<ProcessMaps>();
  Mapping m;
  m.start = bias + 0x1000;
  m.end = bias + 0x3000;
  m.file_offset = 0x1000;
  m.path = "/bin/app";
  m.binary = fake_binary();
  m.bias = bias;
  m.executable = true;
  maps->add(m);
  Mapping jit;
  jit.start = 0x7000000;
  jit.end = 0x7001000;
  jit.path = "//anon";
  jit.executable = true;
  maps->add(jit);
  return maps;
}

// A sample as the pipeline hands it over: frames leaf first, each with what
// the symbolizer named it.
struct FakeSample {
  UnwoundSample unwound;
  std::vector<const SymbolizedAddress*> user, kernel;
  std::string comm = "app";

  explicit FakeSample(std::shared_ptr<ProcessMaps> maps) { unwound.maps = std::move(maps); }
  FakeSample& leaf(uint64_t pc, const SymbolizedAddress& where) {
    unwound.walk.frames.push_back(Frame{pc, 0, StepperKind::kSample, kFrameExactPc});
    user.push_back(&where);
    return *this;
  }
  FakeSample& caller(uint64_t return_address, const SymbolizedAddress& where) {
    unwound.walk.frames.push_back(Frame{return_address, 0, StepperKind::kCfi, 0});
    user.push_back(&where);
    return *this;
  }
  FakeSample& kernel_frame(uint64_t ip, const SymbolizedAddress& where) {
    unwound.kernel_ips.push_back(ip);
    kernel.push_back(&where);
    return *this;
  }
  PipelineSample view() const { return PipelineSample{unwound, comm, true, user, kernel}; }
};

// Counts `samples` into `counts` the way CallTreeSink does: each under the
// tree node of its stack (built by StackBuilder over the same tree).
void count(CallTree& tree, AddressCounts& counts, AddressDetail detail, const std::vector<const FakeSample*>& samples) {
  StackBuilder stacks(tree, ThreadRoots::kNone, false);
  AddressCounter counter(tree, counts, detail);
  for (const FakeSample* s : samples) {
    const PipelineSample view = s->view();
    const uint32_t node = tree.add(stacks.frames(view), 1, 10);
    counter.add(view, node, 10);
  }
}

std::string function_of(const CallTree& tree, const CodeLocation& loc) { return tree.frame(loc.function()).function; }

SourceFrame at_line(SourceFrame f, const std::string& file, uint32_t line) {
  f.file = file;
  f.line = line;
  return f;
}

}  // namespace

TEST_CASE("address counts: leaf samples by ELF address, whatever base each process loaded the binary at",
          "[address_counts]") {
  const SymbolizedAddress hot = address({source("hot", "app")});
  const SymbolizedAddress main_fn = address({source("main", "app")});
  const uint64_t bias_a = 0x555555554000, bias_b = 0x5600000000;
  FakeSample a(maps_at(bias_a)), b(maps_at(bias_b));
  a.leaf(bias_a + 0x1234, hot).caller(bias_a + 0x1500, main_fn);
  // The symbolizer keeps one SymbolizedAddress per (binary, address): the
  // other process's sample at the same instruction names it with the same.
  b.leaf(bias_b + 0x1234, hot).caller(bias_b + 0x1500, main_fn);
  CallTree tree;
  AddressCounts counts;
  count(tree, counts, AddressDetail::kLeaves, {&a, &b, &a});

  CHECK(counts.detail() == AddressDetail::kLeaves);
  REQUIRE(counts.locations().size() == 1);  // leaves only: the callers are not counted
  const CodeLocation& loc = counts.locations()[0];
  CHECK(loc.address == 0x1234);
  CHECK(loc.self == 3);
  CHECK(loc.self_weight == 30);
  CHECK(function_of(tree, loc) == "hot");
  CHECK(counts.stacks().empty());
  // One mapping, placed at the binary's own addresses.
  REQUIRE(counts.mappings().size() == 1);
  const CodeMapping& m = counts.mappings()[loc.mapping];
  CHECK(m.start == 0x1000);
  CHECK(m.limit == 0x3000);
  CHECK(m.file_offset == 0x1000);
  CHECK(m.path == "/bin/app");
  CHECK(m.binary == fake_binary());
}

TEST_CASE("address counts: stacks of addresses leaf first, a caller at its call (the return address less one)",
          "[address_counts]") {
  const SymbolizedAddress hot = address({source("hot", "app")});
  const SymbolizedAddress warm = address({source("warm", "app")});
  const SymbolizedAddress main_fn = address({source("main", "app")});
  const SymbolizedAddress k_leaf = address({source("k_leaf", "[kernel]")});
  const uint64_t bias = 0x555555554000;
  FakeSample a(maps_at(bias)), b(maps_at(bias)), k(maps_at(bias));
  a.leaf(bias + 0x1234, hot).caller(bias + 0x1500, main_fn);
  b.leaf(bias + 0x1240, warm).caller(bias + 0x1500, main_fn);
  k.kernel_frame(0xffffffff81001234, k_leaf).leaf(bias + 0x1234, hot).caller(bias + 0x1500, main_fn);
  CallTree tree;
  AddressCounts counts;
  count(tree, counts, AddressDetail::kStacks, {&a, &b, &a, &k});

  REQUIRE(counts.stacks().size() == 3);
  const auto described = [&](const AddressStack& s) {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (uint32_t l : counts.stack_locations(s))
      out.emplace_back(function_of(tree, counts.locations()[l]), counts.locations()[l].address);
    return out;
  };
  using Stack = std::vector<std::pair<std::string, uint64_t>>;
  CHECK(described(counts.stacks()[0]) == Stack{{"hot", 0x1234}, {"main", 0x14ff}});
  CHECK(counts.stacks()[0].samples == 2);
  CHECK(counts.stacks()[0].weight == 20);
  CHECK(described(counts.stacks()[1]) == Stack{{"warm", 0x1240}, {"main", 0x14ff}});
  CHECK(described(counts.stacks()[2]) == Stack{{"k_leaf", 0xffffffff81001234}, {"hot", 0x1234}, {"main", 0x14ff}});
  // The kernel's address is outside every mapping; the sample in the kernel
  // is its leaf's, not the user code's.
  const CodeLocation& kernel = counts.locations()[counts.stack_locations(counts.stacks()[2])[0]];
  CHECK(kernel.mapping == CodeLocation::kNoMapping);
  CHECK(kernel.self == 1);
  CHECK(counts.locations()[counts.stack_locations(counts.stacks()[0])[0]].self == 2);
  // Each stack stays under the tree node its sample went to.
  for (const AddressStack& s : counts.stacks()) CHECK(tree.node(s.node).self == s.samples);
}

TEST_CASE("address counts: an inlined address has a line per function, innermost first, naming the tree's frames",
          "[address_counts]") {
  const SymbolizedAddress inlined = address({at_line(source("helper", "app", true), "/src/helper.h", 7),
                                            at_line(source("compute", "app"), "/src/app.c", 42)});
  const uint64_t bias = 0x555555554000;
  FakeSample s(maps_at(bias));
  s.leaf(bias + 0x2000, inlined);
  CallTree tree;
  AddressCounts counts;
  count(tree, counts, AddressDetail::kLeaves, {&s});

  REQUIRE(counts.locations().size() == 1);
  const CodeLocation& loc = counts.locations()[0];
  REQUIRE(loc.lines.size() == 2);
  CHECK(tree.frame(loc.lines[0].frame).function == "helper");
  CHECK(tree.frame(loc.lines[0].frame).flags == kCctInline);
  CHECK(counts.file(loc.lines[0].file) == "/src/helper.h");
  CHECK(loc.lines[0].line == 7);
  CHECK(tree.frame(loc.lines[1].frame).function == "compute");
  CHECK(counts.file(loc.lines[1].file) == "/src/app.c");
  CHECK(loc.lines[1].line == 42);
  // The frames are the ones the sample's stack has in the tree.
  const std::vector<uint32_t> stack = tree.path(static_cast<uint32_t>(tree.nodes().size() - 1));
  CHECK(stack == std::vector<uint32_t>{loc.lines[1].frame, loc.lines[0].frame});
  CHECK(counts.locations_of(loc.function()) == std::vector<uint32_t>{0});
  CHECK(counts.locations_of(loc.lines[0].frame).empty());  // by the real function only
}

TEST_CASE("address counts: code outside binaries keeps its address, a sample without frames is [unknown]",
          "[address_counts]") {
  const SymbolizedAddress jit = address({source("jitted", "[jit]")});
  const uint64_t bias = 0x555555554000;
  FakeSample in_jit(maps_at(bias)), nothing(maps_at(bias));
  in_jit.leaf(0x7000040, jit);
  CallTree tree;
  AddressCounts counts;
  count(tree, counts, AddressDetail::kStacks, {&in_jit, &nothing});

  REQUIRE(counts.locations().size() == 2);
  CHECK(counts.locations()[0].mapping == CodeLocation::kNoMapping);
  CHECK(counts.locations()[0].address == 0x7000040);
  CHECK(counts.locations()[1].mapping == CodeLocation::kNoMapping);
  CHECK(counts.locations()[1].address == 0);
  CHECK(function_of(tree, counts.locations()[1]) == "[unknown]");
  CHECK(counts.locations()[1].self == 1);
  CHECK(counts.mappings().empty());
}
