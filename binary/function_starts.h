#pragma once
// Function discovery for code without symbols (stripped binaries): where each
// function of a binary's executable code starts. Recursive descent after
// Dyninst's ParseAPI (parseAPI/src/IA_x86.C, SymtabCodeSource.C):
//
//   seeds    .symtab/.dynsym functions, FDE starts (.eh_frame, .debug_frame),
//            e_entry, main as the entry code's rdi argument, DT_INIT/DT_FINI,
//            .init/.fini, .preinit/.init/.fini_array pointers, PLT stubs
//   descent  from every start, the blocks it reaches (never crossing another
//            start); a direct call's target is a start, and so is a jump's
//            target when the jump is a tail call (target already a start, in
//            no block of this function and before it, the function's only
//            instruction, or right after an epilogue: leave, pop of a
//            callee-saved register, add rsp not right after a call); a
//            call's fall-through is not followed when the callee never
//            returns (by name, or parsed with no ret / tail jump / indirect
//            jump reachable)
//   checks   a target must be in an executable segment's file image, decode,
//            and not be inside an instruction already decoded
//   pointers then, function pointers in data (ET_EXEC: aligned words of the
//            non-executable segments' file images; ET_DYN: RELATIVE and
//            IRELATIVE addends) that land in code, lowest first, each
//            descended before the next; one inside the hull of a function
//            already known (its first to last instruction, or its FDE or
//            sized symbol) is a jump-table target or an unreached block,
//            not a start, and so is a word of a non-PIE jump table
//            (`jmp [reg*8 + disp32]`); then the code addresses decoded
//            code puts in registers (lea, mov imm), round after round; a
//            pointer-only start that later code decodes across is dropped
//   gaps     optional: the first instruction after padding in each run of
//            bytes no function reached becomes a start (address-taken code)
//
// Functions with an FDE are descended only when code without CFI calls
// them (DiscoveryLimits::parse_fde_functions). What they hand to code
// outside every FDE is still found, exactly: the FDE ranges are byte-scanned
// for call/jmp rel32 and rip-relative lea whose target lands outside every
// FDE on no known start, and only an FDE holding one is decoded linearly;
// its direct call and jump targets there are starts, its lea addresses code
// references (as above). Hand-written assembly without symbols or CFI
// (x86inc's functions in libx264, libavcodec, dav1d) is reached this way. A function ends where the
// next start begins, clipped to its executable segment. Bounded by an
// instruction budget.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace swprof {

class ElfBinary;

// Where a start was found (a bit set per start).
enum StartSource : uint16_t {
  kFromSymbol = 1,
  kFromDynsym = 2,
  kFromFde = 4,
  kFromEntry = 8,
  kFromEntryArg = 16,
  kFromInitArray = 32,
  kFromPlt = 64,
  kFromCall = 128,
  kFromTailJump = 256,
  kFromGo = 512,
  kFromGap = 1024,
  kFromPointer = 2048,
};
inline constexpr size_t kStartSourceCount = 12;
// "symbol", "dynsym", "fde", ... for bit i.
const char* start_source_name(size_t bit);

struct DiscoveredFunction {
  uint64_t start = 0, end = 0;  // [start, end): ELF virtual addresses
  uint16_t sources = 0;         // StartSource bits
  bool no_return = false;
};

struct DiscoveryLimits {
  size_t max_instructions = 8'000'000;
  bool data_pointers = true;  // function pointers in data as starts (see above)
  bool parse_gaps = false;  // off: measured to add more false starts than it finds (bench/RESULTS.md)
  // Descend from every start, or (false) from an FDE's start only when code
  // without CFI calls it: CFI already gives those functions' extent and
  // unwinding, and skipping them makes discovery ~N times cheaper on binaries
  // with CFI for nearly everything (bench/RESULTS.md).
  bool parse_fde_functions = false;
  // What FDE-covered code hands to code outside every FDE (see above); off
  // only to measure its cost (swprof_function_starts_bench --no-fde-exits).
  bool fde_exits = true;
};

struct DiscoveryStats {
  std::array<size_t, kStartSourceCount> by_source{};  // starts with each source bit
  size_t instructions = 0;      // decoded
  size_t rejected_targets = 0;  // call/jump targets that failed the checks
  bool budget_hit = false;
  double seconds = 0;
};

class FunctionStarts {
 public:
  static std::unique_ptr<const FunctionStarts> discover(const ElfBinary& binary, const DiscoveryLimits& limits = {});

  // The discovered function holding vaddr; nullopt outside executable code or before its first start.
  std::optional<DiscoveredFunction> at(uint64_t vaddr) const;
  // Sorted starts.
  std::span<const uint64_t> starts() const { return starts_; }
  const DiscoveryStats& stats() const { return stats_; }

 private:
  friend class FunctionDiscovery;
  std::vector<uint64_t> starts_;
  std::vector<uint16_t> sources_;
  std::vector<uint8_t> no_return_;
  std::vector<std::pair<uint64_t, uint64_t>> exec_ranges_;
  DiscoveryStats stats_;
};

}  // namespace swprof
