#pragma once
// Where a frame is: an exact pc (the sampled frame, or the interrupted
// context of a signal) or a return address. A return address points after
// its call, which may be past the end of the calling function: unwind info
// is looked up at the call itself, lookup_pc().

#include <cstdint>

namespace swprof {

class FrameAddress {
 public:
  static constexpr FrameAddress exact_pc(uint64_t pc) { return FrameAddress(pc, true); }
  static constexpr FrameAddress return_address(uint64_t ra) { return FrameAddress(ra, false); }
  static constexpr FrameAddress of(uint64_t address, bool exact) { return FrameAddress(address, exact); }

  constexpr uint64_t address() const { return address_; }
  constexpr bool is_exact() const { return exact_; }
  // The address to look unwind info up for: the pc itself, or the last
  // byte of the call instruction (return address - 1).
  constexpr uint64_t lookup_pc() const { return exact_ ? address_ : address_ - 1; }

  constexpr bool operator==(const FrameAddress&) const = default;

 private:
  constexpr FrameAddress(uint64_t address, bool exact) : address_(address), exact_(exact) {}
  uint64_t address_;
  bool exact_;
};

}  // namespace swprof
