// ProfileMerger (swprof merge) and context-id decoding (report --context-id).

#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include "common/error.h"
#include "output/context_stack.h"
#include "output/report.h"
#include "profile/merge.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

Profile run(const std::string& source, const std::vector<StackSpec>& stacks, uint32_t tid, double seconds) {
  Profile p;
  p.source = source;
  p.header.command = {"./bench", "--size", "10"};
  p.header.event = "cpu-clock";
  p.weight_unit = "nanoseconds";
  for (const auto& s : stacks) add_stack(p.tree, s.frames, s.count);
  p.tree.sort_children();
  p.samples_read = p.tree.total() + 1;
  p.samples_kept = p.tree.total();
  p.lost = 2;
  p.first_time = 5'000'000'000;
  p.last_time = p.first_time + static_cast<uint64_t>(seconds * 1e9);
  p.unwind.samples = p.samples_read;
  p.unwind.complete = p.tree.total();
  p.unwind.frames = 10;
  p.unwind.frames_by_stepper[1] = 7;
  p.threads[tid] = ProfileThread{tid, "bench", p.tree.total()};
  p.warnings = {"binary 'libx.so' is missing"};
  return p;
}

// Every node by context id: (self, total, self_weight, total_weight).
std::map<uint64_t, std::array<uint64_t, 4>> by_id(const CallTree& t) {
  std::map<uint64_t, std::array<uint64_t, 4>> out;
  for (const auto& n : t.nodes()) {
    auto& c = out[n.context_id];
    c[0] += n.self;
    c[1] += n.total;
    c[2] += n.self_weight;
    c[3] += n.total_weight;
  }
  return out;
}

}  // namespace

TEST_CASE("merge: every context's counts and weights are the exact sums of the inputs'") {
  const Profile a = run("a.json", {{{fn("main"), fn("x"), fn("y")}, 7}, {{fn("main"), fn("z")}, 3}}, 10, 1.5);
  const Profile b = run("b.json", {{{fn("main"), fn("x"), fn("y")}, 11}, {{fn("main"), fn("x")}, 2}}, 20, 2.0);
  const Profile c = run("c.json", {{{fn("main"), fn("w", "lib.so", kCctInline)}, 5}}, 10, 0.25);
  ProfileMerger m;
  m.add(a);
  m.add(b);
  m.add(c);
  CHECK(m.inputs() == 3);
  CHECK(m.warnings().empty());
  const Profile merged = m.take();

  auto expected = by_id(a.tree);
  for (const Profile* p : {&b, &c})
    for (const auto& [id, counts] : by_id(p->tree))
      for (size_t k = 0; k < 4; ++k) expected[id][k] += counts[k];
  CHECK(by_id(merged.tree) == expected);
  CHECK(merged.tree.total() == 28);
  CHECK(merged.samples_kept == 28);
  CHECK(merged.samples_read == 31);
  CHECK(merged.lost == 6);
  CHECK(merged.duration_seconds() == Approx(3.75));
  CHECK(merged.unwind.samples == 31);
  CHECK(merged.unwind.frames_by_stepper[1] == 21);
  CHECK(merged.threads.at(10).samples == 15);  // a tid seen in two runs: summed
  CHECK(merged.threads.at(20).samples == 13);
  CHECK(merged.warnings == std::vector<std::string>{"binary 'libx.so' is missing"});
  CHECK(merged.source == "a.json + b.json + c.json");
  CHECK(merged.header.command == a.header.command);

  // The merged profile survives the JSON round trip with the same counts.
  std::ostringstream json;
  write_json_profile(merged, json);
  CHECK(json.str().find("\"samples\":28") != std::string::npos);
}

TEST_CASE("merge: different commands or events warn, leaf-first with root-first is an error") {
  Profile a = run("a.json", {{{fn("main")}, 1}}, 1, 1);
  Profile b = run("b.json", {{{fn("main")}, 1}}, 2, 1);
  b.header.command = {"./other"};
  b.header.event = "cycles";
  b.weight_unit = "events";
  ProfileMerger m;
  m.add(a);
  m.add(b);
  REQUIRE(m.warnings().size() == 2);
  CHECK_THAT(m.warnings()[0], Catch::Contains("'b.json' profiles './other', 'a.json' profiles './bench --size 10'"));
  CHECK_THAT(m.warnings()[1], Catch::Contains("sampled cycles"));

  Profile r = run("r.json", {{{fn("main")}, 1}}, 3, 1);
  r.reversed = true;
  CHECK_THROWS_WITH(m.add(r), Catch::Contains("leaf-first"));
  ProfileMerger none;
  CHECK_THROWS_AS(none.take(), Error);
}

TEST_CASE("merge: wall profiles merge with their off-CPU weights, different weight kinds are an error") {
  ProfileMerger m;
  m.add(wall_profile());
  m.add(wall_profile());
  const Profile merged = m.take();
  CHECK(merged.weight_kind == WeightKind::kWall);
  CHECK(merged.tree.total_weight() == 48'000'000);
  CHECK(merged.tree.total_off_weight() == 40'000'000);

  ProfileMerger mixed;
  mixed.add(wall_profile());
  Profile cpu = sample_profile();
  cpu.source = "cpu.json";
  CHECK_THROWS_WITH(mixed.add(cpu), Catch::Contains("'cpu.json' weighs cpu time") && Catch::Contains("cannot be merged"));
}

TEST_CASE("context ids: parsed as hex, decoded to their stack with a profile") {
  CHECK(parse_context_id("00000000000000ff") == 255);
  CHECK(parse_context_id("0xFF") == 255);
  CHECK(parse_context_id("ffffffffffffffff") == UINT64_MAX);
  for (const char* bad : {"", "0x", "xyz", "12345678901234567", "-1", "12 "}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_context_id(bad), Error);
  }

  Profile p = sample_profile();  // main -> a -> b (60), main -> c -> b (25), ...
  uint64_t id = 0;
  for (const char* f : {"main", "c", "b"}) id = child_context_id(id, context_hash("app", f));
  std::ostringstream out;
  write_context_stack(p, id, out);
  uint64_t main_id = child_context_id(0, context_hash("app", "main"));
  uint64_t c_id = child_context_id(main_id, context_hash("app", "c"));
  CHECK(out.str() == "context " + format_context_id(id) + " in fixture.swprof: 25 samples (25.00%), 25 self\n" +
                         "  " + format_context_id(main_id) + "  main  [app]\n" +  //
                         "  " + format_context_id(c_id) + "  c  [app]\n" +        //
                         "  " + format_context_id(id) + "  b  [app]  /src/app.c:12\n");
  // The same function on another path is another context.
  uint64_t other = 0;
  for (const char* f : {"main", "a", "b"}) other = child_context_id(other, context_hash("app", f));
  CHECK(other != id);
  CHECK_THROWS_WITH(write_context_stack(p, 12345, out), Catch::Contains("context id 0000000000003039 is not in"));
}
