#pragma once
// Memory the unwinder may read: the copied user stack of a sample, or a
// buffer for tests. Every read is bounds-checked: a read that is not wholly
// inside the memory fails and copies nothing.

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

// A contiguous buffer at a fixed address, held by value: hot loops read
// through a local copy, so stores elsewhere cannot force its fields to be
// reloaded from memory on every read.
struct ContiguousView {
  uint64_t base = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;

  std::optional<uint64_t> read_u64(uint64_t addr) const {
    const uint64_t off = addr - base;  // wraps for addr < base: then off >= size
    if (off >= size || size - off < 8) return std::nullopt;
    uint64_t v;
    std::memcpy(&v, data + off, sizeof v);
    return v;
  }
};

// A contiguous buffer of at least one 8-byte word, seen as words: the
// unwinder's hot loop checks a word with one compare.
struct WordView {
  uint64_t base = 0;
  const uint8_t* data = nullptr;
  uint64_t last = 0;  // offset of the last whole word

  // nullopt when the buffer holds no whole word.
  static std::optional<WordView> of(const ContiguousView& v) {
    if (v.size < 8) return std::nullopt;
    return WordView{v.base, v.data, v.size - 8};
  }
  std::optional<uint64_t> read_u64(uint64_t addr) const {
    if (!has_word(addr)) return std::nullopt;
    return word(addr, 0);
  }
  // True when the 8 bytes at addr are in the buffer.
  bool has_word(uint64_t addr) const { return addr - base <= last; }  // wraps for addr < base
  // The word at at + off, unchecked: only for addresses known to be in the buffer.
  uint64_t word(uint64_t at, int64_t off) const {
    uint64_t v;
    std::memcpy(&v, data + ((at - base) + static_cast<uint64_t>(off)), sizeof v);
    return v;
  }
};

class Memory {
 public:
  virtual ~Memory() = default;
  // Copies n bytes at addr to dst; false when any byte is outside this memory.
  virtual bool read(uint64_t addr, void* dst, size_t n) const = 0;

  // The whole memory as one buffer, when it is one (the copied stack).
  std::optional<ContiguousView> contiguous() const {
    if (!contiguous_) return std::nullopt;
    return ContiguousView{base_, data_, size_};
  }

  // The unwinder's hot path: one 8-byte read, served inline when the memory
  // is one contiguous buffer (the copied stack), else through read().
  std::optional<uint64_t> read_u64(uint64_t addr) const {
    if (contiguous_) return ContiguousView{base_, data_, size_}.read_u64(addr);
    uint64_t v;
    if (!read(addr, &v, sizeof v)) return std::nullopt;
    return v;
  }

 protected:
  // For implementations that are one buffer at a fixed address.
  void set_contiguous(uint64_t base, const uint8_t* data, size_t size) {
    contiguous_ = true;
    base_ = base;
    data_ = data;
    size_ = size;
  }

 private:
  bool contiguous_ = false;
  uint64_t base_ = 0;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Bytes that start at a fixed address: [base, base + bytes.size()).
class BufferMemory : public Memory {
 public:
  BufferMemory(uint64_t base, Bytes bytes) : base_(base), bytes_(bytes) {
    set_contiguous(base, bytes.data(), bytes.size());
  }
  bool read(uint64_t addr, void* dst, size_t n) const override {
    if (addr < base_) return false;
    const uint64_t off = addr - base_;
    if (off > bytes_.size() || n > bytes_.size() - off) return false;
    std::memcpy(dst, bytes_.data() + off, n);
    return true;
  }
  uint64_t base() const { return base_; }
  uint64_t end() const { return base_ + bytes_.size(); }

 private:
  uint64_t base_;
  Bytes bytes_;
};

// A sample's copied stack: valid only in [sp, sp + dyn_size).
class SampleStackMemory : public BufferMemory {
 public:
  SampleStackMemory(uint64_t sp, Bytes stack) : BufferMemory(sp, stack) {}
};

}  // namespace swprof
