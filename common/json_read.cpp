#include "common/json_read.h"

#include <iterator>

namespace swprof {
namespace {

using nlohmann::json;

// Throws when a container opens inside kMaxJsonDepth others. A scan of the
// text before parsing: a parser callback could stop the parse too, but
// nlohmann's callback parser is some 30 times slower on large profiles.
// Brackets inside strings do not count; syntax errors are left to the parser.
void check_depth(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) throw Error("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

json parse_json_limited(std::string_view text) {
  check_depth(text);
  return json::parse(text.begin(), text.end());
}

json parse_json_limited(std::istream& in) {
  const std::string text(std::istreambuf_iterator<char>(in), {});
  return parse_json_limited(text);
}

namespace json_read_detail {

std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

void fail_number(std::string_view field, const std::string& expected, const json& value) {
  throw Error("field " + std::string(field) + ": expected " + expected + ", got " + shown(value));
}

}  // namespace json_read_detail
}  // namespace swprof
