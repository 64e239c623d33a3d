#pragma once
// Lower-case hex text of a byte range (build-ids).

#include <string>

#include "common/byte_reader.h"

namespace swprof {

inline std::string to_hex(Bytes bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  return hex;
}

}  // namespace swprof
