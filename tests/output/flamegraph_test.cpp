// The page as text: template filled, title escaped, data well-formed and
// faithful to the tree. What the page does with it is in
// flamegraph_browser_test.cpp.
#include "output/flamegraph.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "output/flamegraph_assets.h"
#include "support/flamegraph_page.h"
#include "support/sample_trees.h"

using nlohmann::json;
using swprof::CallTree;
using swprof::CctFrame;
using swprof::FlamegraphOptions;
using namespace swprof::testing;

namespace {

// UTF-16 code units of valid UTF-8, as JavaScript counts them.
size_t js_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += ((c & 0xC0) != 0x80) + (c >= 0xF0);
  return n;
}

// frames.name with the front coding undone (as the page does it).
std::vector<std::string> frame_names(const json& data) {
  std::vector<std::string> names;
  const auto& suffix = data["frames"]["name"];
  const auto& prefix = data["frames"]["prefix"];
  REQUIRE(suffix.size() == prefix.size());
  for (size_t i = 0; i < suffix.size(); ++i) {
    std::string name;
    if (i > 0) {
      // prefix counts UTF-16 units: take whole characters from the previous name.
      const std::string& previous = names.back();
      size_t bytes = 0;
      while (bytes < previous.size() && js_length(previous.substr(0, bytes)) < prefix[i].get<size_t>()) {
        ++bytes;
        while (bytes < previous.size() && (static_cast<unsigned char>(previous[bytes]) & 0xC0) == 0x80) ++bytes;
      }
      REQUIRE(js_length(previous.substr(0, bytes)) == prefix[i].get<size_t>());
      name = previous.substr(0, bytes);
    }
    names.push_back(name + suffix[i].get<std::string>());
  }
  return names;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("flamegraph page: embedded assets cannot end their elements early", "[writer]") {
  const std::string script = lower(std::string(swprof::flamegraph_assets::kScript));
  CHECK(script.find("</script") == std::string::npos);
  CHECK(script.find("<script") == std::string::npos);
  CHECK(script.find("<!--") == std::string::npos);
  CHECK(lower(std::string(swprof::flamegraph_assets::kStyle)).find("</style") == std::string::npos);
  CHECK(swprof::flamegraph_assets::kPageHtml.find("{{DATA}}") != std::string::npos);
}

TEST_CASE("flamegraph page: self-contained, template filled, title escaped", "[writer]") {
  FlamegraphOptions options;
  options.title = "<b>CPU</b> & \"friends\"";
  options.subtitle = "swprof record ./a.out <args>";
  const std::string page = page_of(small_tree(), options);
  for (const char* placeholder : {"{{TITLE}}", "{{SUBTITLE}}", "{{STYLE}}", "{{SCRIPT}}", "{{DATA}}"})
    CHECK(page.find(placeholder) == std::string::npos);
  CHECK(page.find("<title>&lt;b&gt;CPU&lt;/b&gt; &amp; &quot;friends&quot;</title>") != std::string::npos);
  CHECK(page.find("<p id=\"subtitle\">swprof record ./a.out &lt;args&gt;</p>") != std::string::npos);
  CHECK(page.find("<b>CPU") == std::string::npos);
  // No network: nothing is loaded from elsewhere.
  CHECK(page.find("src=\"http") == std::string::npos);
  CHECK(page.find("href=\"http") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);
  // Exactly the page's own two scripts; names from the profile add none.
  CHECK(count_of(lower(page), "<script") == 2);
  CHECK(count_of(lower(page), "</script") == 2);
  CHECK(page.find("<img") == std::string::npos);
}

TEST_CASE("flamegraph page: data holds the tree in pre-order", "[writer]") {
  const CallTree tree = small_tree();
  const std::string text = data_text(page_of(tree));
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  const json data = json::parse(text);
  CHECK(data["format"] == "swprof-flamegraph");
  CHECK(data["version"] == 1);
  CHECK(data["icicle"] == false);
  const std::vector<std::string> names = frame_names(data);
  const auto& frame = data["nodes"]["frame"];
  const auto& depth = data["nodes"]["depth"];
  const auto& total = data["nodes"]["total"];
  REQUIRE(frame.size() == tree.nodes().size());
  REQUIRE(depth.size() == frame.size());
  CHECK(names[0] == "all");
  CHECK(frame[0] == 0);
  CHECK(depth[0] == 0);
  CHECK(total[0] == 200);
  CHECK(names.size() == tree.frames().size() + 1);
  // The markup names come back as the same strings.
  CHECK(std::find(names.begin(), names.end(), kImgName) != names.end());
  CHECK(std::find(names.begin(), names.end(), kScriptName) != names.end());
  CHECK(std::is_sorted(names.begin() + 1, names.end()));
  // Pre-order: each node's total is its self plus the following deeper run.
  std::vector<uint64_t> child_sum(frame.size(), 0);
  std::vector<size_t> path;
  for (size_t i = 0; i < frame.size(); ++i) {
    const size_t d = depth[i];
    REQUIRE(d <= path.size());
    path.resize(d);
    if (d > 0) child_sum[path.back()] += total[i].get<uint64_t>();
    path.push_back(i);
  }
  for (size_t i = 0; i < frame.size(); ++i) CHECK(child_sum[i] <= total[i].get<uint64_t>());
  // Siblings sorted by name: main's children in order.
  CHECK(names[frame[1].get<size_t>()] == "main");
  std::vector<std::string> main_children;
  for (size_t i = 2; i < frame.size() && depth[i] >= 2; ++i)
    if (depth[i] == 2) main_children.push_back(names[frame[i].get<size_t>()]);
  CHECK(main_children == std::vector<std::string>{kScriptName, kImgName, "compute", "guessed_caller", "inlined_step",
                                                  "parse_input"});
  // Frame attributes.
  const auto& modules = data["modules"];
  const auto& files = data["files"];
  const size_t compute = std::find(names.begin(), names.end(), "compute") - names.begin();
  CHECK(modules[data["frames"]["module"][compute].get<size_t>()] == "prog");
  CHECK(files[data["frames"]["file"][compute].get<size_t>()] == "src/compute.c");
  CHECK(data["frames"]["line"][compute] == 7);
  const size_t syscall = std::find(names.begin(), names.end(), "do_syscall_64") - names.begin();
  CHECK(data["frames"]["flags"][syscall] == swprof::kCctKernel);
  CHECK_FALSE(data["nodes"].contains("base"));
}

TEST_CASE("flamegraph page: icicle and unit options reach the page", "[writer]") {
  FlamegraphOptions options;
  options.icicle = true;
  options.unit = "<events>";
  const json data = json::parse(data_text(page_of(small_tree(), options)));
  CHECK(data["icicle"] == true);
  CHECK(data["unit"] == "<events>");
}

TEST_CASE("flamegraph page: min_fraction leaves out small nodes", "[writer]") {
  FlamegraphOptions options;
  options.min_fraction = 0.1;  // 20 of 200 samples
  const json data = json::parse(data_text(page_of(small_tree(), options)));
  for (const auto& t : data["nodes"]["total"]) CHECK(t.get<uint64_t>() >= 20);
  CHECK(data["nodes"]["total"].size() < small_tree().nodes().size());
}

TEST_CASE("flamegraph page: invalid UTF-8 in a name still gives valid data", "[writer]") {
  CallTree tree;
  add_stack(tree, {{"bad\xFF\xFEname", "m\xC0", "", 0, 0}}, 3);
  const json data = json::parse(data_text(page_of(tree)));
  CHECK(frame_names(data)[1] == "bad\xEF\xBF\xBD\xEF\xBF\xBDname");
}

TEST_CASE("flamegraph page: names are front-coded on character boundaries", "[writer]") {
  // Shared prefixes that end inside a multi-byte character, and characters
  // outside the BMP (two UTF-16 units each).
  const std::vector<std::string> functions = {
      "ns::caf\xC3\xA9_a", "ns::caf\xC3\xA8_b", "ns::\xF0\x9F\x94\xA5::x", "ns::\xF0\x9F\x94\xA5::y",
      "ns::\xF0\x9F\x94\xA6", "ns::caf", "other"};
  CallTree tree;
  for (const auto& f : functions) add_stack(tree, {{"main", "", "", 0, 0}, {f, "", "", 0, 0}}, 1);
  const json data = json::parse(data_text(page_of(tree)));
  std::vector<std::string> names = frame_names(data);
  std::vector<std::string> expected = functions;
  expected.push_back("main");
  std::sort(expected.begin(), expected.end());
  expected.insert(expected.begin(), "all");
  CHECK(names == expected);
  // "ns::\xF0\x9F\x94\xA5::y" after "ns::\xF0\x9F\x94\xA5::x": 4 + 2 + 2 units shared.
  const size_t y = std::find(names.begin(), names.end(), "ns::\xF0\x9F\x94\xA5::y") - names.begin();
  CHECK(data["frames"]["prefix"][y] == 8);
  CHECK(data["frames"]["name"][y] == "y");
}

TEST_CASE("flamegraph page: an empty profile is a valid page", "[writer]") {
  const json data = json::parse(data_text(page_of(CallTree())));
  CHECK(data["nodes"]["total"] == json::array({0}));
}

TEST_CASE("differential options must match the tree", "[writer][diff]") {
  FlamegraphOptions options;
  options.differential = true;
  options.base_totals = {1, 2};
  std::ostringstream out;
  CHECK_THROWS_AS(swprof::write_flamegraph(small_tree(), options, out), swprof::Error);
}

TEST_CASE("flamegraph page: off-CPU pages are wide by weight and carry each node's off-CPU part", "[writer]") {
  CallTree tree;
  const CctFrame main_f{"main", "prog", "", 0, 0};
  const CctFrame wait{"wait", "prog", "", 0, 0};
  const CctFrame work{"work", "prog", "", 0, 0};
  std::vector<uint32_t> waiting{tree.intern(main_f), tree.intern(wait)}, working{tree.intern(main_f), tree.intern(work)};
  tree.add(waiting, 1, 9000, 9000);
  tree.add(working, 3, 3000);
  tree.sort_children();
  FlamegraphOptions options;
  options.off_cpu = true;
  const json data = json::parse(data_text(page_of(tree, options)));
  // Pre-order: all, main, wait, work (children sorted by name).
  CHECK(data["nodes"]["total"] == json::array({12000, 12000, 9000, 3000}));
  CHECK(data["nodes"]["off"] == json::array({9000, 9000, 9000, 0}));
  const json plain = json::parse(data_text(page_of(tree)));
  CHECK(plain["nodes"]["total"] == json::array({4, 4, 1, 3}));
  CHECK_FALSE(plain["nodes"].contains("off"));
}

namespace {

// The index of a frame of module "prog" in the page's frame table.
size_t frame_index(const std::vector<std::string>& names, const json& data, const std::string& name, int flags) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name && data["frames"]["flags"][i] == flags && data["modules"][data["frames"]["module"][i].get<size_t>()] == "prog")
      return i;
  FAIL("no frame " << name);
  return 0;
}

CctFrame named(const std::string& function) { return CctFrame{function, "prog", "", 0, 0}; }

// Two threads taking turns: 4242 runs fa twice then fb, 4243 (a name that is
// markup) runs wait once; main is on every stack.
swprof::Profile two_thread_profile() {
  swprof::Profile p;
  p.header.start_monotonic_ns = 1'000'000'000;
  p.weight_unit = "nanoseconds";
  p.threads[4242] = swprof::ProfileThread{4242, "alternating", 3};
  p.threads[4243] = swprof::ProfileThread{4242, kImgName, 1};
  const uint64_t ms = 1'000'000, t0 = p.header.start_monotonic_ns;
  add_timed_stack(p, {named("main"), named("fa")}, 4242, t0 + 2 * ms, ms);
  add_timed_stack(p, {named("main"), named("fa")}, 4242, t0 + 3 * ms, ms);
  add_timed_stack(p, {named("main"), named("wait")}, 4243, t0 + 3 * ms, 4 * ms);
  add_timed_stack(p, {named("main"), named("fb")}, 4242, t0 + 4 * ms, ms);
  p.tree.sort_children();
  swprof::order_timeline(p.timeline);
  return p;
}

std::string page_of_profile(const swprof::Profile& p, const FlamegraphOptions& options = {}) {
  std::ostringstream out;
  swprof::write_flamegraph(p, options, out);
  return out.str();
}

}  // namespace

TEST_CASE("flamegraph page: a function's inlined copies are one function with it, other marks not", "[writer]") {
  CallTree tree;
  add_stack(tree, {{"main", "prog", "", 0, 0}, {"step", "prog", "", 0, 0}}, 2);
  add_stack(tree, {{"main", "prog", "", 0, 0}, {"step", "prog", "", 0, swprof::kCctInline}}, 3);
  add_stack(tree, {{"main", "prog", "", 0, 0}, {"step", "prog", "", 0, swprof::kCctGuess}}, 1);
  add_stack(tree, {{"main", "prog", "", 0, 0}, {"step", "lib", "", 0, swprof::kCctInline}}, 1);
  add_stack(tree, {{"worker [7]", "[thread]", "", 0, swprof::kCctThread}, {"main", "prog", "", 0, 0}}, 1);
  const json data = json::parse(data_text(page_of(tree)));
  const std::vector<std::string> names = frame_names(data);
  const size_t inlined = frame_index(names, data, "step", swprof::kCctInline);
  REQUIRE(frame_index(names, data, "step", 0) == inlined - 1);
  // Of the frames, only the inlined step of prog (the same module) joins the frame before it.
  CHECK(data["frames"]["sameFunction"] == json::array({inlined}));
  CHECK(data["reversed"] == false);
}

TEST_CASE("flamegraph page: a profile's timeline is each thread's blocks, a lane per thread", "[writer][time_order]") {
  const swprof::Profile p = two_thread_profile();
  const std::string page = page_of_profile(p);
  CHECK(page.find("<img") == std::string::npos);  // the thread's name stays inside the data, escaped
  const json data = json::parse(data_text(page));
  const json& t = data["timeline"];
  CHECK(t["threads"]["name"] == json::array({"alternating [4242]", kImgName + " [4243]"}));
  CHECK(t["threads"]["tid"] == json::array({4242, 4243}));
  CHECK(t["threads"]["blocks"] == json::array({2, 1}));
  const std::vector<std::string> names = frame_names(data);
  std::vector<std::string> leaves;
  for (const auto& node : t["blocks"]["node"]) leaves.push_back(names[data["nodes"]["frame"][node.get<size_t>()].get<size_t>()]);
  CHECK(leaves == std::vector<std::string>{"fa", "fb", "wait"});
  // fa 2-4 ms, fb 4-5 ms; wait 3-7 ms: gaps from the lane's last block (or the start).
  CHECK(t["blocks"]["gap"] == json::array({2000, 0, 3000}));
  CHECK(t["blocks"]["length"] == json::array({2000, 1000, 4000}));
  CHECK(t["blocks"]["samples"] == json::array({2, 1, 1}));
  CHECK(t["end"] == 7000);
  CHECK_FALSE(t.contains("cut"));
  // The tree alone (a JSON profile, folded stacks) has none.
  CHECK_FALSE(json::parse(data_text(page_of(p.tree))).contains("timeline"));
}

TEST_CASE("flamegraph page: the timeline's leaves left out by min_fraction are their ancestors on the page, the bound noted",
          "[writer][time_order]") {
  const swprof::Profile p = two_thread_profile();
  FlamegraphOptions options;
  options.min_fraction = 0.3;  // fb (1 of 4 samples) and wait are left out
  options.max_time_blocks = 2;
  const json data = json::parse(data_text(page_of_profile(p, options)));
  const std::vector<std::string> names = frame_names(data);
  const json& t = data["timeline"];
  std::vector<std::string> leaves;
  for (const auto& node : t["blocks"]["node"]) leaves.push_back(names[data["nodes"]["frame"][node.get<size_t>()].get<size_t>()]);
  // 4242: fa from 2 ms, then main (for fb) from 4 ms; 4243: main (for
  // wait) from 3 ms. Two blocks start before 4 ms.
  CHECK(leaves == std::vector<std::string>{"fa", "main"});
  CHECK(t["threads"]["blocks"] == json::array({1, 1}));
  CHECK(t["cut"] == json{{"at", 4000}, {"blocks", 3}});
}

TEST_CASE("flamegraph page: the source lines of functions on the page, their files in the file table", "[writer]") {
  const CallTree tree = small_tree();
  uint32_t compute = 0, unused = 0;
  for (uint32_t f = 0; f < tree.frames().size(); ++f) {
    if (tree.frame(f).function == "compute") compute = f;
    if (tree.frame(f).function == "Interpreter::run") unused = f;
  }
  FlamegraphOptions options;
  options.min_fraction = 0.1;  // Interpreter::run (5 of 200) is left out
  options.source_lines = {{compute, "src/<compute>.c", 8, 30}, {compute, "src/compute.c", 9, 10}, {unused, "jit.c", 1, 5}};
  const std::string page = page_of(tree, options);
  CHECK(page.find("src/<compute>") == std::string::npos);
  const json data = json::parse(data_text(page));
  const json& lines = data["sourceLines"];
  const std::vector<std::string> names = frame_names(data);
  REQUIRE(lines["frame"].size() == 2);
  CHECK(names[lines["frame"][0].get<size_t>()] == "compute");
  CHECK(data["files"][lines["file"][0].get<size_t>()] == "src/<compute>.c");
  CHECK(data["files"][lines["file"][1].get<size_t>()] == "src/compute.c");
  CHECK(lines["line"] == json::array({8, 9}));
  CHECK(lines["samples"] == json::array({30, 10}));
  CHECK_FALSE(json::parse(data_text(page_of(tree))).contains("sourceLines"));
}

TEST_CASE("flamegraph page: a reversed tree says so", "[writer]") {
  FlamegraphOptions options;
  options.reversed = true;
  CHECK(json::parse(data_text(page_of(small_tree(), options)))["reversed"] == true);
}
