#pragma once
// The function-name patterns of `--include`, `--exclude` (report, flamegraph)
// and `--only` (diff). RE2 syntax, searched anywhere in a name. RE2 matches
// in time linear in the name and without recursion, so a name of any length
// (a generated template instance can have tens of thousands of characters)
// cannot exhaust the stack.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/call_tree.h"

namespace re2 {
class RE2;
}

namespace swprof {

class NameFilter {
 public:
  // Throws Error naming `option` (e.g. "--include") and RE2's message when
  // `pattern` does not compile.
  NameFilter(const std::string& pattern, const char* option);
  ~NameFilter();
  NameFilter(NameFilter&&) noexcept;
  NameFilter& operator=(NameFilter&&) noexcept;

  // The pattern matches somewhere in `name` (RE2::PartialMatch).
  bool matches(std::string_view name) const;

 private:
  std::unique_ptr<const re2::RE2> re_;
};

// Keeps a stack when one of its frames' functions matches `include` (when
// given) and none matches `exclude` (when given); an empty pattern is not
// given. Each distinct frame of the tree is matched once.
class StackFilter {
 public:
  // Compiles the patterns now: throws Error for a bad one before any work.
  StackFilter(const CallTree& tree, const std::string& include, const std::string& exclude);

  bool keep(const std::vector<uint32_t>& stack);  // frame ids of `tree`

 private:
  enum : uint8_t { kKnown = 1, kIncluded = 2, kExcluded = 4 };
  uint8_t match(uint32_t frame);

  const CallTree& tree_;
  std::optional<NameFilter> include_, exclude_;  // empty: not given
  std::vector<uint8_t> cache_;                   // by frame id, 0 until matched
};

}  // namespace swprof
