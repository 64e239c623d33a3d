#include "compare/diff_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/diff_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("diff json: the documented fields") {
  const ProfileDiff d = diff_profiles(bench(300, "base.json"), bench(600, "new.json"), {});
  std::ostringstream out;
  write_diff_json(d, out);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["format"] == "swprof-diff");
  CHECK(doc["version"] == kDiffJsonVersion);
  CHECK(doc["result"] == "regression");
  CHECK(doc["failing"] == 2);
  CHECK(doc["options"]["fail_on"] == "total");
  CHECK(doc["base"]["samples"] == 1000);
  CHECK(doc["new"]["source"] == "new.json");
  const auto& hot = doc["functions"][0];
  CHECK(hot["name"] == "hot");
  CHECK(hot["fails_gate"] == true);
  CHECK(hot["self"]["base"] == 300);
  CHECK(hot["self"]["new"] == 600);
  CHECK(hot["self"]["change"] == "regression");
  CHECK(hot["self"]["base_percent"] == 30.0);
  CHECK(doc["contexts"].size() == d.contexts.size());
  CHECK(doc["contexts"][0]["id"].get<std::string>().size() == 16);
  CHECK(doc["contexts"][0]["stack"].back()["name"] == "hot");
}
