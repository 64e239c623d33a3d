#include "common/json_read.h"

namespace swprof {
namespace {

using nlohmann::json;

// Stops the parser at the first value nested deeper than kMaxJsonDepth,
// before it is built.
bool limit_depth(int depth, json::parse_event_t /*event*/, json& /*parsed*/) {
  if (depth > kMaxJsonDepth)
    throw Error("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  return true;
}

}  // namespace

json parse_json_limited(std::string_view text) { return json::parse(text.begin(), text.end(), limit_depth); }

json parse_json_limited(std::istream& in) { return json::parse(in, limit_depth); }

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
