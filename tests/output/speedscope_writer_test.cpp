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

namespace {

// A recording's profile with a timeline: threads "t1 [1]" and "t2 [2]"; t1
// runs fa, fa, fb, fa, fb, fb (1 ms each), t2 runs x once in between.
Profile timed_profile() {
  Profile p;
  p.header.command = {"./alternate"};
  p.header.start_monotonic_ns = 1'000'000'000;
  p.weight_unit = "nanoseconds";
  const CctFrame t1 = fn("t1 [1]", "[thread]", kCctThread), t2 = fn("t2 [2]", "[thread]", kCctThread);
  const uint64_t ms = 1'000'000, start = p.header.start_monotonic_ns;
  const char* order[] = {"fa", "fa", "fb", "fa", "fb", "fb"};
  for (int i = 0; i < 6; ++i) {
    add_timed_sample(p, {t1, fn("main"), fn(order[i])}, 1, start + (5 + i) * ms, ms);
    if (i == 2) add_timed_sample(p, {t2, fn("worker"), fn("x")}, 2, start + 7 * ms, 3 * ms);
  }
  p.samples_kept = p.timeline.size();
  p.tree.sort_children();
  return p;
}

std::vector<std::string> sample_leaves(const nlohmann::json& doc, const nlohmann::json& profile) {
  std::vector<std::string> out;
  for (const auto& s : profile["samples"]) out.push_back(doc["shared"]["frames"][s.back().get<size_t>()]["name"]);
  return out;
}

}  // namespace

TEST_CASE("speedscope: with a timeline, each thread's samples in time order, runs of one stack as one") {
  const Profile p = timed_profile();
  std::ostringstream out;
  write_speedscope(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  REQUIRE(doc["profiles"].size() == 2);
  const auto& t1 = doc["profiles"][0];
  CHECK(t1["name"] == "t1 [1]");
  CHECK(t1["type"] == "sampled");
  CHECK(t1["unit"] == "nanoseconds");
  CHECK(sample_leaves(doc, t1) == std::vector<std::string>{"fa", "fb", "fa", "fb"});
  CHECK(t1["weights"] == nlohmann::json::array({2'000'000, 1'000'000, 1'000'000, 2'000'000}));
  CHECK(t1["startValue"] == 5'000'000);  // the first sample, after the recording started
  CHECK(t1["endValue"] == 11'000'000);
  for (const auto& s : t1["samples"]) {
    REQUIRE(s.size() == 2);  // main, leaf: the thread frame is the profile
    CHECK(doc["shared"]["frames"][s[0].get<size_t>()]["name"] == "main");
  }
  const auto& t2 = doc["profiles"][1];
  CHECK(t2["name"] == "t2 [2]");
  CHECK(sample_leaves(doc, t2) == std::vector<std::string>{"x"});
  CHECK(t2["startValue"] == 7'000'000);
  CHECK(t2["endValue"] == 10'000'000);
  CHECK(doc["name"] == "swprof: ./alternate");
  CHECK(doc["$schema"] == "https://www.speedscope.app/file-format-schema.json");
  CHECK(doc["activeProfileIndex"] == 0);
  CHECK(doc["exporter"].get<std::string>().rfind("swprof ", 0) == 0);
}

TEST_CASE("speedscope: a timeline of events (no time unit) weighs each sample 1 from 0") {
  Profile p = timed_profile();
  p.weight_unit = "events";
  std::ostringstream out;
  write_speedscope(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  const auto& t1 = doc["profiles"][0];
  CHECK(t1["unit"] == "none");
  CHECK(t1["weights"] == nlohmann::json::array({2, 1, 1, 2}));
  CHECK(t1["startValue"] == 0);
  CHECK(t1["endValue"] == 6);
}

TEST_CASE("speedscope: a timeline without thread roots is one profile of every sample in time order") {
  Profile p;
  p.header.command = {"./alternate"};
  p.weight_unit = "nanoseconds";
  for (int i = 0; i < 4; ++i) add_timed_sample(p, {fn("main"), fn(i % 2 ? "fb" : "fa")}, 1 + i % 2, 100 + i, 10);
  p.tree.sort_children();
  std::ostringstream out;
  write_speedscope(p, out);
  const auto doc = nlohmann::json::parse(out.str());
  REQUIRE(doc["profiles"].size() == 1);
  CHECK(doc["profiles"][0]["name"] == "./alternate");
  CHECK(sample_leaves(doc, doc["profiles"][0]) == std::vector<std::string>{"fa", "fb", "fa", "fb"});
  CHECK(doc["profiles"][0]["endValue"] == doc["profiles"][0]["startValue"].get<uint64_t>() + 40);
}
