#include "output/pprof_writer.h"

#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include "support/pprof_text.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;
namespace pb = perftools::profiles;

namespace {

pb::Profile written(const Profile& profile) {
  std::ostringstream out;
  write_pprof(profile, out);
  const std::string bytes = out.str();
  REQUIRE(bytes.size() > 2);
  CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);  // gzip's magic
  CHECK(static_cast<unsigned char>(bytes[1]) == 0x8b);
  return read_pprof(bytes);
}

std::vector<std::string> sample_types(const pb::Profile& p) {
  std::vector<std::string> types;
  for (const auto& t : p.sample_type()) types.push_back(pprof_string(p, t.type()) + "/" + pprof_string(p, t.unit()));
  return types;
}

// Samples and weight per stack (leaf first, joined by ';').
std::map<std::string, std::pair<int64_t, int64_t>> stacks(const pb::Profile& p) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const auto& s : p.sample()) {
    std::string key;
    for (const auto& name : pprof_stack(p, s)) key += (key.empty() ? "" : ";") + name;
    REQUIRE(s.value_size() == p.sample_type_size());
    out[key].first += s.value(0);
    out[key].second += s.value(1);
  }
  return out;
}

const pb::Mapping* mapping_named(const pb::Profile& p, const std::string& filename) {
  for (const auto& m : p.mapping())
    if (pprof_string(p, m.filename()) == filename) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE("pprof: samples and cpu nanoseconds per distinct stack, leaf first") {
  const pb::Profile p = written(sample_profile());
  CHECK(pprof_string(p, 0).empty());
  CHECK(sample_types(p) == std::vector<std::string>{"samples/count", "cpu/nanoseconds"});
  CHECK(pprof_string(p, p.default_sample_type()) == "cpu");
  CHECK(pprof_string(p, p.period_type().type()) == "cpu");
  CHECK(p.period() == 1001001);  // 999 Hz
  CHECK(p.duration_nanos() == 100'000'000);
  const auto s = stacks(p);
  CHECK(s.size() == 4);
  CHECK(s.at("b;a;main") == std::make_pair(int64_t{60}, int64_t{60'000}));
  CHECK(s.at("a;main") == std::make_pair(int64_t{10}, int64_t{10'000}));
  CHECK(s.at("b;c;main") == std::make_pair(int64_t{25}, int64_t{25'000}));
  CHECK(s.at("rec;rec;rec;main") == std::make_pair(int64_t{5}, int64_t{5'000}));
}

TEST_CASE("pprof: the run's metadata as comments") {
  const pb::Profile p = written(sample_profile());
  std::vector<std::string> comments;
  for (int64_t c : p.comment()) comments.push_back(pprof_string(p, c));
  CHECK(comments == std::vector<std::string>{"command: ./app --fast", "host: host", "event: cpu-clock, 999 Hz",
                                             "weight: cpu", std::string("swprof: ") + SWPROF_VERSION});
}

TEST_CASE("pprof: the sample type follows the weight: off-CPU, wall, event counts") {
  CHECK(sample_types(written(wall_profile(WeightKind::kWall))) ==
        std::vector<std::string>{"samples/count", "wall/nanoseconds"});
  const pb::Profile off = written(wall_profile(WeightKind::kOffCpu));
  CHECK(sample_types(off) == std::vector<std::string>{"samples/count", "off-cpu/nanoseconds"});
  CHECK(pprof_string(off, off.default_sample_type()) == "off-cpu");
  CHECK(stacks(off).at("schedule;nap;main") == std::make_pair(int64_t{2}, int64_t{15'000'000}));

  Profile cycles = sample_profile();
  cycles.header.event = "cycles";
  cycles.header.frequency = 0;
  cycles.header.period = 100000;
  cycles.weight_unit = "events";
  const pb::Profile c = written(cycles);
  CHECK(sample_types(c) == std::vector<std::string>{"samples/count", "cycles/count"});
  CHECK(c.period() == 100000);
}

TEST_CASE("pprof: inlined frames are lines of their caller's location, innermost first") {
  Profile p = sample_profile();
  p.tree = CallTree();
  CctFrame outer = fn("outer");
  outer.file = "/src/app.c";
  outer.line = 20;
  CctFrame inner = fn("inner", "app", kCctInline);
  inner.file = "/src/app.h";
  inner.line = 5;
  add_stack(p.tree, {fn("main"), outer, inner, fn("leaf")}, 3);
  add_stack(p.tree, {fn("main"), outer}, 1);
  p.tree.sort_children();
  const pb::Profile out = written(p);
  CHECK(stacks(out) == std::map<std::string, std::pair<int64_t, int64_t>>{{"leaf;inner;outer;main", {3, 3000}},
                                                                           {"outer;main", {1, 1000}}});
  // One location holds inner and outer; outer alone is another.
  std::vector<std::vector<std::pair<std::string, int64_t>>> by_location;
  std::map<uint64_t, std::string> names;
  for (const auto& f : out.function()) names[f.id()] = pprof_string(out, f.name());
  for (const auto& l : out.location()) {
    by_location.emplace_back();
    for (const auto& line : l.line()) by_location.back().emplace_back(names[line.function_id()], line.line());
  }
  using Lines = std::vector<std::pair<std::string, int64_t>>;
  CHECK(std::count(by_location.begin(), by_location.end(), Lines{{"inner", 5}, {"outer", 20}}) == 1);
  CHECK(std::count(by_location.begin(), by_location.end(), Lines{{"outer", 20}}) == 1);
  CHECK(by_location.size() == 4);  // leaf, inner+outer, main, outer
  for (const auto& f : out.function())
    if (pprof_string(out, f.name()) == "inner") CHECK(pprof_string(out, f.filename()) == "/src/app.h");
}

TEST_CASE("pprof: a reversed tree gives the same samples") {
  Profile p = sample_profile();
  Profile reversed = sample_profile();
  reversed.tree = CallTree();
  reversed.reversed = true;
  add_stack(reversed.tree, {fn("b"), fn("a"), fn("main")}, 60);
  add_stack(reversed.tree, {fn("a"), fn("main")}, 10);
  add_stack(reversed.tree, {fn("b"), fn("c"), fn("main")}, 25);
  add_stack(reversed.tree, {fn("rec"), fn("rec"), fn("rec"), fn("main")}, 5);
  reversed.tree.sort_children();
  CHECK(stacks(written(reversed)) == stacks(written(p)));
}

TEST_CASE("pprof: thread roots become thread and thread_id labels, not frames") {
  Profile p = sample_profile();
  p.tree = CallTree();
  p.threads.clear();
  p.threads[42] = ProfileThread{40, "worker [x]", 3};
  p.threads[43] = ProfileThread{40, "", 1};
  add_stack(p.tree, {fn(thread_root_name(ThreadRoots::kThread, "worker [x]", 42), "[thread]", kCctThread), fn("main")}, 3);
  add_stack(p.tree, {fn(thread_root_name(ThreadRoots::kThread, "", 43), "[thread]", kCctThread), fn("main")}, 1);
  p.tree.sort_children();
  const pb::Profile out = written(p);
  REQUIRE(out.sample_size() == 2);
  std::map<int64_t, std::string> thread_by_id;
  for (const auto& s : out.sample()) {
    CHECK(pprof_stack(out, s) == std::vector<std::string>{"main"});
    std::string name;
    int64_t id = -1;
    for (const auto& l : s.label()) {
      if (pprof_string(out, l.key()) == "thread") name = pprof_string(out, l.str());
      if (pprof_string(out, l.key()) == "thread_id") id = l.num();
    }
    thread_by_id[id] = name;
  }
  CHECK(thread_by_id == std::map<int64_t, std::string>{{42, "worker [x]"}, {43, "[unknown]"}});
}

TEST_CASE("pprof: thread roots by name alone give the thread label only") {
  Profile p = sample_profile();
  p.tree = CallTree();
  add_stack(p.tree, {fn("app", "[thread]", kCctThread), fn("main")}, 2);
  p.tree.sort_children();
  const pb::Profile out = written(p);
  REQUIRE(out.sample_size() == 1);
  REQUIRE(out.sample(0).label_size() == 1);
  CHECK(pprof_string(out, out.sample(0).label(0).key()) == "thread");
  CHECK(pprof_string(out, out.sample(0).label(0).str()) == "app");
}

TEST_CASE("pprof: mappings from the recording's files, the kernel's, none for unknown code") {
  Profile p = sample_profile();
  p.tree = CallTree();
  p.mapped_files = {ExecutableMapping{"/opt/app/bin/app", "0123abcd", 0x400000, 0x402000, 0x1000},
                    ExecutableMapping{"/lib/libc.so.6", "", 0x7f0000, 0x7f8000, 0}};
  CctFrame write = fn("write", "libc.so.6");
  write.file = "io.c";
  write.line = 7;
  add_stack(p.tree,
            {fn("main"), write, fn("vfs_write", "[kernel]", kCctKernel), fn("ext4_write", "[ext4]", kCctKernel)}, 2);
  add_stack(p.tree, {fn("main"), fn("[unknown] lib.so+0x10", "lib.so")}, 1);
  add_stack(p.tree, {fn("[unknown]", "[unknown]")}, 1);
  p.tree.sort_children();
  const pb::Profile out = written(p);
  REQUIRE(out.mapping_size() == 5);
  const pb::Mapping& main = out.mapping(0);  // the main program first
  CHECK(main.id() == 1);
  CHECK(pprof_string(out, main.filename()) == "/opt/app/bin/app");
  CHECK(pprof_string(out, main.build_id()) == "0123abcd");
  CHECK(main.memory_start() == 0x400000);
  CHECK(main.memory_limit() == 0x402000);
  CHECK(main.file_offset() == 0x1000);
  CHECK(main.has_functions());
  CHECK_FALSE(main.has_line_numbers());
  const pb::Mapping* libc = mapping_named(out, "/lib/libc.so.6");
  REQUIRE(libc);
  CHECK(libc->build_id() == 0);
  CHECK(libc->has_line_numbers());
  CHECK(libc->has_filenames());
  CHECK(mapping_named(out, "[kernel.kallsyms]"));
  CHECK(mapping_named(out, "[ext4]"));
  CHECK(mapping_named(out, "lib.so"));
  std::map<std::string, uint64_t> mapping_of;
  std::map<uint64_t, std::string> names;
  for (const auto& f : out.function()) names[f.id()] = pprof_string(out, f.name());
  for (const auto& l : out.location()) mapping_of[names[l.line(0).function_id()]] = l.mapping_id();
  CHECK(mapping_of.at("[unknown]") == 0);
  CHECK(mapping_of.at("main") == 1);
  CHECK(mapping_of.at("[unknown] lib.so+0x10") == mapping_named(out, "lib.so")->id());
  CHECK(stacks(out).at("ext4_write;vfs_write;write;main") == std::make_pair(int64_t{2}, int64_t{2000}));
}

TEST_CASE("pprof: guessed frames say so in their function's name") {
  Profile p = sample_profile();
  p.tree = CallTree();
  add_stack(p.tree, {fn("main"), fn("maybe", "app", kCctGuess), fn("leaf")}, 1);
  p.tree.sort_children();
  CHECK(stacks(written(p)).count("leaf;maybe (guessed);main") == 1);
}

TEST_CASE("pprof: a thread renamed by exec keeps its tid under each name, a name like a root is only a name") {
  Profile p = sample_profile();
  p.tree = CallTree();
  p.threads.clear();
  p.threads[42] = ProfileThread{42, "new", 3};
  add_stack(p.tree, {fn("old [42]", "[thread]", kCctThread), fn("main")}, 1);
  add_stack(p.tree, {fn("new [42]", "[thread]", kCctThread), fn("main")}, 2);
  add_stack(p.tree, {fn("named [7]", "[thread]", kCctThread), fn("main")}, 4);  // no thread 7: --thread-names
  p.tree.sort_children();
  const pb::Profile out = written(p);
  std::map<std::string, int64_t> tid_by_name;
  for (const auto& s : out.sample()) {
    std::string name;
    int64_t id = -1;
    for (const auto& l : s.label()) {
      if (pprof_string(out, l.key()) == "thread") name = pprof_string(out, l.str());
      if (pprof_string(out, l.key()) == "thread_id") id = l.num();
    }
    tid_by_name[name] = id;
  }
  CHECK(tid_by_name == std::map<std::string, int64_t>{{"old", 42}, {"new", 42}, {"named [7]", -1}});
}
