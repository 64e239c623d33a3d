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
