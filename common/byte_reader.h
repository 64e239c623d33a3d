#pragma once
// Bounds-checked cursor over a byte range. Every byte read from a ring buffer,
// a recording file or a copied stack goes through this reader: a read past the
// end fails (returns nullopt / false) and leaves the cursor where it was.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace swprof {

using Bytes = std::span<const uint8_t>;

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(Bytes data) : data_(data) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

  template <typename T>
  std::optional<T> read() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (remaining() < sizeof(T)) return std::nullopt;
    T value;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  // Reads into `out`; false (cursor unchanged) when fewer than sizeof(T) remain.
  template <typename T>
  bool read_into(T& out) {
    auto value = read<T>();
    if (!value) return false;
    out = *value;
    return true;
  }

  std::optional<Bytes> bytes(size_t n) {
    if (remaining() < n) return std::nullopt;
    Bytes out = data_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  bool skip(size_t n) {
    if (remaining() < n) return false;
    pos_ += n;
    return true;
  }

  // A NUL-terminated string inside the next `n` bytes (the rest is padding).
  std::optional<std::string_view> padded_string(size_t n) {
    auto raw = bytes(n);
    if (!raw) return std::nullopt;
    const char* text = reinterpret_cast<const char*>(raw->data());
    return std::string_view(text, strnlen(text, raw->size()));
  }

 private:
  Bytes data_;
  size_t pos_ = 0;
};

// Append-only little-endian writer into a growable buffer.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}

  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }
  void put_bytes(Bytes data) { out_.insert(out_.end(), data.begin(), data.end()); }
  void put_string(std::string_view s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  size_t size() const { return out_.size(); }
  // Overwrites a value written earlier at `at` (used to patch a size field).
  template <typename T>
  void patch(size_t at, const T& value) {
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }

 private:
  std::vector<uint8_t>& out_;
};

// Reads a length-prefixed string written by ByteWriter::put_string.
inline std::optional<std::string_view> read_string(ByteReader& r) {
  auto len = r.read<uint32_t>();
  if (!len) return std::nullopt;
  auto raw = r.bytes(*len);
  if (!raw) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(raw->data()), raw->size());
}

// Unsigned LEB128 (DWARF 5 §7.6); nullopt when cut short or longer than 64 bits.
inline std::optional<uint64_t> read_uleb128(ByteReader& r) {
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    auto byte = r.read<uint8_t>();
    if (!byte) return std::nullopt;
    value |= uint64_t{*byte & 0x7fu} << shift;
    if (!(*byte & 0x80)) return value;
  }
  return std::nullopt;
}

// Signed LEB128 (DWARF 5 §7.6).
inline std::optional<int64_t> read_sleb128(ByteReader& r) {
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    auto byte = r.read<uint8_t>();
    if (!byte) return std::nullopt;
    value |= uint64_t{*byte & 0x7fu} << shift;
    if (!(*byte & 0x80)) {
      if (shift + 7 < 64 && (*byte & 0x40)) value |= ~uint64_t{0} << (shift + 7);
      return static_cast<int64_t>(value);
    }
  }
  return std::nullopt;
}

}  // namespace swprof
