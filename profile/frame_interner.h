#pragma once
// The calling-context tree's frames of each symbolized address, made once.
// The Symbolizer keeps one SymbolizedAddress per (binary, address), per
// (process mapping, address) and per kernel address; here each of them (with
// the flags its frames carry) becomes the short list of CallTree frame ids a
// stack shows for it: the outermost function first, then what was inlined
// into it. Names are built and looked up only then: a sample's frames cost
// one hash probe each.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/flat_index.h"
#include "profile/call_tree.h"
#include "symbolize/symbolizer.h"

namespace swprof {

// One symbolized address with the frame flags that make it other frames
// (guessed, kernel) as one key: its SymbolizedAddress's place with the
// flags in the low bits the place never uses. The same address and flags,
// the same key, for as long as the symbolizer keeps the address.
inline constexpr uint8_t kAddressKeyFlags = kCctGuess | kCctKernel;
static_assert(alignof(SymbolizedAddress) > kAddressKeyFlags);
inline uint64_t address_key(const SymbolizedAddress& where, uint8_t flags) {
  return reinterpret_cast<uintptr_t>(&where) | (flags & kAddressKeyFlags);
}

class FrameInterner {
 public:
  explicit FrameInterner(CallTree& tree) : tree_(tree) {}

  // The frame ids of `where` root first, each carrying `flags`: kCctKernel
  // and/or kCctGuess, no other (kCctInline is added to the inlined ones).
  // `where` must stay where it is while this interner is used (the
  // Symbolizer's references do). The span is valid until the next call.
  std::span<const uint32_t> frames(const SymbolizedAddress& where, uint8_t flags);

  // The frame of a name made up by the profile ("[unknown]", thread roots).
  uint32_t named(const std::string& function, const std::string& module, uint8_t flags);

  // Distinct (address, flags) interned so far.
  size_t size() const { return spans_.size(); }

 private:
  struct Span {
    uint32_t begin = 0, count = 0;  // in ids_
  };

  Span intern(const SymbolizedAddress& where, uint8_t flags);

  CallTree& tree_;
  FlatIndex<uint64_t> index_;  // address | flags -> position in spans_
  std::vector<Span> spans_;
  std::vector<uint32_t> ids_;  // every span's frame ids, one after another
};

}  // namespace swprof
