#include "profile/name_filter.h"

#include <re2/re2.h>

#include "common/error.h"

namespace swprof {
namespace {

std::string syntax_hint(re2::RE2::ErrorCode code) {
  if (code == re2::RE2::ErrorBadPerlOp || code == re2::RE2::ErrorBadEscape)
    return " (RE2 syntax: no backreferences, no lookahead or lookbehind)";
  return "";
}

}  // namespace

NameFilter::NameFilter(const std::string& pattern, const char* option) {
  re2::RE2::Options options;
  options.set_log_errors(false);  // the error is thrown, not logged to stderr
  auto re = std::make_unique<const re2::RE2>(pattern, options);
  if (!re->ok())
    throw Error(std::string("invalid ") + option + " regex '" + pattern + "': " + re->error() +
                syntax_hint(re->error_code()));
  re_ = std::move(re);
}

NameFilter::~NameFilter() = default;
NameFilter::NameFilter(NameFilter&&) noexcept = default;
NameFilter& NameFilter::operator=(NameFilter&&) noexcept = default;

bool NameFilter::matches(std::string_view name) const {
  return re2::RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

StackFilter::StackFilter(const CallTree& tree, const std::string& include, const std::string& exclude)
    : tree_(tree) {
  if (!include.empty()) include_.emplace(include, "--include");
  if (!exclude.empty()) exclude_.emplace(exclude, "--exclude");
}

bool StackFilter::keep(const std::vector<uint32_t>& stack) {
  if (!include_ && !exclude_) return true;
  bool included = !include_;
  for (uint32_t id : stack) {
    const uint8_t m = match(id);
    if (m & kExcluded) return false;
    if (m & kIncluded) included = true;
  }
  return included;
}

uint8_t StackFilter::match(uint32_t frame) {
  if (frame >= cache_.size()) cache_.resize(tree_.frames().size(), 0);
  uint8_t& m = cache_[frame];
  if (!m) {
    const std::string& name = tree_.frame(frame).function;
    m = kKnown;
    if (include_ && include_->matches(name)) m |= kIncluded;
    if (exclude_ && exclude_->matches(name)) m |= kExcluded;
  }
  return m;
}

}  // namespace swprof
