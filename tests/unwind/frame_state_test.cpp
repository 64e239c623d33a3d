// Frame state on hand-assembled functions (Intel syntax in the comments; the
// bytes are what GNU as emits for them).

#include "unwind/frame_state.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace swprof;

namespace {

// One instruction's bytes and the setup expected *at* it (before it runs).
struct Line {
  std::vector<uint8_t> bytes;
  FrameSetup setup;
};

struct Function {
  uint64_t start;
  std::vector<uint8_t> code;
  std::vector<uint64_t> addrs;
  std::vector<FrameSetup> setups;
};

Function assemble(uint64_t start, const std::vector<Line>& lines) {
  Function f{start, {}, {}, {}};
  for (const Line& l : lines) {
    f.addrs.push_back(start + f.code.size());
    f.setups.push_back(l.setup);
    f.code.insert(f.code.end(), l.bytes.begin(), l.bytes.end());
  }
  return f;
}

void check_every_instruction(FrameStateHelper& helper, const Function& f, FrameKind kind) {
  for (size_t i = 0; i < f.addrs.size(); ++i) {
    INFO("instruction " << i << " at 0x" << std::hex << f.addrs[i]);
    const FrameState s = helper.state_at(Bytes(f.code), f.start, f.addrs[i]);
    CHECK(frame_kind_name(s.kind) == std::string(frame_kind_name(kind)));
    CHECK(frame_setup_name(s.setup) == std::string(frame_setup_name(f.setups[i])));
  }
}

constexpr auto U = FrameSetup::kUnset;
constexpr auto H = FrameSetup::kHalfset;
constexpr auto S = FrameSetup::kSet;

}  // namespace

TEST_CASE("a standard frame after endbr64, ending in leave, ret", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x401000, {
      {{0xf3, 0x0f, 0x1e, 0xfa}, U},        // endbr64
      {{0x55}, U},                          // push rbp
      {{0x48, 0x89, 0xe5}, H},              // mov rbp, rsp
      {{0x48, 0x83, 0xec, 0x10}, S},        // sub rsp, 0x10
      {{0xe8, 0x00, 0x00, 0x00, 0x00}, S},  // call <next>
      {{0xc9}, S},                          // leave
      {{0xc3}, U},                          // ret
  });
  check_every_instruction(helper, f, FrameKind::kStandard);

  X86Decoder decoder;
  const FunctionFrameLayout layout = analyze_frame_layout(decoder, Bytes(f.code), f.start);
  CHECK(layout.after_push == 0x401005);
  CHECK(layout.after_mov == 0x401008);
  REQUIRE(layout.epilogues.size() == 1);
  CHECK(layout.epilogues[0].from == 0x401012);  // after leave
  CHECK(layout.epilogues[0].to == 0x401012);    // the ret
}

TEST_CASE("the other encoding of mov rbp, rsp also sets a standard frame", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x1000, {
      {{0x55}, U},              // push rbp
      {{0x48, 0x8b, 0xec}, H},  // mov rbp, rsp (8b /r form)
      {{0x90}, S},              // nop
      {{0x5d}, S},              // pop rbp
      {{0xc3}, U},              // ret
  });
  check_every_instruction(helper, f, FrameKind::kStandard);
}

TEST_CASE("instructions scheduled into the prologue do not hide it", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x1800, {
      {{0x89, 0xf8}, U},                    // mov eax, edi
      {{0x55}, U},                          // push rbp
      {{0x31, 0xc0}, H},                    // xor eax, eax
      {{0xb9, 0x19, 0x00, 0x00, 0x00}, H},  // mov ecx, 0x19
      {{0x48, 0x89, 0xe5}, H},              // mov rbp, rsp
      {{0x41, 0x57}, S},                    // push r15
      {{0x41, 0x5f}, S},                    // pop r15
      {{0x5d}, S},                          // pop rbp
      {{0xc3}, U},                          // ret
  });
  check_every_instruction(helper, f, FrameKind::kStandard);
}

TEST_CASE("the return value computed after leave is still in the epilogue", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x1a00, {
      {{0x55}, U},                    // push rbp
      {{0x48, 0x89, 0xe5}, H},        // mov rbp, rsp
      {{0x48, 0x8b, 0x07}, S},        // mov rax, [rdi]
      {{0xc9}, S},                    // leave
      {{0x48, 0x89, 0xc2}, U},        // mov rdx, rax
      {{0x48, 0xc1, 0xea, 0x0b}, U},  // shr rdx, 11
      {{0x89, 0xd2}, U},              // mov edx, edx
      {{0x48, 0x31, 0xc2}, U},        // xor rdx, rax
      {{0x48, 0x89, 0xd0}, U},        // mov rax, rdx
      {{0x48, 0xc1, 0xe0, 0x07}, U},  // shl rax, 7
      {{0xc3}, U},                    // ret
  });
  check_every_instruction(helper, f, FrameKind::kStandard);
}

TEST_CASE("a branch after pop rbp is not an epilogue", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x1b00, {
      {{0x55}, U},              // push rbp
      {{0x48, 0x89, 0xe5}, H},  // mov rbp, rsp
      {{0x5d}, S},              // pop rbp
      {{0x74, 0x01}, S},        // je +1 (not an epilogue: the frame state stays set)
      {{0x90}, S},              // nop
      {{0xc3}, S},              // ret
  });
  check_every_instruction(helper, f, FrameKind::kStandard);
}

TEST_CASE("a push between push rbp and mov rbp, rsp is not a standard frame", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x1c00, {
      {{0x55}, U},              // push rbp
      {{0x53}, H},              // push rbx
      {{0x48, 0x89, 0xe5}, H},  // mov rbp, rsp (rbp does not point at the saved rbp)
      {{0x5b}, H},              // pop rbx
      {{0x5d}, H},              // pop rbp
      {{0xc3}, U},              // ret
  });
  check_every_instruction(helper, f, FrameKind::kSaveFpOnly);
}

TEST_CASE("pop rbp epilogues before ret and before a tail jmp are unset", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x2000, {
      {{0x55}, U},                          // push rbp
      {{0x48, 0x89, 0xe5}, H},              // mov rbp, rsp
      {{0x53}, S},                          // push rbx
      {{0x48, 0x83, 0xec, 0x08}, S},        // sub rsp, 8
      {{0x85, 0xff}, S},                    // test edi, edi
      {{0x74, 0x07}, S},                    // je +7 (the second epilogue)
      {{0x48, 0x83, 0xc4, 0x08}, S},        // add rsp, 8
      {{0x5b}, S},                          // pop rbx
      {{0x5d}, S},                          // pop rbp
      {{0xc3}, U},                          // ret
      {{0x48, 0x83, 0xc4, 0x08}, S},        // add rsp, 8
      {{0x5b}, S},                          // pop rbx
      {{0x5d}, S},                          // pop rbp
      {{0xe9, 0x00, 0x10, 0x00, 0x00}, U},  // jmp <another function> (tail call)
  });
  check_every_instruction(helper, f, FrameKind::kStandard);
}

TEST_CASE("pop r13 is not pop rbp: its trailing 0x5d byte does not end the frame", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x3000, {
      {{0x55}, U},              // push rbp
      {{0x48, 0x89, 0xe5}, H},  // mov rbp, rsp
      {{0x41, 0x55}, S},        // push r13
      {{0x41, 0x5d}, S},        // pop r13
      {{0xc3}, S},              // ret (unreachable in real code: rbp was never popped)
  });
  check_every_instruction(helper, f, FrameKind::kStandard);
}

TEST_CASE("push rbp without mov rbp, rsp saves the frame pointer only", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x4000, {
      {{0x55}, U},              // push rbp
      {{0x53}, H},              // push rbx
      {{0x48, 0x89, 0xfd}, H},  // mov rbp, rdi
      {{0x5b}, H},              // pop rbx
      {{0x5d}, H},              // pop rbp
      {{0xc3}, U},              // ret
  });
  check_every_instruction(helper, f, FrameKind::kSaveFpOnly);
}

TEST_CASE("a function that never pushes rbp has no frame", "[frame_state]") {
  FrameStateHelper helper;
  const Function f = assemble(0x5000, {
      {{0x48, 0x83, 0xec, 0x08}, U},  // sub rsp, 8
      {{0x55}, U},                    // push rbp (not at the entry: not a prologue)
      {{0x48, 0x89, 0xe5}, U},        // mov rbp, rsp
      {{0x5d}, U},                    // pop rbp
      {{0x48, 0x83, 0xc4, 0x08}, U},  // add rsp, 8
      {{0xc3}, U},                    // ret
  });
  check_every_instruction(helper, f, FrameKind::kNoFrame);
}

TEST_CASE("code that does not decode has no frame", "[frame_state]") {
  FrameStateHelper helper;
  const std::vector<uint8_t> junk = {0x06};  // push es: not an instruction in 64-bit mode
  CHECK(helper.state_at(Bytes(junk), 0x6000, 0x6000).kind == FrameKind::kNoFrame);
  CHECK(helper.state_at(Bytes(), 0x6000, 0x6000).kind == FrameKind::kNoFrame);
}
