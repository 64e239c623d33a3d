// What `/` looks for (tui/search.h).

#include "tui/search.h"

#include <algorithm>

namespace swprof::tui {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

NameMatcher::NameMatcher(std::string_view pattern)
    : pattern_(pattern), ignore_case_(std::none_of(pattern.begin(), pattern.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {}

bool NameMatcher::matches(std::string_view name) const {
  if (pattern_.empty()) return false;
  if (!ignore_case_) return name.find(pattern_) != std::string_view::npos;
  return std::search(name.begin(), name.end(), pattern_.begin(), pattern_.end(),
                     [](char a, char b) { return lower(a) == b; }) != name.end();
}

}  // namespace swprof::tui
