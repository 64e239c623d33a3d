// Stack-height analysis on hand-assembled functions (Intel syntax in the
// comments; the bytes are what GNU as emits for them).

#include "unwind/stack_height_analysis.h"

#include <catch2/catch.hpp>

#include <optional>
#include <vector>

using namespace swprof;

namespace {

using RbpRule = StackHeight::RbpRule;

struct Code {
  uint64_t start;
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> addrs;  // of each instruction, in order
};

Code assemble(uint64_t start, const std::vector<std::vector<uint8_t>>& insns) {
  Code c{start, {}, {}};
  for (const auto& i : insns) {
    c.addrs.push_back(start + c.bytes.size());
    c.bytes.insert(c.bytes.end(), i.begin(), i.end());
  }
  return c;
}

std::optional<int32_t> none() { return std::nullopt; }

}  // namespace

TEST_CASE("pushes, sub and add rsp move the CFA offset of a frameless function", "[analysis]") {
  const Code c = assemble(0x1000, {
      {0x53},                          // 0 push rbx
      {0x48, 0x83, 0xec, 0x20},        // 1 sub rsp, 0x20
      {0xe8, 0x00, 0x00, 0x00, 0x00},  // 2 call <next>
      {0x48, 0x83, 0xc4, 0x20},        // 3 add rsp, 0x20
      {0x5b},                          // 4 pop rbx
      {0xc3},                          // 5 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  const int32_t expected[] = {8, 16, 48, 48, 16, 8};
  for (size_t i = 0; i < c.addrs.size(); ++i) {
    INFO("instruction " << i);
    const StackHeight h = f.at(c.addrs[i]);
    CHECK(h.cfa_from_rsp == expected[i]);
    CHECK(h.cfa_from_rbp == none());
    CHECK(h.rbp == RbpRule::kSameValue);
  }
  // A return address points after the call: the stepper looks up the byte
  // before it, inside the call, and gets the height before (= after) it.
  CHECK(f.at(c.addrs[3] - 1).cfa_from_rsp == 48);
  // Past the end, or inside no reached instruction: unknown.
  CHECK_FALSE(f.at(c.start + c.bytes.size()).known());
  CHECK_FALSE(f.at(c.start - 1).known());
}

TEST_CASE("an rbp frame keeps the CFA while rsp is realigned, and leave restores it", "[analysis]") {
  const Code c = assemble(0x2000, {
      {0x55},                          // 0 push rbp
      {0x48, 0x89, 0xe5},              // 1 mov rbp, rsp
      {0x48, 0x83, 0xe4, 0xf0},        // 2 and rsp, -16
      {0x48, 0x83, 0xec, 0x40},        // 3 sub rsp, 0x40
      {0xe8, 0x00, 0x00, 0x00, 0x00},  // 4 call <next>
      {0xc9},                          // 5 leave
      {0xc3},                          // 6 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[0]).rbp == RbpRule::kSameValue);
  const StackHeight after_push = f.at(c.addrs[1]);
  CHECK(after_push.cfa_from_rsp == 16);
  CHECK(after_push.rbp == RbpRule::kSaved);
  CHECK(after_push.rbp_slot == -16);
  CHECK(f.at(c.addrs[2]).cfa_from_rbp == 16);
  for (size_t i : {3, 4, 5}) {
    INFO("instruction " << i);
    const StackHeight h = f.at(c.addrs[i]);
    CHECK(h.cfa_from_rsp == none());  // realigned
    CHECK(h.cfa_from_rbp == 16);
    CHECK(h.rbp == RbpRule::kSaved);
    CHECK(h.rbp_slot == -16);
  }
  const StackHeight at_ret = f.at(c.addrs[6]);
  CHECK(at_ret.cfa_from_rsp == 8);
  CHECK(at_ret.cfa_from_rbp == none());
  CHECK(at_ret.rbp == RbpRule::kSameValue);
}

TEST_CASE("lea rsp, [rbp - n] brings rsp back after realignment and a variable allocation", "[analysis]") {
  const Code c = assemble(0x3000, {
      {0x55},                                      // 0 push rbp
      {0x48, 0x89, 0xe5},                          // 1 mov rbp, rsp
      {0x53},                                      // 2 push rbx
      {0x48, 0x83, 0xe4, 0xe0},                    // 3 and rsp, -32
      {0x48, 0x29, 0xc4},                          // 4 sub rsp, rax (not modelled)
      {0x48, 0x81, 0xec, 0x00, 0x01, 0x00, 0x00},  // 5 sub rsp, 0x100
      {0x48, 0x8d, 0x65, 0xf8},                    // 6 lea rsp, [rbp - 8]
      {0x5b},                                      // 7 pop rbx
      {0x5d},                                      // 8 pop rbp
      {0xc3},                                      // 9 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[3]).cfa_from_rsp == 24);
  CHECK(f.at(c.addrs[4]).cfa_from_rsp == none());
  CHECK(f.at(c.addrs[6]).cfa_from_rsp == none());
  CHECK(f.at(c.addrs[6]).cfa_from_rbp == 16);
  CHECK(f.at(c.addrs[7]).cfa_from_rsp == 24);
  CHECK(f.at(c.addrs[8]).cfa_from_rsp == 16);
  CHECK(f.at(c.addrs[8]).rbp == RbpRule::kSaved);
  CHECK(f.at(c.addrs[9]).cfa_from_rsp == 8);
  CHECK(f.at(c.addrs[9]).rbp == RbpRule::kSameValue);
}

TEST_CASE("a realigned stack without an rbp frame keeps the CFA in the old rsp's register", "[analysis]") {
  const Code c = assemble(0x1000, {
      {0x41, 0x54},                    // 0 push r12
      {0x49, 0x89, 0xe3},              // 1 mov r11, rsp
      {0x48, 0x83, 0xe4, 0xe0},        // 2 and rsp, -32
      {0x48, 0x83, 0xec, 0x40},        // 3 sub rsp, 0x40
      {0x0f, 0x29, 0x04, 0x24},        // 4 movaps [rsp], xmm0
      {0x4c, 0x89, 0xdc},              // 5 mov rsp, r11
      {0x41, 0x5c},                    // 6 pop r12
      {0xc3},                          // 7 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights h = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(h.at(c.addrs[4]).cfa_from_rsp == none());
  CHECK(h.at(c.addrs[4]).cfa_reg == kR11);
  CHECK(h.at(c.addrs[4]).cfa_from_reg == 16);
  CHECK(h.at(c.addrs[6]).cfa_from_rsp == 16);
  CHECK(h.at(c.addrs[7]).cfa_from_rsp == 8);
  // r11 written: the copy is gone.
  const Code w = assemble(0x1000, {
      {0x49, 0x89, 0xe3},              // 0 mov r11, rsp
      {0x48, 0x83, 0xe4, 0xe0},        // 1 and rsp, -32
      {0x4d, 0x31, 0xdb},              // 2 xor r11, r11
      {0xc3},                          // 3 ret
  });
  CHECK(analysis.analyze(Bytes(w.bytes), w.start, w.addrs[2]).cfa_reg == kR11);
  CHECK_FALSE(analysis.analyze(Bytes(w.bytes), w.start, w.addrs[3]).known());
}

TEST_CASE("a realigned stack keeps the CFA in the old rsp stored above the new one, over calls", "[analysis]") {
  const Code c = assemble(0x1000, {
      {0x53},                          // 0 push rbx
      {0x48, 0x89, 0xe0},              // 1 mov rax, rsp
      {0x48, 0x83, 0xe4, 0xc0},        // 2 and rsp, -64
      {0x48, 0x83, 0xec, 0x60},        // 3 sub rsp, 0x60
      {0x48, 0x89, 0x44, 0x24, 0x58},  // 4 mov [rsp + 0x58], rax
      {0xe8, 0x00, 0x00, 0x00, 0x00},  // 5 call <next>
      {0x6a, 0x00},                    // 6 push 0
      {0x58},                          // 7 pop rax
      {0x48, 0x8b, 0x64, 0x24, 0x58},  // 8 mov rsp, [rsp + 0x58]
      {0x5b},                          // 9 pop rbx
      {0xc3},                          // 10 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights h = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(h.at(c.addrs[5]).cfa_slot == 0x58);
  CHECK(h.at(c.addrs[5]).cfa_from_slot == 16);
  CHECK(h.at(c.addrs[5]).cfa_reg == kRax);
  CHECK(h.at(c.addrs[6]).cfa_reg == -1);  // rax is caller-saved: the callee may have written it
  CHECK(h.at(c.addrs[7]).cfa_slot == 0x60);  // the push moved rsp
  CHECK(h.at(c.addrs[8]).cfa_slot == 0x58);
  CHECK(h.at(c.addrs[9]).cfa_from_rsp == 16);
  CHECK(h.at(c.addrs[10]).cfa_from_rsp == 8);
  CHECK((h.at(c.addrs[10]).written >> kRbx & 1u));
}

TEST_CASE("a caller-saved register the function restores rsp from is kept over its calls", "[analysis]") {
  // x264's shape: mov rcx, rsp; and rsp, -32; sub rsp, 0x60; call helper; ...; mov rsp, rcx
  const Code c = assemble(0x1000, {
      {0x48, 0x89, 0xe1},              // 0 mov rcx, rsp
      {0x48, 0x83, 0xe4, 0xe0},        // 1 and rsp, -32
      {0x48, 0x83, 0xec, 0x60},        // 2 sub rsp, 0x60
      {0xe8, 0x00, 0x00, 0x00, 0x00},  // 3 call <next>
      {0xe8, 0x00, 0x00, 0x00, 0x00},  // 4 call <next>
      {0x48, 0x89, 0xcc},              // 5 mov rsp, rcx
      {0xc3},                          // 6 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights h = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(h.at(c.addrs[4]).cfa_reg == kRcx);
  CHECK(h.at(c.addrs[4]).cfa_from_reg == 8);
  CHECK(h.at(c.addrs[6]).cfa_from_rsp == 8);
}

TEST_CASE("the registers a function writes, callees included", "[analysis]") {
  const Code c = assemble(0x1000, {
      {0x48, 0x89, 0xd8},              // 0 mov rax, rbx
      {0xe8, 0x00, 0x00, 0x00, 0x00},  // 1 call <next>
      {0xc3},                          // 2 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights h = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(h.at(c.addrs[0]).written == 0);
  CHECK(h.at(c.addrs[1]).written == 1u << kRax);
  CHECK(h.at(c.addrs[2]).written == (1u << kRip) - 1);
}

TEST_CASE("rbp saved and restored with mov through rsp", "[analysis]") {
  const Code c = assemble(0x3800, {
      {0x48, 0x83, 0xec, 0x18},        // 0 sub rsp, 0x18
      {0x48, 0x89, 0x6c, 0x24, 0x08},  // 1 mov [rsp + 8], rbp
      {0x48, 0x89, 0xfd},              // 2 mov rbp, rdi
      {0x48, 0x8b, 0x6c, 0x24, 0x08},  // 3 mov rbp, [rsp + 8]
      {0x48, 0x83, 0xc4, 0x18},        // 4 add rsp, 0x18
      {0xc3},                          // 5 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[1]).rbp == RbpRule::kSameValue);
  const StackHeight saved = f.at(c.addrs[3]);
  CHECK(saved.cfa_from_rsp == 32);
  CHECK(saved.rbp == RbpRule::kSaved);
  CHECK(saved.rbp_slot == -24);  // rsp + 8 = CFA - 32 + 8
  CHECK(f.at(c.addrs[4]).rbp == RbpRule::kSameValue);
  CHECK(f.at(c.addrs[5]).cfa_from_rsp == 8);
}

TEST_CASE("rbp overwritten before being saved loses the caller's rbp", "[analysis]") {
  const Code c = assemble(0x3c00, {
      {0x48, 0x89, 0xfd},  // 0 mov rbp, rdi
      {0x55},              // 1 push rbp
      {0x5d},              // 2 pop rbp
      {0xc3},              // 3 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[1]).rbp == RbpRule::kUnknown);
  CHECK(f.at(c.addrs[2]).rbp == RbpRule::kUnknown);
  CHECK(f.at(c.addrs[3]).cfa_from_rsp == 8);
  CHECK(f.at(c.addrs[3]).rbp == RbpRule::kUnknown);
}

TEST_CASE("paths that disagree on the height make it unknown", "[analysis]") {
  const Code c = assemble(0x4000, {
      {0x85, 0xff},  // 0 test edi, edi
      {0x74, 0x01},  // 1 je 3
      {0x53},        // 2 push rbx
      {0xc3},        // 3 ret: reached with CFA = rsp + 8 and rsp + 16
  });
  StackHeightAnalysis analysis;
  CHECK(analysis.analyze(Bytes(c.bytes), c.start, c.addrs[2]).cfa_from_rsp == 8);
  const StackHeight join = analysis.analyze(Bytes(c.bytes), c.start, c.addrs[3]);
  CHECK_FALSE(join.known());
  CHECK(join.rbp == RbpRule::kSameValue);  // they agree on rbp
}

TEST_CASE("a loop converges to the height it keeps", "[analysis]") {
  const Code c = assemble(0x4800, {
      {0x53},        // 0 push rbx
      {0xff, 0xcf},  // 1 dec edi
      {0x75, 0xfc},  // 2 jne 1
      {0x5b},        // 3 pop rbx
      {0xc3},        // 4 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[1]).cfa_from_rsp == 16);
  CHECK(f.at(c.addrs[3]).cfa_from_rsp == 16);
  CHECK(f.at(c.addrs[4]).cfa_from_rsp == 8);
}

TEST_CASE("the fall-through of a call that does not return yields to a jump", "[analysis]") {
  const Code c = assemble(0x5000, {
      {0x48, 0x83, 0xec, 0x18},        // 0 sub rsp, 0x18
      {0x85, 0xff},                    // 1 test edi, edi
      {0x74, 0x07},                    // 2 je 6
      {0x6a, 0x00},                    // 3 push 0
      {0xe8, 0x00, 0x10, 0x00, 0x00},  // 4 call <abort> (never returns)
      {0x48, 0x83, 0xc4, 0x18},        // 5 add rsp, 0x18 (at 6: the je target)
      {0xc3},                          // 6 ret
  });
  // Instruction 5 is at start + 15; the je (at +6, 2 bytes) jumps by 7 to +15.
  REQUIRE(c.addrs[5] == c.start + 15);
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[4]).cfa_from_rsp == 40);
  CHECK(f.at(c.addrs[5]).cfa_from_rsp == 32);  // the jump's height, not the call's 40
  CHECK(f.at(c.addrs[6]).cfa_from_rsp == 8);
}

TEST_CASE("code behind an indirect jump gets the height at that jump", "[analysis]") {
  const Code c = assemble(0x6000, {
      {0x53},                    // 0 push rbx
      {0x48, 0x83, 0xec, 0x10},  // 1 sub rsp, 0x10
      {0xff, 0xe7},              // 2 jmp rdi (a jump table)
      {0x31, 0xc0},              // 3 xor eax, eax (a case)
      {0x48, 0x83, 0xc4, 0x10},  // 4 add rsp, 0x10
      {0x5b},                    // 5 pop rbx
      {0xc3},                    // 6 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[3]).cfa_from_rsp == 32);
  CHECK(f.at(c.addrs[5]).cfa_from_rsp == 16);
  CHECK(f.at(c.addrs[6]).cfa_from_rsp == 8);
}

TEST_CASE("an indirect tail call seeds nothing: unreached code stays unknown", "[analysis]") {
  const Code c = assemble(0x6800, {
      {0xff, 0xe7},  // 0 jmp rdi (at the entry height: a tail call)
      {0x53},        // 1 push rbx (no edge reaches it)
      {0xc3},        // 2 ret
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[0]).cfa_from_rsp == 8);
  CHECK_FALSE(f.at(c.addrs[1]).known());
}

TEST_CASE("jumps out of the function end the path", "[analysis]") {
  const Code c = assemble(0x7000, {
      {0x53},                          // 0 push rbx
      {0x5b},                          // 1 pop rbx
      {0xe9, 0x00, 0x01, 0x00, 0x00},  // 2 jmp <elsewhere> (tail call)
  });
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(c.bytes), c.start);
  CHECK(f.at(c.addrs[2]).cfa_from_rsp == 8);
  CHECK(f.entries().size() == 3);
}

TEST_CASE("the work bound gives up with unknown instead of a partial answer", "[analysis]") {
  std::vector<uint8_t> pushes(StackHeightAnalysis::kMaxWork + 10, 0x50);  // push rax, ...
  pushes.push_back(0xc3);
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(pushes), 0x8000);
  CHECK(f.work() > StackHeightAnalysis::kMaxWork);
  CHECK_FALSE(f.at(0x8000).known());
  CHECK(f.entries().empty());

  // Well under the bound the same code is fine.
  std::vector<uint8_t> few(100, 0x50);
  few.push_back(0xc3);
  CHECK(analysis.analyze(Bytes(few), 0x8000, 0x8000 + 100).cfa_from_rsp == 8 + 100 * 8);
}

TEST_CASE("bytes that do not decode end the path", "[analysis]") {
  const std::vector<uint8_t> code = {0x53, 0x06};  // push rbx; (push es: invalid in 64-bit mode)
  StackHeightAnalysis analysis;
  const FunctionStackHeights f = analysis.analyze_function(Bytes(code), 0x9000);
  CHECK(f.at(0x9000).cfa_from_rsp == 8);
  CHECK_FALSE(f.at(0x9001).known());
}
