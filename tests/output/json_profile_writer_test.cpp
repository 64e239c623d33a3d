#include "output/json_profile_writer.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "output/json_profile_reader.h"
#include "support/profile_fixture.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("json: writes the documented fields and reads back the same tree") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_json_profile(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["format"] == "swprof-profile");
  CHECK(doc["version"] == kJsonProfileVersion);
  CHECK(doc["metadata"]["samples"] == 100);
  CHECK(doc["metadata"]["command"][1] == "--fast");
  CHECK(doc["nodes"][0]["parent"] == -1);
  CHECK(doc["nodes"][0]["total"] == 100);
  CHECK(doc["nodes"].size() == p.tree.nodes().size());

  TempDir dir;
  const std::string path = dir.path() + "/p.json";
  std::ofstream(path) << out.str();
  Profile back = read_json_profile(path);
  REQUIRE(back.tree.nodes().size() == p.tree.nodes().size());
  REQUIRE(back.tree.frames().size() == p.tree.frames().size());
  CHECK(back.tree.total() == 100);
  CHECK(back.header.command == p.header.command);
  CHECK(back.weight_unit == "nanoseconds");
  // Writing the read profile again gives the same document, but the source.
  std::ostringstream again;
  back.source = p.source;
  write_json_profile(back, again);
  CHECK(again.str() == out.str());
}
