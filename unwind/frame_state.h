#pragma once
// Frame state of a function at one instruction, after Dyninst's frame-state
// helper (FrameFuncHelper): what kind of rbp frame the function builds, read
// from its prologue, and how far the frame is built at a given pc.
//
//   kind        prologue (after an optional endbr64)
//   ----------  --------------------------------------
//   kStandard   push rbp; mov rbp, rsp
//   kSaveFpOnly push rbp, not followed by mov rbp, rsp
//   kNoFrame    anything else
//
//   setup at pc  meaning
//   -----------  --------------------------------------------------------
//   kUnset       rbp is the caller's and rsp points at the return address:
//                before `push rbp`, or after the epilogue's `pop rbp` /
//                `leave` up to and including its `ret` (or tail `jmp`)
//   kHalfset     `push rbp` done, `mov rbp, rsp` not yet (kSaveFpOnly
//                functions stay halfset for their whole body)
//   kSet         rbp points at the saved rbp, the return address above it

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "binary/elf_binary.h"
#include "binary/function_bounds.h"
#include "binary/x86_decoder.h"
#include "common/byte_reader.h"

namespace swprof {

enum class FrameKind : uint8_t { kNoFrame, kStandard, kSaveFpOnly };
enum class FrameSetup : uint8_t { kUnset, kHalfset, kSet };

const char* frame_kind_name(FrameKind kind);
const char* frame_setup_name(FrameSetup setup);

struct FrameState {
  FrameKind kind = FrameKind::kNoFrame;
  FrameSetup setup = FrameSetup::kUnset;
  bool operator==(const FrameState&) const = default;
};

// The rbp-related shape of one function, computed once per function.
struct FunctionFrameLayout {
  // [from, to]: after an epilogue's `pop rbp` / `leave`, up to its `ret` or tail `jmp`.
  struct UnsetRange {
    uint64_t from = 0;
    uint64_t to = 0;
  };

  FrameKind kind = FrameKind::kNoFrame;
  uint64_t start = 0;
  uint64_t after_push = 0;  // first address after `push rbp` (not kNoFrame)
  uint64_t after_mov = 0;   // first address after `mov rbp, rsp` (kStandard)
  std::vector<UnsetRange> epilogues;

  FrameSetup setup_at(uint64_t pc) const;
  FrameState state_at(uint64_t pc) const { return {kind, setup_at(pc)}; }
};

// Reads the prologue (the first kPrologueBytes) and sweeps the whole function
// for epilogues. `code` holds the function's bytes, code[0] at `start`.
FunctionFrameLayout analyze_frame_layout(X86Decoder& decoder, Bytes code, uint64_t start);

// Frame layouts cached per (binary, function start), bounded. One instance
// per unwinding thread: not thread-safe.
class FrameStateHelper {
 public:
  static constexpr size_t kPrologueBytes = 64;
  static constexpr size_t kMaxFunctionBytes = 256 * 1024;

  explicit FrameStateHelper(size_t max_functions = 4096) : max_functions_(max_functions) {}

  // The layout of `fn` in `binary` (its bytes: [start, min(end, start +
  // kMaxFunctionBytes))); nullptr when its code cannot be read. Valid until
  // the next call.
  const FunctionFrameLayout* layout(const ElfBinary& binary, const FunctionBounds& fn);

  // The state at ELF vaddr `pc` inside `fn`; nullopt when the code cannot be read.
  std::optional<FrameState> state_at(const ElfBinary& binary, const FunctionBounds& fn, uint64_t pc);

  // The state at `pc` of the function whose bytes are `code`, code[0] at
  // `start` (uncached; for code that is not in an ElfBinary, and for tests).
  FrameState state_at(Bytes code, uint64_t start, uint64_t pc);

  size_t cached_functions() const { return cache_.size(); }

 private:
  struct Key {
    const ElfBinary* binary;
    uint64_t start;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.binary) ^ (std::hash<uint64_t>()(k.start) * 0x9e3779b97f4a7c15ull);
    }
  };
  struct Entry {
    bool readable = false;
    FunctionFrameLayout layout;
  };

  X86Decoder decoder_;
  size_t max_functions_;
  std::unordered_map<Key, Entry, KeyHash> cache_;
};

}  // namespace swprof
