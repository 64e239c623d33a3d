#pragma once
// Pieces shared by the JSON writers (profile and diff).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "profile/call_tree.h"

namespace swprof {

// A frame's CctFlags as the documented names ("inline", "guess", "kernel",
// "thread"), in that order.
inline nlohmann::json frame_flags_json(uint8_t flags) {
  nlohmann::json out = nlohmann::json::array();
  if (flags & kCctInline) out.push_back("inline");
  if (flags & kCctGuess) out.push_back("guess");
  if (flags & kCctKernel) out.push_back("kernel");
  if (flags & kCctThread) out.push_back("thread");
  return out;
}

// Compact JSON text; bytes that are not UTF-8 (names from a binary) become
// U+FFFD instead of failing the whole output.
// Either JSON type: nlohmann::json (keys sorted) or ordered_json (keys as
// written).
template <typename Json>
std::string dump_json(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace swprof
