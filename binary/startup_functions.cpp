#include "binary/startup_functions.h"

#include <elf.h>

#include <algorithm>
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

// Bounds of the search for __libc_start_call_main (glibc 2.36's
// __libc_start_main: 4.3 KB and 33 direct callees).
constexpr size_t kMaxFunctionBytes = 16384;
constexpr size_t kMaxCallees = 256;

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

// Each instruction of the function whose FDE begins at `start`, in order,
// until one does not decode or leaves the FDE; `visit` returns false to stop.
template <typename Visit>
void each_instruction(const ElfBinary& binary, X86Decoder& decoder, uint64_t start, Visit&& visit) {
  const LazyCfiTable& cfi = binary.cfi_table();
  if (cfi.fde_start(start) != start) return;
  const Bytes code = binary.code_at(start, kMaxFunctionBytes, true);
  for (uint64_t at = start; at - start < code.size() && cfi.fde_start(at) == start;) {
    const X86Insn insn = decoder.decode(code, start, at);
    if (insn.op == X86Op::kInvalid || !visit(insn, code)) return;
    at = insn.end();
  }
}

// exit(main(...)): a call through a pointer, then `mov %eax, %edi` and a direct call.
bool calls_pointer_then_exits(const ElfBinary& binary, X86Decoder& decoder, uint64_t start) {
  bool found = false;
  std::vector<X86Insn> last;  // the last three instructions
  each_instruction(binary, decoder, start, [&](const X86Insn& insn, Bytes code) {
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
  each_instruction(binary, decoder, libc_start_main, [&](const X86Insn& insn, Bytes) {
    if (insn.op == X86Op::kCall && insn.target != 0 && insn.target != libc_start_main &&
        std::find(callees.begin(), callees.end(), insn.target) == callees.end())
      callees.push_back(insn.target);
    return callees.size() < kMaxCallees;
  });
  uint64_t found = 0;
  for (const uint64_t callee : callees) {
    if (!calls_pointer_then_exits(binary, decoder, callee)) continue;
    if (found) return 0;  // two candidates: neither is proven
    found = callee;
  }
  return found;
}

}  // namespace

std::string_view StartupFunctions::name_at(uint64_t vaddr) const {
  if (vaddr == 0) return {};
  if (vaddr == start) return "_start";
  if (vaddr == main) return "main";
  if (vaddr == libc_start_main) return "__libc_start_main";
  if (vaddr == libc_start_call_main) return "__libc_start_call_main";
  return {};
}

StartupFunctions find_startup_functions(const ElfBinary& binary) {
  StartupFunctions out;
  if (binary.entry() == 0 || !is_executable(binary) || !in_code(binary, binary.entry())) return out;
  out.start = binary.entry();
  const std::optional<GlibcEntry> glibc = glibc_entry(binary);
  if (!glibc) return out;
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
