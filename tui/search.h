#pragma once
// What `/` looks for: a piece of a name. Case does not matter unless the
// pattern holds an upper-case letter ("smart case", as in less and vim):
// "parse" finds Parser::parse and PARSE_ALL, "Parse" only the first.

#include <string>
#include <string_view>

namespace swprof::tui {

class NameMatcher {
 public:
  explicit NameMatcher(std::string_view pattern);
  bool empty() const { return pattern_.empty(); }
  const std::string& pattern() const { return pattern_; }
  // Whether `pattern` is in `name` (an empty pattern matches nothing).
  bool matches(std::string_view name) const;

 private:
  std::string pattern_;
  bool ignore_case_;
};

}  // namespace swprof::tui
