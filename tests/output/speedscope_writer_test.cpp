#include "output/speedscope_writer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("speedscope: a sampled profile per thread root, weights match samples") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_speedscope(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["$schema"] == "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = doc["shared"]["frames"];
  REQUIRE(doc["profiles"].size() == 1);
  const auto& prof = doc["profiles"][0];
  CHECK(prof["type"] == "sampled");
  CHECK(prof["unit"] == "nanoseconds");
  REQUIRE(prof["samples"].size() == prof["weights"].size());
  uint64_t sum = 0;
  for (const auto& w : prof["weights"]) sum += w.get<uint64_t>();
  CHECK(sum == 100 * 1000);
  CHECK(prof["endValue"] == sum);
  for (const auto& s : prof["samples"])
    for (const auto& f : s) CHECK(f.get<size_t>() < frames.size());

  // With thread roots: one profile per thread, named after it.
  Profile threads;
  threads.weight_unit = "events";
  add_stack(threads.tree, {fn("t1 [1]", "[thread]", kCctThread), fn("main")}, 3);
  add_stack(threads.tree, {fn("t2 [2]", "[thread]", kCctThread), fn("main"), fn("x")}, 2);
  threads.tree.sort_children();
  std::ostringstream out2;
  write_speedscope(threads, out2);
  const auto doc2 = nlohmann::json::parse(out2.str());
  REQUIRE(doc2["profiles"].size() == 2);
  CHECK(doc2["profiles"][0]["name"] == "t1 [1]");
  CHECK(doc2["profiles"][0]["unit"] == "none");
  CHECK(doc2["profiles"][1]["endValue"] == 2);
  CHECK(doc2["profiles"][1]["samples"][0].size() == 2);  // main, x: the thread frame is the profile
}
