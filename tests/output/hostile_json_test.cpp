// JSON profiles built to hurt the reader: nesting far beyond the format's
// (which once overflowed the stack), and numbers outside the type a field is
// read into (which were once converted unchecked). Each must be refused with
// one clear line.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/json_read.h"
#include "output/report.h"
#include "support/profile_fixture.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::string good_profile() {
  Profile p = sample_profile();
  std::ostringstream out;
  write_json_profile(p, out);
  return out.str();
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The error message read_json_profile gives for `text` ("" when accepted).
std::string refusal(const std::string& text) {
  TempDir dir;
  const std::string path = dir.file("p.json");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  try {
    read_json_profile(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("json: nesting 300,000 deep is refused, wherever it is", "[json][hostile]") {
  const std::string good = good_profile();
  REQUIRE(refusal(good).empty());
  const nlohmann::json doc = nlohmann::json::parse(good);
  // The document with `place` set to a marker, the marker then replaced by deep nesting.
  auto deep_at = [&](const nlohmann::json::json_pointer& place) {
    nlohmann::json d = doc;
    d[place] = "@DEEP@";
    return replaced(d.dump(), "\"@DEEP@\"", nested(300000));
  };
  SECTION("through threads") {
    CHECK_THAT(refusal(deep_at("/threads/0"_json_pointer)), Catch::Contains("nested deeper than 64 levels"));
  }
  SECTION("through unwind.frames_by_stepper") {
    CHECK_THAT(refusal(deep_at("/unwind/frames_by_stepper/cfi"_json_pointer)), Catch::Contains("nested deeper than 64 levels"));
  }
  SECTION("through a frame's flags") {
    CHECK_THAT(refusal(deep_at("/frames/0/flags"_json_pointer)), Catch::Contains("nested deeper than 64 levels"));
  }
  SECTION("the whole document, in one line naming the file") {
    const std::string msg = refusal(nested(300000));
    CHECK_THAT(msg, Catch::Contains("nested deeper"));
    CHECK(msg.find('\n') == std::string::npos);
    CHECK(msg.find("p.json") != std::string::npos);
  }
}

TEST_CASE("json: nesting up to the limit parses, one level more does not", "[json][hostile]") {
  CHECK_NOTHROW(parse_json_limited(nested(kMaxJsonDepth)));
  CHECK_THROWS_AS(parse_json_limited(nested(kMaxJsonDepth + 1)), Error);
  std::istringstream in(nested(kMaxJsonDepth + 1));
  CHECK_THROWS_AS(parse_json_limited(in), Error);
  // Brackets in strings, escaped quotes included, are text.
  const std::string brackets = "[\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\"]";
  CHECK(parse_json_limited(brackets)[0].get<std::string>().size() == 201);
  // Objects count as arrays do.
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kMaxJsonDepth + 1, '}');
  CHECK_THROWS_AS(parse_json_limited(objects), Error);
}

TEST_CASE("json: numbers outside their field's type are refused with the field's name", "[json][hostile]") {
  const std::string good = good_profile();
  const nlohmann::json doc = nlohmann::json::parse(good);
  // `value` is JSON text put at `place` (through a marker, so that numbers
  // nlohmann would not write, such as 2^64 + 5, stay as written).
  auto check = [&](const char* place, const std::string& value, const std::string& expect) {
    nlohmann::json d = doc;
    d[nlohmann::json::json_pointer(place)] = "@VALUE@";
    const std::string msg = refusal(replaced(d.dump(), "\"@VALUE@\"", value));
    CHECK_THAT(msg, Catch::Contains(expect));
    CHECK(msg.find('\n') == std::string::npos);
  };
  check("/version", "18446744073709551621", "field version: expected an integer from 0 to 4294967295, got 1.8446744073709552e+19");
  check("/version", "1.0", "field version: expected an integer");
  check("/version", "-1", "field version");
  check("/version", "\"1\"", "field version");
  check("/metadata/frequency", "4294967296", "field frequency: expected an integer from 0 to 4294967295, got 4294967296");
  check("/metadata/samples_read", "-5", "field samples_read");
  check("/metadata/duration_seconds", "1e300", "field duration_seconds");
  check("/metadata/duration_seconds", "\"long\"", "field duration_seconds: expected a number");
  check("/metadata/target_pid", "9223372036854775808", "field target_pid");
  check("/unwind/frames_by_stepper/cfi", "-3", "field unwind.frames_by_stepper.cfi");
  check("/unwind/walk_ends/complete", "0.5", "field unwind.walk_ends.complete");
  check("/unwind/samples", "1e3", "field samples");
  check("/threads/0/tid", "4294967296", "field tid");
  check("/frames/0/line", "-1", "field line");
  check("/nodes/1/parent", "-1e3", "field parent");
  check("/nodes/1/frame", "18446744073709551615", "field frame");
  check("/nodes/0/self", "18446744073709551616", "field self");
}
