#include "cli/number_options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace swprof::cli {
namespace {

std::string format_bound(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

bool in_range(double v, const NumberRange& r) {
  if (r.exclusive_min ? !(v > r.min) : !(v >= r.min)) return false;
  return v <= r.max;
}

// strtod without locale surprises: digits, one optional sign, a fraction and
// an exponent; no hex, no "nan"/"inf" (those fail the finite check anyway).
bool read_double(const std::string& text, double& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

}  // namespace

std::string describe_range(const NumberRange& r) {
  std::string out = r.whole ? "expected a whole number " : "expected a finite number ";
  if (std::isinf(r.max)) return out + (r.exclusive_min ? "> " : ">= ") + format_bound(r.min);
  if (r.exclusive_min) return out + "> " + format_bound(r.min) + " and <= " + format_bound(r.max);
  return out + "between " + format_bound(r.min) + " and " + format_bound(r.max);
}

std::string option_display_name(const std::string& names) {
  std::string first;
  size_t start = 0;
  while (start <= names.size()) {
    size_t comma = names.find(',', start);
    if (comma == std::string::npos) comma = names.size();
    const std::string name = names.substr(start, comma - start);
    if (name.rfind("--", 0) == 0) return name;
    if (first.empty()) first = name;
    start = comma + 1;
  }
  return first;
}

double parse_number(const std::string& text, const std::string& option, const NumberRange& range) {
  double v = 0;
  const bool ok = read_double(text, v) && std::isfinite(v) && (!range.whole || std::floor(v) == v) && in_range(v, range) &&
                  text.find_first_of("xXpP") == std::string::npos;
  if (!ok) throw CLI::ValidationError("invalid " + option + " '" + text + "': " + describe_range(range));
  return v;
}

}  // namespace swprof::cli
