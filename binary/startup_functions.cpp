#include "binary/startup_functions.h"

#include <elf.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

#include "binary/elf_binary.h"
#include "binary/function_bounds.h"
#include "binary/lazy_cfi_table.h"
#include "binary/x86_decoder.h"
#include "common/byte_reader.h"

namespace swprof {

namespace {

// glibc's sysdeps/x86_64/start.S (2.34 on), after an optional endbr64:
//   xor %ebp,%ebp; mov %rdx,%r9; pop %rsi; mov %rsp,%rdx; and $-16,%rsp;
//   push %rax; push %rsp; xor %r8d,%r8d; xor %ecx,%ecx
// then main into rdi, the call of __libc_start_main, and hlt.
constexpr uint8_t kEndbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
constexpr uint8_t kStartHead[] = {0x31, 0xed, 0x49, 0x89, 0xd1, 0x5e, 0x48, 0x89, 0xe2, 0x48,
                                  0x83, 0xe4, 0xf0, 0x50, 0x54, 0x45, 0x31, 0xc0, 0x31, 0xc9};
constexpr size_t kEntryBytes = sizeof kEndbr64 + sizeof kStartHead + 7 + 6 + 1;

// musl's crt1 (arch/x86_64/crt_arch.h): xor %rbp,%rbp; mov %rsp,%rdi;
// lea _DYNAMIC(%rip),%rsi (rel32); and $-16,%rsp; call _start_c (rel32).
constexpr uint8_t kMuslStartHead[] = {0x48, 0x31, 0xed, 0x48, 0x89, 0xe7, 0x48, 0x8d, 0x35};
constexpr uint8_t kMuslStartCall[] = {0x48, 0x83, 0xe4, 0xf0, 0xe8};
constexpr size_t kMuslEntryBytes = sizeof kMuslStartHead + 4 + sizeof kMuslStartCall + 4;

// Bounds of the search for __libc_start_call_main (glibc 2.36's
// __libc_start_main: 4.3 KB and 33 direct callees), and of the code read of
// musl's start-up functions (a few dozen instructions each).
constexpr size_t kMaxFunctionBytes = 16384;
constexpr size_t kMaxCallees = 256;
constexpr size_t kMaxMuslInstructions = 64;

int32_t rel32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

bool in_code(const ElfBinary& binary, uint64_t vaddr) {
  for (const auto& [lo, hi] : binary.executable_ranges())
    if (vaddr >= lo && vaddr < hi) return true;
  return false;
}

// ET_EXEC, or ET_DYN whose DT_FLAGS_1 says PIE (a shared library, libc.so.6
// included, has an entry point too, which is no _start).
bool is_executable(const ElfBinary& binary) {
  const Bytes file = binary.file_bytes();
  uint16_t type = 0;
  if (file.size() < sizeof(Elf64_Ehdr)) return false;
  std::memcpy(&type, file.data() + offsetof(Elf64_Ehdr, e_type), sizeof type);
  if (type == ET_EXEC) return true;
  if (type != ET_DYN) return false;
  const std::optional<ElfSection> dynamic = binary.section(".dynamic");
  if (!dynamic) return false;
  ByteReader reader(dynamic->data);
  while (reader.remaining() >= 16) {
    const auto tag = reader.read<int64_t>();
    const auto value = reader.read<uint64_t>();
    if (!tag || !value || *tag == DT_NULL) break;
    if (*tag == DT_FLAGS_1) return *value & DF_1_PIE;
  }
  return false;
}

struct GlibcEntry {
  uint64_t main = 0;
  uint64_t direct_call = 0;  // the call's target when direct (static glibc), else 0
};

// The entry code as start.S builds it, or nullopt.
std::optional<GlibcEntry> glibc_entry(const ElfBinary& binary) {
  const uint64_t entry = binary.entry();
  const Bytes code = binary.code_at(entry, kEntryBytes, true);
  if (code.size() < kEntryBytes - sizeof kEndbr64) return std::nullopt;
  const uint8_t* p = code.data();
  const uint8_t* const end = p + code.size();
  if (end - p >= static_cast<ptrdiff_t>(sizeof kEndbr64) && std::memcmp(p, kEndbr64, sizeof kEndbr64) == 0)
    p += sizeof kEndbr64;
  if (end - p < static_cast<ptrdiff_t>(sizeof kStartHead + 7 + 5 + 1) ||
      std::memcmp(p, kStartHead, sizeof kStartHead) != 0)
    return std::nullopt;
  p += sizeof kStartHead;
  const auto here = [&] { return entry + static_cast<uint64_t>(p - code.data()); };
  GlibcEntry out;
  if (p[0] == 0x48 && p[1] == 0xc7 && p[2] == 0xc7) {  // mov $main, %rdi (sign-extended imm32)
    out.main = static_cast<uint64_t>(static_cast<int64_t>(rel32(p + 3)));
  } else if (p[0] == 0x48 && p[1] == 0x8d && p[2] == 0x3d) {  // lea main(%rip), %rdi
    out.main = here() + 7 + static_cast<uint64_t>(static_cast<int64_t>(rel32(p + 3)));
  } else {
    return std::nullopt;
  }
  p += 7;
  size_t call_size = 0;
  if (p[0] == 0xff && p[1] == 0x15) {  // call *__libc_start_main@GOTPCREL(%rip)
    call_size = 6;
  } else if (p[0] == 0x67 && p[1] == 0xe8) {  // addr32 call __libc_start_main (relaxed GOT call)
    call_size = 6;
    out.direct_call = here() + 6 + static_cast<uint64_t>(static_cast<int64_t>(rel32(p + 2)));
  } else if (p[0] == 0xe8) {  // call __libc_start_main
    call_size = 5;
    out.direct_call = here() + 5 + static_cast<uint64_t>(static_cast<int64_t>(rel32(p + 1)));
  } else {
    return std::nullopt;
  }
  p += call_size;
  if (end - p < 1 || p[0] != 0xf4) return std::nullopt;  // hlt
  if (!in_code(binary, out.main) || (out.direct_call && !in_code(binary, out.direct_call))) return std::nullopt;
  return out;
}

// Where each_instruction() stops: at the end of the FDE that begins at the
// function's start (none: nothing is decoded), or, for code without CFI
// (musl's libc), after the first instruction that does not fall through.
enum class Extent { kFde, kFallThrough };

// Each instruction of the function at `start`, in order, until one does not
// decode or the extent ends; `visit` returns false to stop.
template <typename Visit>
void each_instruction(const ElfBinary& binary, X86Decoder& decoder, uint64_t start, Extent extent, Visit&& visit) {
  const LazyCfiTable& cfi = binary.cfi_table();
  if (extent == Extent::kFde && cfi.fde_start(start) != start) return;
  const Bytes code = binary.code_at(start, kMaxFunctionBytes, true);
  for (uint64_t at = start; at - start < code.size() && (extent != Extent::kFde || cfi.fde_start(at) == start);) {
    const X86Insn insn = decoder.decode(code, start, at);
    if (insn.op == X86Op::kInvalid || !visit(insn, code)) return;
    if (extent == Extent::kFallThrough && !insn.falls_through()) return;
    at = insn.end();
  }
}

// exit(main(...)): a call through a pointer, then `mov %eax, %edi` and a direct call.
bool calls_pointer_then_exits(const ElfBinary& binary, X86Decoder& decoder, uint64_t start, Extent extent) {
  bool found = false;
  std::vector<X86Insn> last;  // the last three instructions
  each_instruction(binary, decoder, start, extent, [&](const X86Insn& insn, Bytes code) {
    if (last.size() == 3) last.erase(last.begin());
    last.push_back(insn);
    if (last.size() < 3) return true;
    const X86Insn &call = last[0], &move = last[1], &exit_call = last[2];
    const uint8_t* mov_bytes = code.data() + (move.addr - start);
    found = call.op == X86Op::kCall && call.target == 0 && move.size == 2 && mov_bytes[0] == 0x89 &&
            mov_bytes[1] == 0xc7 && exit_call.op == X86Op::kCall && exit_call.target != 0;
    return !found;
  });
  return found;
}

// The one direct callee of __libc_start_main shaped as __libc_start_call_main.
uint64_t libc_start_call_main(const ElfBinary& binary, uint64_t libc_start_main) {
  X86Decoder decoder;
  if (!decoder.ok()) return 0;
  std::vector<uint64_t> callees;
  each_instruction(binary, decoder, libc_start_main, Extent::kFde, [&](const X86Insn& insn, Bytes) {
    if (insn.op == X86Op::kCall && insn.target != 0 && insn.target != libc_start_main &&
        std::find(callees.begin(), callees.end(), insn.target) == callees.end())
      callees.push_back(insn.target);
    return callees.size() < kMaxCallees;
  });
  uint64_t found = 0;
  for (const uint64_t callee : callees) {
    if (!calls_pointer_then_exits(binary, decoder, callee, Extent::kFde)) continue;
    if (found) return 0;  // two candidates: neither is proven
    found = callee;
  }
  return found;
}

// _start_c, the target of musl's entry code's call, or 0.
uint64_t musl_start_c(const ElfBinary& binary) {
  const uint64_t entry = binary.entry();
  const Bytes code = binary.code_at(entry, kMuslEntryBytes, true);
  if (code.size() < kMuslEntryBytes) return 0;
  const uint8_t* p = code.data();
  if (std::memcmp(p, kMuslStartHead, sizeof kMuslStartHead) != 0 ||
      std::memcmp(p + sizeof kMuslStartHead + 4, kMuslStartCall, sizeof kMuslStartCall) != 0)
    return 0;
  const uint64_t start_c = entry + kMuslEntryBytes + static_cast<uint64_t>(static_cast<int64_t>(rel32(p + kMuslEntryBytes - 4)));
  return in_code(binary, start_c) ? start_c : 0;
}

struct MuslStartC {
  uint64_t main = 0;
  uint64_t libc_start_main = 0;
};

// musl's _start_c (crt/crt1.c): __libc_start_main(main, argc, argv, _init,
// _fini, 0), a tail jump or a call. Its instructions up to the first jump or
// call, which must be direct; main is the code address it last put in rdi
// (mov $main or lea main(%rip)). Anything else (another branch, rdi written
// otherwise) proves nothing.
std::optional<MuslStartC> musl_start_c_call(const ElfBinary& binary, X86Decoder& decoder, uint64_t start_c) {
  MuslStartC out;
  size_t seen = 0;
  bool done = false;
  each_instruction(binary, decoder, start_c, Extent::kFallThrough, [&](const X86Insn& insn, Bytes) {
    if (++seen > kMaxMuslInstructions) return false;
    if ((insn.op == X86Op::kJump || insn.op == X86Op::kCall) && insn.target != 0) {
      out.libc_start_main = insn.target;
      done = true;
      return false;
    }
    if (insn.op != X86Op::kOther) return false;  // a branch, a stack change: not crt1's shape
    if (insn.writes & (1u << kRdi)) out.main = insn.ref_reg == kRdi && !insn.ref_is_load ? insn.ref : 0;
    return true;
  });
  if (!done || !out.main || !in_code(binary, out.main) || !in_code(binary, out.libc_start_main)) return std::nullopt;
  return out;
}

// The register of `jmp *%reg` / `call *%reg` (2 bytes, 3 with REX.B), -1 else.
int indirect_branch_register(const X86Insn& insn, Bytes code, uint64_t code_addr) {
  const uint8_t* p = code.data() + (insn.addr - code_addr);
  const bool rex_b = insn.size == 3 && p[0] == 0x41;
  if (insn.size != (rex_b ? 3 : 2)) return -1;
  const uint8_t opcode = p[rex_b ? 1 : 0], modrm = p[rex_b ? 2 : 1];
  // ff /4 (jmp) or ff /2 (call), register direct (mod 3).
  if (opcode != 0xff || (modrm >> 6) != 3 || (((modrm >> 3) & 7) != 4 && ((modrm >> 3) & 7) != 2)) return -1;
  return x86_detail::gpr_by_encoding((modrm & 7) | (rex_b ? 8 : 0));
}

// musl's __libc_start_main (src/env/__libc_start_main.c) ends in `return
// stage2(main, argc, argv)`: a jump (or call) through a register it loaded
// with lea or mov $imm, to libc_start_main_stage2, which runs
// exit(main(...)). That function, or 0.
uint64_t musl_stage2(const ElfBinary& binary, X86Decoder& decoder, uint64_t libc_start_main) {
  constexpr uint32_t kCallerSaved = (1u << kRax) | (1u << kRcx) | (1u << kRdx) | (1u << kRsi) | (1u << kRdi) |
                                    (1u << kR8) | (1u << kR9) | (1u << kR10) | (1u << kR11);
  std::array<uint64_t, kRegCount> loaded{};  // code addresses in registers, 0 when not one
  uint64_t stage2 = 0;
  size_t seen = 0;
  each_instruction(binary, decoder, libc_start_main, Extent::kFallThrough, [&](const X86Insn& insn, Bytes code) {
    if (++seen > kMaxMuslInstructions) return false;
    const bool indirect = (insn.op == X86Op::kIndirectJump || insn.op == X86Op::kCall) && insn.target == 0;
    if (indirect) {
      const int reg = indirect_branch_register(insn, code, libc_start_main);
      if (reg >= 0) stage2 = loaded[static_cast<size_t>(reg)];
      return false;
    }
    if (insn.op == X86Op::kCall) {
      for (int r = 0; r < kRegCount; ++r)
        if (kCallerSaved & (1u << r)) loaded[static_cast<size_t>(r)] = 0;
    } else if (insn.op == X86Op::kPop && insn.reg >= 0) {
      loaded[static_cast<size_t>(insn.reg)] = 0;
    } else if (insn.op == X86Op::kOther) {
      for (int r = 0; r < kRegCount; ++r)
        if (insn.writes & (1u << r)) loaded[static_cast<size_t>(r)] = 0;
      if (insn.ref_reg >= 0 && !insn.ref_is_load) loaded[static_cast<size_t>(insn.ref_reg)] = insn.ref;
    }
    return true;
  });
  if (!stage2 || !in_code(binary, stage2) || !calls_pointer_then_exits(binary, decoder, stage2, Extent::kFallThrough))
    return 0;
  return stage2;
}

// musl's start-up functions, where the entry code is its crt1's.
void find_musl_startup(const ElfBinary& binary, StartupFunctions& out) {
  const uint64_t start_c = musl_start_c(binary);
  if (!start_c) return;
  out.start_c = start_c;
  X86Decoder decoder;
  if (!decoder.ok()) return;
  const std::optional<MuslStartC> call = musl_start_c_call(binary, decoder, start_c);
  if (!call) return;
  out.main = call->main;
  out.libc_start_main = call->libc_start_main;
  out.libc_start_main_stage2 = musl_stage2(binary, decoder, call->libc_start_main);
}

}  // namespace

std::string_view StartupFunctions::name_at(uint64_t vaddr) const {
  if (vaddr == 0) return {};
  if (vaddr == start) return "_start";
  if (vaddr == main) return "main";
  if (vaddr == libc_start_main) return "__libc_start_main";
  if (vaddr == libc_start_call_main) return "__libc_start_call_main";
  if (vaddr == start_c) return "_start_c";
  if (vaddr == libc_start_main_stage2) return "libc_start_main_stage2";
  return {};
}

StartupFunctions find_startup_functions(const ElfBinary& binary) {
  StartupFunctions out;
  if (binary.entry() == 0 || !is_executable(binary) || !in_code(binary, binary.entry())) return out;
  out.start = binary.entry();
  const std::optional<GlibcEntry> glibc = glibc_entry(binary);
  if (!glibc) {
    find_musl_startup(binary, out);
    return out;
  }
  out.main = glibc->main;
  if (glibc->direct_call) {
    out.libc_start_main = glibc->direct_call;
    out.libc_start_call_main = libc_start_call_main(binary, glibc->direct_call);
  }
  return out;
}

std::optional<StartupFunction> startup_function_at(const ElfBinary& binary, uint64_t vaddr) {
  const StartupFunctions& functions = binary.startup_functions();
  if (!functions.start) return std::nullopt;
  const std::optional<uint64_t> start = function_start(binary, vaddr);
  if (!start) return std::nullopt;
  const std::string_view name = functions.name_at(*start);
  if (name.empty()) return std::nullopt;
  return StartupFunction{name, *start};
}

}  // namespace swprof
