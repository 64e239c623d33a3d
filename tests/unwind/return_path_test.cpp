#include "unwind/return_path.h"

#include <catch2/catch.hpp>

#include "support/elf_files.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint32_t bit(int reg) { return 1u << reg; }

}  // namespace

// tests/unwind/fixtures/return_paths.S
TEST_CASE("the registers a way to the return leaves alone", "[unwind][return-path]") {
  const auto binary = open_binary(SWPROF_RETURN_PATH_FIXTURE);
  X86Decoder decoder;
  REQUIRE(decoder.ok());
  const uint32_t rbp_rbx = bit(kRbp) | bit(kRbx);
  auto kept = [&](const char* function, uint64_t offset, uint32_t registers) {
    return registers_unchanged_to_return(decoder, *binary, function_start(*binary, function) + offset, registers);
  };

  SECTION("straight to the return: a register is kept until its pop") {
    const uint64_t f = function_start(*binary, "rp_shared_tail");
    CHECK(code_byte(*binary, f + 2) == 0x5b);  // pop %rbx
    CHECK(code_byte(*binary, f + 7) == 0x5d);  // pop %rbp
    CHECK(code_byte(*binary, f + 8) == 0xc3);  // ret
    CHECK(kept("rp_shared_tail", 8, rbp_rbx) == rbp_rbx);
    CHECK(kept("rp_shared_tail", 7, rbp_rbx) == bit(kRbx));  // rbp is popped on the way
    CHECK(kept("rp_shared_tail", 2, rbp_rbx) == 0);           // both are
    CHECK(kept("rp_shared_tail", 8, 0) == 0);
  }
  SECTION("through a jump to a shared tail") {
    CHECK(code_byte(*binary, function_start(*binary, "rp_shared_tail") + 3) == 0xeb);  // jmp
    CHECK(kept("rp_shared_tail", 3, rbp_rbx) == bit(kRbx));
  }
  SECTION("through a tail call out of the function") {
    CHECK(code_byte(*binary, function_start(*binary, "rp_tail_call") + 2) == 0xeb);  // jmp rel8
    CHECK(kept("rp_tail_call", 2, rbp_rbx) == rbp_rbx);  // rp_callee writes rax only
  }
  SECTION("a register written before the return is not kept") {
    // rp_red_zone keeps rbx below rsp, then loads it back.
    CHECK(code_byte(*binary, function_start(*binary, "rp_red_zone") + 5) == 0xbb);  // mov $1, %ebx
    CHECK(kept("rp_red_zone", 5, bit(kRbx)) == 0);
    CHECK(kept("rp_red_zone", 5, rbp_rbx) == bit(kRbp));
  }
  SECTION("no answer where the way is not known from the code") {
    CHECK(code_byte(*binary, function_start(*binary, "rp_branch") + 4) == 0x75);  // jne
    CHECK(kept("rp_branch", 2, bit(kRbp)) == 0);  // one way writes rbp
    CHECK(kept("rp_branch", 6, bit(kRbp)) == bit(kRbp));  // past the branch
    CHECK(code_byte(*binary, function_start(*binary, "rp_call") + 2) == 0xe8);  // call
    CHECK(kept("rp_call", 2, bit(kRbp)) == 0);
    CHECK(kept("rp_call", 7, bit(kRbp)) == bit(kRbp));
    // 40 nops: past kReturnPathMaxInstructions.
    CHECK(kept("rp_long", 2, bit(kRbp)) == 0);
    CHECK(kept("rp_long", 42 - kReturnPathMaxInstructions + 1, bit(kRbp)) == bit(kRbp));
    CHECK(kept("rp_long", 42 - kReturnPathMaxInstructions, bit(kRbp)) == 0);
  }
  SECTION("no answer when rsp is set from elsewhere on the way: the ret may be another context's") {
    CHECK(code_byte(*binary, function_start(*binary, "rp_stack_switch") + 2) == 0x48);  // mov %rsi, %rsp
    CHECK(kept("rp_stack_switch", 2, bit(kRbp)) == 0);
    CHECK(kept("rp_stack_switch", 5, bit(kRbp)) == bit(kRbp));
    CHECK(code_byte(*binary, function_start(*binary, "rp_enter") + 2) == 0xc8);  // enter
    CHECK(kept("rp_enter", 2, bit(kRbx)) == 0);
    CHECK(kept("rp_enter", 6, bit(kRbx)) == bit(kRbx));
    CHECK(code_byte(*binary, function_start(*binary, "rp_leave") + 2) == 0xc9);  // leave
    CHECK(kept("rp_leave", 2, bit(kRbx)) == 0);
    CHECK(kept("rp_leave", 3, bit(kRbx)) == bit(kRbx));
  }
  SECTION("no answer outside the binary's code") {
    CHECK(registers_unchanged_to_return(decoder, *binary, 0, bit(kRbp)) == 0);
    CHECK(registers_unchanged_to_return(decoder, *binary, uint64_t{1} << 40, bit(kRbp)) == 0);
  }
}
