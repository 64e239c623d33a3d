#pragma once
// A hash index from small keys to uint32_t values (positions in a vector or
// deque the caller owns), for the lookups made once per frame of every
// sample: open addressing with linear probing in one array, a power-of-two
// capacity kept at most half full, entries never erased. A lookup is one
// hash and, nearly always, one cache line; std::unordered_map takes a
// modulo by a prime and a pointer chase per node.
//
// `Key` is compared with ==; `Hash` maps it to 64 bits (the low bits pick
// the slot, so they must be well mixed: see mix64).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace swprof {

// A 64-bit mixer whose every output bit depends on every input bit
// (splitmix64's finalizer).
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

struct Mix64Hash {
  uint64_t operator()(uint64_t key) const { return mix64(key); }
};

template <typename Key, typename Hash = Mix64Hash>
class FlatIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;  // never a stored value

  // The value stored for `key`, or kAbsent.
  uint32_t find(const Key& key) const {
    if (slots_.empty()) return kAbsent;
    for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) return kAbsent;
      if (s.key == key) return s.value;
    }
  }

  // The value stored for `key`, storing `value` (not kAbsent) first when
  // there is none; and whether it was stored now.
  std::pair<uint32_t, bool> try_emplace(const Key& key, uint32_t value) {
    Slot& s = slot_for_insert(key);
    if (s.value != kAbsent) return {s.value, false};
    s = Slot{key, value};
    ++size_;
    return {value, true};
  }

  // Stores `value` (not kAbsent) for `key`, replacing the value it had.
  void assign(const Key& key, uint32_t value) {
    Slot& s = slot_for_insert(key);
    if (s.value == kAbsent) ++size_;
    s = Slot{key, value};
  }

  size_t size() const { return size_; }
  void clear() {
    slots_.clear();
    size_ = 0;
    mask_ = 0;
  }

 private:
  struct Slot {
    Key key{};
    uint32_t value = kAbsent;
  };

  size_t slot_of(const Key& key) const { return static_cast<size_t>(Hash{}(key)) & mask_; }

  // The slot holding `key`, else the empty one where it goes.
  Slot& slot_for_insert(const Key& key) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = slot_of(key);
    while (slots_[i].value != kAbsent && !(slots_[i].key == key)) i = (i + 1) & mask_;
    return slots_[i];
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.value == kAbsent) continue;
      size_t i = slot_of(s.key);
      while (slots_[i].value != kAbsent) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace swprof
