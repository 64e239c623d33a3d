#pragma once
// Numeric options of every command, checked as they are parsed with one
// message form:
//   invalid --threshold 'nan': expected a finite number >= 0
// NaN, infinities, trailing garbage and values out of range never reach a
// command (CLI11 alone would accept "nan" for a double and switch a gate off).

#include <CLI/CLI.hpp>
#include <limits>
#include <string>

namespace swprof::cli {

struct NumberRange {
  double min = 0;
  double max = std::numeric_limits<double>::infinity();  // inclusive; infinity: no upper bound
  bool whole = false;          // integers only
  bool exclusive_min = false;  // value > min rather than >= min
};

// Parses `text` as a number in `range`; throws CLI::ValidationError with the
// message above, naming `option`.
double parse_number(const std::string& text, const std::string& option, const NumberRange& range);

// "expected a whole number between 1 and 256", "expected a finite number >= 0".
std::string describe_range(const NumberRange& range);

// "--threads" for "-j,--threads": the long name, else the first one.
std::string option_display_name(const std::string& names);

// Adds an option that stores parse_number(value) into `target`.
template <typename T>
CLI::Option* add_number(CLI::App* sub, const std::string& names, T& target, const NumberRange& range,
                        const std::string& help) {
  // The callback runs during parsing; its ValidationError is the message.
  const std::string name = option_display_name(names);
  auto* opt = sub->add_option_function<std::string>(
      names, [&target, range, name](const std::string& text) { target = static_cast<T>(parse_number(text, name, range)); },
      help);
  opt->type_name(range.whole ? "INT" : "NUMBER");
  return opt;
}

}  // namespace swprof::cli
