#include "unwind/return_path.h"

#include <array>

namespace swprof {

namespace {

// Code is read a window at a time through read_code_scattered (a few bytes
// at a sampled pc must not map a big binary's pages around it).
constexpr size_t kWindowBytes = 64;

struct CodeWindow {
  std::array<uint8_t, kWindowBytes> bytes{};
  uint64_t start = 0;
  size_t size = 0;

  bool holds(uint64_t vaddr) const { return size && vaddr >= start && vaddr - start < size; }
  // The window at `vaddr`: the most bytes up to kWindowBytes that its segment holds.
  bool read(const ElfBinary& binary, uint64_t vaddr) {
    for (size_t n = kWindowBytes; n; n /= 2) {
      if (binary.read_code_scattered(vaddr, bytes.data(), n)) {
        start = vaddr;
        size = n;
        return true;
      }
    }
    size = 0;
    return false;
  }
};

}  // namespace

uint32_t registers_unchanged_to_return(X86Decoder& decoder, const ElfBinary& binary, uint64_t vaddr,
                                       uint32_t registers) {
  if (!registers || !decoder.ok()) return 0;
  CodeWindow window;
  uint32_t written = 0;
  uint64_t at = vaddr;
  for (int i = 0; i < kReturnPathMaxInstructions; ++i) {
    // An instruction is at most 15 bytes: read a new window when fewer remain.
    if (!window.holds(at) || window.start + window.size - at < 15) {
      if (!window.read(binary, at)) return 0;
    }
    const X86Insn insn = decoder.decode(Bytes(window.bytes.data(), window.size), window.start, at);
    switch (insn.op) {
      case X86Op::kInvalid:
      case X86Op::kCall:
      case X86Op::kCondJump:
      case X86Op::kIndirectJump:
      case X86Op::kStop:
      // rsp set from elsewhere: the `ret` may return into another context
      // (a stack switch); an epilogue's rsp-based rows come after these.
      case X86Op::kLeave:
      case X86Op::kSetRspFromRbp:
      case X86Op::kAlignRsp:
        return 0;
      case X86Op::kReturn:
        return registers & ~written;
      case X86Op::kJump:
        at = insn.target;
        continue;
      default:
        // `enter` writes rbp and rsp, which Capstone 4 does not report.
        if (insn.clobbers_rsp || decoder.last_is_enter()) return 0;
        written |= decoder.written_gprs();
        if (!(registers & ~written)) return 0;
        at = insn.end();
    }
  }
  return 0;
}

}  // namespace swprof
