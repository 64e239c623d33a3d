#include "output/json_profile_reader.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "output/json_profile_writer.h"
#include "support/profile_fixture.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("json: damaged or foreign profiles are refused with one line") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_json_profile(p, out);
  const std::string good = out.str();
  TempDir dir;
  auto refused = [&](const std::string& text, const std::string& expect) {
    const std::string path = dir.path() + "/bad.json";
    std::ofstream(path, std::ios::trunc) << text;
    try {
      read_json_profile(path);
      FAIL("accepted: " << expect);
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK(msg.find(expect) != std::string::npos);
      CHECK(msg.find('\n') == std::string::npos);
    }
  };
  auto replace = [&](std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  refused("not json", "not valid JSON");
  refused("{\"format\": \"other\"}", "not a swprof JSON profile");
  refused(replace(good, "\"version\": 1", "\"version\": 7"), "version 7 is not supported");
  refused(good.substr(0, good.size() / 2), "not valid JSON");
  // A node whose id does not match its stack.
  const auto doc = nlohmann::json::parse(good);
  const std::string id = doc["nodes"][2]["id"];
  refused(replace(good, id, "0123456789abcdef"), "context id");
  // Totals that do not add up.
  refused(replace(good, "\"total\":100", "\"total\":101"), "is not its self samples");
  // Counts must be integers: a float out of range would not convert.
  refused(replace(good, "\"total\":100", "\"total\":1.5e57"), "field total: expected an integer");
  refused(replace(good, "\"self\":0", "\"self\":-2.5"), "field self: expected an integer");
  refused(replace(good, "\"frame\":0", "\"frame\":1e300"), "field frame: expected an integer");
  refused(replace(good, "\"version\": 1", "\"version\": 1e99"), "field version: expected an integer");
}
