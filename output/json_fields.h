#pragma once
// Pieces shared by the JSON writers (profile and diff) and the profile reader.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
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

// The reverse of frame_flags_json; throws Error for an unknown name.
inline uint8_t frame_flags_from_json(const nlohmann::json& names) {
  uint8_t flags = 0;
  for (const auto& name : names) {
    const std::string s = name.get<std::string>();
    if (s == "inline") flags |= kCctInline;
    else if (s == "guess") flags |= kCctGuess;
    else if (s == "kernel") flags |= kCctKernel;
    else if (s == "thread") flags |= kCctThread;
    else throw Error("unknown frame flag '" + s + "'");
  }
  return flags;
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
