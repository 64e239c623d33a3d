#include "symbolize/live_kernel_symbols.h"

#include <linux/bpf.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstring>

namespace swprof {
namespace {

constexpr std::string_view kKernelModule = "[kernel]";

// The io map's one entry: the address to name, then the text naming it.
constexpr uint32_t kEntryBytes = 1024;
constexpr uint32_t kTextAt = 8;
constexpr uint32_t kTextBytes = kEntryBytes - kTextAt;  // KSYM_NAME_LEN (512) + a module's name and numbers
constexpr size_t kMappedBytes = 4096;                   // the entry as mmap gives it: one page
static_assert(kEntryBytes <= kMappedBytes);

long bpf(int command, union bpf_attr& attr) { return syscall(__NR_bpf, command, &attr, sizeof attr); }

UniqueFd create_array(uint32_t value_size, uint32_t flags) {
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = sizeof(uint32_t);
  attr.value_size = value_size;
  attr.max_entries = 1;
  attr.map_flags = flags;
  return UniqueFd(static_cast<int>(bpf(BPF_MAP_CREATE, attr)));
}

// The format map: "%pS", frozen, as bpf_snprintf wants its format (a
// constant string in a read-only map).
UniqueFd format_map() {
  UniqueFd map = create_array(8, BPF_F_RDONLY_PROG);
  if (!map.valid()) return map;
  const uint32_t key = 0;
  const std::array<char, 8> format = {'%', 'p', 'S'};
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.map_fd = static_cast<uint32_t>(map.get());
  attr.key = reinterpret_cast<uintptr_t>(&key);
  attr.value = reinterpret_cast<uintptr_t>(format.data());
  if (bpf(BPF_MAP_UPDATE_ELEM, attr) != 0) return UniqueFd();
  std::memset(&attr, 0, sizeof attr);
  attr.map_fd = static_cast<uint32_t>(map.get());
  if (bpf(BPF_MAP_FREEZE, attr) != 0) return UniqueFd();
  return map;
}

constexpr bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.imm = imm;
  return i;
}

// The program, in BPF assembly:
//   r7 = &io[0]                       ; the entry: u64 address, then text
//   r1 = r7 + 8; r2 = kTextBytes      ; where the text goes
//   r3 = &format[0]                   ; "%pS"
//   r4 = r7; r5 = 8                   ; its one argument: the address
//   r0 = bpf_snprintf(r1, r2, r3, r4, r5)
//   exit                              ; the text's length with its NUL
UniqueFd load_program(int io, int format) {
  const std::array<bpf_insn, 11> code = {
      insn(BPF_LD | BPF_DW | BPF_IMM, 7, BPF_PSEUDO_MAP_VALUE, io), insn(0, 0, 0, 0),
      insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0),
      insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, kTextAt),
      insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, kTextBytes),
      insn(BPF_LD | BPF_DW | BPF_IMM, 3, BPF_PSEUDO_MAP_VALUE, format), insn(0, 0, 0, 0),
      insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 7, 0),
      insn(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 8),
      insn(BPF_JMP | BPF_CALL, 0, 0, BPF_FUNC_snprintf),
      insn(BPF_JMP | BPF_EXIT, 0, 0, 0),
  };
  // The kernel offers bpf_snprintf only to programs that declare a
  // GPL-compatible license.
  static constexpr char kLicense[] = "GPL";
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_SYSCALL;
  attr.insns = reinterpret_cast<uintptr_t>(code.data());
  attr.insn_cnt = code.size();
  attr.license = reinterpret_cast<uintptr_t>(kLicense);
  attr.prog_flags = BPF_F_SLEEPABLE;  // syscall programs must be
  return UniqueFd(static_cast<int>(bpf(BPF_PROG_LOAD, attr)));
}

bool parse_hex(std::string_view text, uint64_t& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<LiveKernelSymbols> LiveKernelSymbols::open() {
  LiveKernelSymbols k;
  k.format_ = format_map();
  k.io_ = create_array(kEntryBytes, BPF_F_MMAPABLE);
  if (!k.format_.valid() || !k.io_.valid()) return std::nullopt;
  void* view = mmap(nullptr, kMappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, k.io_.get(), 0);
  if (view == MAP_FAILED) return std::nullopt;
  k.io_view_ = std::unique_ptr<void, MappingDeleter>(view, MappingDeleter{kMappedBytes});
  k.program_ = load_program(k.io_.get(), k.format_.get());
  if (!k.program_.valid()) return std::nullopt;
  return k;
}

std::optional<KernelSymbols::Hit> LiveKernelSymbols::find(uint64_t addr) {
  auto* entry = static_cast<uint8_t*>(io_view_.get());
  std::memcpy(entry, &addr, sizeof addr);
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.test.prog_fd = static_cast<uint32_t>(program_.get());
  if (bpf(BPF_PROG_TEST_RUN, attr) != 0) return std::nullopt;
  const uint32_t written = attr.test.retval;  // with the NUL; more than fits: cut short
  if (written == 0 || written > kTextBytes) return std::nullopt;
  const char* text = reinterpret_cast<const char*>(entry + kTextAt);
  answers_.emplace_back(text, strnlen(text, written - 1));
  return parse(answers_.back());
}

std::optional<KernelSymbols::Hit> LiveKernelSymbols::parse(std::string_view text) {
  std::string_view module = kKernelModule;
  if (!text.empty() && text.back() == ']') {
    const size_t open = text.rfind(" [");
    if (open == std::string_view::npos) return std::nullopt;
    module = text.substr(open + 1);
    text = text.substr(0, open);
  }
  const size_t slash = text.rfind("/0x");
  const size_t plus = slash == std::string_view::npos ? slash : text.rfind("+0x", slash);
  if (plus == std::string_view::npos || plus == 0) return std::nullopt;  // "0x...": no symbol holds it
  uint64_t offset = 0, size = 0;
  if (!parse_hex(text.substr(plus + 3, slash - plus - 3), offset) || !parse_hex(text.substr(slash + 3), size))
    return std::nullopt;
  return KernelSymbols::Hit{text.substr(0, plus), module, offset};
}

}  // namespace swprof
