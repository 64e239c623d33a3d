// How `swprof script` prints symbolized frames.

#include <catch2/catch.hpp>

#include "output/script_writer.h"

using namespace swprof;

TEST_CASE("script format: inline frames, lines, unknown and guessed frames", "[symbolize][script]") {
  SymbolizedAddress a;
  SourceFrame inner;
  inner.function = "inner_step";
  inner.file = "/src/sym_inline.c";
  inner.line = 15;
  inner.inlined = true;
  inner.module = "app";
  SourceFrame outer;
  outer.function = "run_inline";
  outer.file = "/src/sym_inline.c";
  outer.line = 25;
  outer.module = "app";
  outer.module_offset = 0x1234;
  outer.function_offset = 0x1c;
  a.frames = {inner, outer};
  Frame f{0x55550001234, 0, StepperKind::kCfi, 0};
  CHECK(format_user_frame(f, a) ==
        "\t     55550001234 inner_step (inlined) /src/sym_inline.c:15\n"
        "\t     55550001234 run_inline+0x1c (app+0x1234) /src/sym_inline.c:25 [cfi]\n");

  SymbolizedAddress unknown;
  SourceFrame u;
  u.module = "libgone.so";
  u.module_offset = 0x2101;
  unknown.frames = {u};
  f.stepper = StepperKind::kWanderer;
  f.flags = kFrameGuess;
  CHECK(format_user_frame(f, unknown) == std::string("\t     55550001234 [unknown] (libgone.so+0x2101) [") +
                                             stepper_name(StepperKind::kWanderer) + ", guess]\n");
}

TEST_CASE("script format: kernel frames", "[symbolize][script]") {
  SymbolizedAddress k;
  SourceFrame f;
  f.function = "do_syscall_64";
  f.module = "[kernel]";
  f.function_offset = 0x5b;
  f.module_offset = 0xffffffff81000204;
  k.frames = {f};
  CHECK(format_kernel_frame(0xffffffff81000204, k) == "\tffffffff81000204 do_syscall_64+0x5b ([kernel])\n");
  k.frames[0].function.clear();
  CHECK(format_kernel_frame(0xffffffff81000204, k) == "\tffffffff81000204 [unknown] ([kernel]+0xffffffff81000204)\n");
}
