#include "binary/x86_decoder.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

using namespace swprof;

namespace {

constexpr uint64_t kBase = 0x401000;

// The one instruction of `bytes`, placed at kBase.
X86Insn decode_one(X86Decoder& decoder, std::vector<uint8_t> bytes) {
  return decoder.decode(Bytes(bytes.data(), bytes.size()), kBase, kBase);
}

}  // namespace

TEST_CASE("X86Decoder tells what an instruction does to rsp and rbp", "[x86]") {
  X86Decoder d;
  REQUIRE(d.ok());
  SECTION("push and pop") {
    X86Insn push = decode_one(d, {0x55});  // push rbp
    CHECK(push.op == X86Op::kPush);
    CHECK(push.reg == kRbp);
    CHECK(push.imm == 8);
    CHECK(push.size == 1);
    X86Insn pop = decode_one(d, {0x5b});  // pop rbx
    CHECK(pop.op == X86Op::kPop);
    CHECK(pop.reg == kRbx);
    CHECK(pop.imm == 8);
    CHECK(decode_one(d, {0x6a, 0x01}).op == X86Op::kPush);  // push 1
    CHECK(decode_one(d, {0x6a, 0x01}).reg == -1);
    CHECK(decode_one(d, {0x9c}).op == X86Op::kPush);         // pushfq
    CHECK(decode_one(d, {0x9d}).op == X86Op::kPop);          // popfq
    CHECK(decode_one(d, {0x5c}).op == X86Op::kOther);        // pop rsp: not a plain pop
    CHECK(decode_one(d, {0x5c}).clobbers_rsp);
  }
  SECTION("frame set-up and tear-down") {
    CHECK(decode_one(d, {0x48, 0x89, 0xe5}).op == X86Op::kSetRbpFromRsp);  // mov rbp, rsp
    CHECK(decode_one(d, {0x48, 0x89, 0xec}).op == X86Op::kSetRspFromRbp);  // mov rsp, rbp
    X86Insn sub = decode_one(d, {0x48, 0x83, 0xec, 0x20});                 // sub rsp, 0x20
    CHECK(sub.op == X86Op::kAddRsp);
    CHECK(sub.imm == -32);
    CHECK(decode_one(d, {0x48, 0x83, 0xc4, 0x20}).imm == 32);              // add rsp, 0x20
    X86Insn lea = decode_one(d, {0x48, 0x8d, 0x65, 0xf8});                 // lea rsp, [rbp - 8]
    CHECK(lea.op == X86Op::kSetRspFromRbp);
    CHECK(lea.imm == -8);
    X86Insn lea_rbp = decode_one(d, {0x48, 0x8d, 0x6c, 0x24, 0x10});       // lea rbp, [rsp + 0x10]
    CHECK(lea_rbp.op == X86Op::kSetRbpFromRsp);
    CHECK(lea_rbp.imm == 16);
    X86Insn lea_rsp = decode_one(d, {0x48, 0x8d, 0x64, 0x24, 0x08});       // lea rsp, [rsp + 8]
    CHECK(lea_rsp.op == X86Op::kAddRsp);
    CHECK(lea_rsp.imm == 8);
    X86Insn load = decode_one(d, {0x48, 0x8b, 0x6c, 0x24, 0x08});          // mov rbp, [rsp + 8]
    CHECK(load.op == X86Op::kLoadRbp);
    CHECK(load.imm == 8);
    X86Insn store = decode_one(d, {0x48, 0x89, 0x6c, 0x24, 0x08});         // mov [rsp + 8], rbp
    CHECK(store.op == X86Op::kStoreRbp);
    CHECK(store.imm == 8);
    X86Insn align = decode_one(d, {0x48, 0x83, 0xe4, 0xf0});               // and rsp, -16
    CHECK(align.op == X86Op::kAlignRsp);
    CHECK(align.imm == -16);
    CHECK(decode_one(d, {0xc9}).op == X86Op::kLeave);
  }
  SECTION("other writes to rsp and rbp are clobbers") {
    X86Insn mov_rsp = decode_one(d, {0x48, 0x8b, 0x20});  // mov rsp, [rax]
    CHECK(mov_rsp.op == X86Op::kOther);
    CHECK(mov_rsp.clobbers_rsp);
    CHECK_FALSE(mov_rsp.clobbers_rbp);
    X86Insn xor_rbp = decode_one(d, {0x31, 0xed});        // xor ebp, ebp
    CHECK(xor_rbp.op == X86Op::kOther);
    CHECK(xor_rbp.clobbers_rbp);
    X86Insn mov_rax = decode_one(d, {0x48, 0x89, 0xd8});  // mov rax, rbx
    CHECK(mov_rax.op == X86Op::kOther);
    CHECK_FALSE(mov_rax.clobbers_rsp);
    CHECK_FALSE(mov_rax.clobbers_rbp);
    CHECK(decode_one(d, {0x48, 0x83, 0xc0, 0x08}).op == X86Op::kOther);  // add rax, 8
  }
  SECTION("a realigned stack's copies of rsp (x86inc's PROLOGUE)") {
    X86Insn copy = decode_one(d, {0x49, 0x89, 0xe3});  // mov r11, rsp
    CHECK(copy.op == X86Op::kOther);
    CHECK(copy.rsp_copy == kR11);
    CHECK(copy.imm == 0);
    X86Insn lea = decode_one(d, {0x48, 0x8d, 0x4c, 0x24, 0x08});  // lea rcx, [rsp + 8]
    CHECK(lea.rsp_copy == kRcx);
    CHECK(lea.imm == 8);
    X86Insn store = decode_one(d, {0x48, 0x89, 0x44, 0x24, 0x58});  // mov [rsp + 0x58], rax
    CHECK(store.op == X86Op::kOther);
    CHECK(store.stored == kRax);
    CHECK(store.imm == 0x58);
    X86Insn back = decode_one(d, {0x4c, 0x89, 0xdc});  // mov rsp, r11
    CHECK(back.op == X86Op::kSetRspFromReg);
    CHECK(back.reg == kR11);
    CHECK(back.clobbers_rsp);  // for readers that do not model it
    X86Insn load = decode_one(d, {0x48, 0x8b, 0x64, 0x24, 0x58});  // mov rsp, [rsp + 0x58]
    CHECK(load.op == X86Op::kLoadRsp);
    CHECK(load.imm == 0x58);
  }
  SECTION("VEX and EVEX instructions Capstone 4 cannot decode or tell get their length and GPR writes") {
    X86Insn kmov = decode_one(d, {0xc4, 0xe1, 0xfb, 0x92, 0xc8});  // kmovq k1, rax
    CHECK(kmov.op == X86Op::kOther);
    CHECK(kmov.size == 5);
    CHECK_FALSE(kmov.clobbers_rsp);
    X86Insn bcast = decode_one(d, {0x62, 0xb2, 0xfd, 0x09, 0x59, 0x24, 0x0a});  // vpbroadcastq xmm4{k1}, [rdx + r9]
    CHECK(bcast.op == X86Op::kOther);
    CHECK(bcast.size == 7);
    CHECK_FALSE(bcast.clobbers_rsp);  // xmm4, not rsp
    CHECK(bcast.writes == 0);
  }
  SECTION("control flow") {
    X86Insn call = decode_one(d, {0xe8, 0x10, 0x00, 0x00, 0x00});  // call kBase + 5 + 0x10
    CHECK(call.op == X86Op::kCall);
    CHECK(call.target == kBase + 0x15);
    CHECK(call.falls_through());
    CHECK(decode_one(d, {0xff, 0xd0}).op == X86Op::kCall);  // call rax
    CHECK(decode_one(d, {0xff, 0xd0}).target == 0);
    X86Insn jmp = decode_one(d, {0xeb, 0xfe});  // jmp to itself
    CHECK(jmp.op == X86Op::kJump);
    CHECK(jmp.target == kBase);
    CHECK_FALSE(jmp.falls_through());
    X86Insn je = decode_one(d, {0x74, 0x02});
    CHECK(je.op == X86Op::kCondJump);
    CHECK(je.target == kBase + 4);
    CHECK(je.falls_through());
    CHECK(decode_one(d, {0xff, 0xe0}).op == X86Op::kIndirectJump);  // jmp rax
    CHECK(decode_one(d, {0xc3}).op == X86Op::kReturn);
    CHECK(decode_one(d, {0xc2, 0x08, 0x00}).op == X86Op::kReturn);  // ret 8
    CHECK(decode_one(d, {0xf4}).op == X86Op::kStop);                // hlt
    CHECK(decode_one(d, {0x0f, 0x0b}).op == X86Op::kStop);          // ud2
    CHECK(decode_one(d, {0xcc}).op == X86Op::kStop);                // int3
    CHECK(decode_one(d, {0xf3, 0x0f, 0x1e, 0xfa}).op == X86Op::kEndbr);
  }
  SECTION("what does not decode") {
    CHECK(decode_one(d, {0x06}).op == X86Op::kInvalid);  // push es: invalid in 64-bit mode
    CHECK(decode_one(d, {0x48}).op == X86Op::kInvalid);  // a prefix cut short
    const std::vector<uint8_t> nop = {0x90};
    CHECK(d.decode(Bytes(nop.data(), nop.size()), kBase, kBase + 1).op == X86Op::kInvalid);
    CHECK(d.decode(Bytes(nop.data(), nop.size()), kBase, kBase - 1).op == X86Op::kInvalid);
    CHECK(d.decode(Bytes(nop.data(), nop.size()), kBase, kBase).end() == kBase + 1);
  }
}

TEST_CASE("X86Decoder tells which general-purpose registers an instruction writes", "[x86]") {
  X86Decoder d;
  REQUIRE(d.ok());
  auto written = [&](std::vector<uint8_t> bytes) {
    REQUIRE(decode_one(d, std::move(bytes)).op != X86Op::kInvalid);
    return d.written_gprs();
  };
  auto bits = [](std::initializer_list<int> regs) {
    uint32_t mask = 0;
    for (int r : regs) mask |= 1u << r;
    return mask;
  };
  CHECK(written({0x5b}) == bits({kRbx, kRsp}));                     // pop rbx
  CHECK(written({0x5d}) == bits({kRbp, kRsp}));                     // pop rbp
  CHECK(written({0x55}) == bits({kRsp}));                           // push rbp: reads rbp
  CHECK(written({0x48, 0x89, 0xe8}) == bits({kRax}));               // mov rax, rbp
  CHECK(written({0x89, 0xd8}) == bits({kRax}));                     // mov eax, ebx: 32 bits
  CHECK(written({0x45, 0x88, 0xc4}) == bits({kR12}));               // mov r12b, r8b: the low byte
  CHECK(written({0x88, 0xc7}) == bits({kRbx}));                     // mov bh, al: the second byte
  CHECK(written({0x4c, 0x87, 0xeb}) == bits({kRbx, kR13}));         // xchg rbx, r13
  CHECK(written({0x0f, 0xa2}) == bits({kRax, kRbx, kRcx, kRdx}));   // cpuid: implicit
  CHECK(written({0x48, 0x01, 0x05, 0, 0, 0, 0}) == 0);              // add [rip], rax: memory
  CHECK(written({0xf3, 0x90}) == 0);                                // pause
}

TEST_CASE("Capstone is loaded when first needed, once, and says why not when it cannot be", "[x86]") {
  preload_capstone();
  preload_capstone();  // idempotent
  const CapstoneLibrary* library = capstone_library();
  REQUIRE(library != nullptr);
  CHECK(library == capstone_library());
  CHECK(library->open != nullptr);
  CHECK(library->regs_access != nullptr);
  CHECK(capstone_load_problem().empty());
  // The package named in the warning when it is missing.
  CHECK(capstone_package().rfind("libcapstone", 0) == 0);
  CHECK(capstone_package().find(".so") == std::string::npos);
  // Decoders on several threads share the one library.
  std::vector<std::thread> threads;
  std::atomic<int> decoded{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      X86Decoder d;
      if (d.ok() && decode_one(d, {0xc3}).op == X86Op::kReturn) ++decoded;  // ret
    });
  for (std::thread& t : threads) t.join();
  CHECK(decoded == 4);
}
