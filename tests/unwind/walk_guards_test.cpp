// The checks shared by the walker and the steppers that read the stack.

#include "unwind/walk_guards.h"

#include <catch2/catch.hpp>

#include <vector>

#include "binary/elf_binary.h"
#include "support/elf_files.h"
#include "support/fake_maps.h"
#include "support/stepped.h"
#include "support/sym_fixtures.h"
#include "unwind/analysis_stepper.h"
#include "unwind/frame_pointer_stepper.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("walk guards: a copied stack with no word at or above sp", "[walker]") {
  const std::vector<uint8_t> bytes(64, 0);
  const BufferMemory stack(0x7000, Bytes(bytes.data(), bytes.size()));
  CHECK_FALSE(no_stack_word_from(stack, 0x7000));
  CHECK_FALSE(no_stack_word_from(stack, 0x6000));  // below the copy: words above sp are there
  CHECK_FALSE(no_stack_word_from(stack, 0x7038));  // the last whole word
  CHECK(no_stack_word_from(stack, 0x7039));
  CHECK(no_stack_word_from(stack, 0x7040));
  CHECK(no_stack_word_from(stack, ~uint64_t{0}));
  const BufferMemory empty(0x7000, Bytes());
  CHECK(no_stack_word_from(empty, 0x7000));
  const BufferMemory short_copy(0x7000, Bytes(bytes.data(), 7));
  CHECK(no_stack_word_from(short_copy, 0x7000));
}

TEST_CASE("walk guards: with no stack copied, the frame-pointer and analysis steppers fail without "
          "discovering a stripped binary's functions", "[walker]") {
  // A sample in a fault on a new stack page: the kernel copied nothing.
  const std::string path = program_file("known_static.stripped");
  auto binary = open_binary(path);
  REQUIRE(binary->functions().empty());
  ProcessMaps maps;
  Mapping m;
  m.start = 0x400000;
  m.end = 0x600000;
  m.executable = true;
  m.path = path;
  m.binary = binary;
  maps.add(m);
  const Mapping* mapping = maps.find(binary->entry());
  REQUIRE(mapping);
  const BufferMemory nothing(0x7ff000, Bytes());
  Registers r = regs_at(binary->entry() + 4, 0x7ff000);
  r.set(kRbp, 0x7ff100);
  FramePointerStepper fp;
  AnalysisStepper analysis;
  const StepInput in{r, nothing, mapping, maps, FrameAddress::of(r.pc(), true), 1};
  for (FrameStepper* stepper : {static_cast<FrameStepper*>(&fp), static_cast<FrameStepper*>(&analysis)}) {
    const Stepped out = step(*stepper, in);
    CHECK(out.kind == StepKind::kFailed);
    CHECK(out.failure == WalkEnd::kStackExhausted);
  }
  CHECK_FALSE(binary->function_starts_discovered());
  // With a stack, they look (and discovery runs).
  std::vector<uint8_t> bytes(256, 0);
  const BufferMemory some(0x7ff000, Bytes(bytes.data(), bytes.size()));
  const StepInput with_stack{r, some, mapping, maps, FrameAddress::of(r.pc(), true), 1};
  step(analysis, with_stack);
  CHECK(binary->function_starts_discovered());
}
