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

TEST_CASE("json: off-CPU and wall profiles carry weight_kind and per-node off-CPU weights, and read back") {
  const Profile p = wall_profile();
  std::ostringstream out;
  write_json_profile(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["metadata"]["weight_kind"] == "wall");
  CHECK(doc["metadata"]["weight_unit"] == "nanoseconds");
  CHECK(doc["nodes"][0]["total_weight"] == 24'000'000);
  CHECK(doc["nodes"][0]["total_off_cpu_weight"] == 20'000'000);
  CHECK(doc["nodes"][0]["self_off_cpu_weight"] == 0);

  TempDir dir;
  const std::string path = dir.file("wall.json");
  std::ofstream(path) << out.str();
  Profile back = read_json_profile(path);
  CHECK(back.weight_kind == WeightKind::kWall);
  CHECK(back.tree.total_off_weight() == 20'000'000);
  std::ostringstream again;
  write_json_profile(back, again);
  CHECK(again.str() == out.str());
}

TEST_CASE("json: cpu profiles leave weight_kind and off-CPU weights out, readers take their absence for cpu") {
  std::ostringstream out;
  write_json_profile(sample_profile(), out);
  CHECK(out.str().find("weight_kind") == std::string::npos);
  CHECK(out.str().find("off_cpu") == std::string::npos);
  std::istringstream in(out.str());
  const Profile back = read_json_profile(in, "cpu.json");
  CHECK(back.weight_kind == WeightKind::kCpu);
  CHECK(back.tree.total_off_weight() == 0);
}

TEST_CASE("json: an unknown weight_kind or more off-CPU weight than weight is refused") {
  std::ostringstream out;
  write_json_profile(wall_profile(), out);
  std::string text = out.str();
  std::string bad_kind = text;
  bad_kind.replace(bad_kind.find("\"wall\""), 6, "\"idle\"");
  std::istringstream in(bad_kind);
  CHECK_THROWS_WITH(read_json_profile(in, "k.json"), Catch::Contains("unknown weight 'idle'"));
  // The leaf main;work has 4 ms of weight, none off-CPU: claim 5 ms off-CPU.
  auto doc = nlohmann::json::parse(text);
  for (auto& n : doc["nodes"])
    if (n["self_weight"] == 4'000'000) n["self_off_cpu_weight"] = 5'000'000;
  std::istringstream in2(doc.dump());
  CHECK_THROWS_WITH(read_json_profile(in2, "w.json"), Catch::Contains("more off-CPU weight than weight"));
}
