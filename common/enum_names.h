#pragma once
// One enum's names as options spell them: the list a command line offers and
// the parse that names the choices when a word is not one of them.

#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace swprof {

// The names of `values`, in order.
template <typename Enum>
std::vector<std::string> enum_names(std::span<const Enum> values, const char* (*name_of)(Enum)) {
  std::vector<std::string> names;
  for (Enum v : values) names.push_back(name_of(v));
  return names;
}

// The value named `name`; else an Error "unknown WHAT 'NAME': choose a, b or c".
template <typename Enum>
Enum parse_enum_name(const std::string& name, std::span<const Enum> values, const char* (*name_of)(Enum),
                     const std::string& what) {
  std::string choices;
  for (size_t i = 0; i < values.size(); ++i) {
    if (name == name_of(values[i])) return values[i];
    choices += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::string(name_of(values[i]));
  }
  throw Error("unknown " + what + " '" + name + "': choose " + choices);
}

}  // namespace swprof
