// The flame graph page driven in headless Chromium (tests/support/browser.h):
// real mouse and keyboard events on the page, results read back from the DOM.
// Without Chromium these tests fail; scripts/setup.sh installs it.
#include <catch2/catch.hpp>

#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "compare/differential_tree.h"  // the differential page
#include "output/flamegraph.h"
#include "output/folded_reader.h"
#include "support/browser.h"
#include "support/cli_harness.h"
#include "support/sample_trees.h"
#include "support/temp_dir.h"

using nlohmann::json;
using swprof::CallTree;
using swprof::CctFrame;
using swprof::FlamegraphOptions;
using namespace swprof::testing;

namespace {

// Helpers every driver can use. `center` scrolls a node into view (the
// graph scrolls in #viewport, between the header and the footer) and
// returns its middle; `fire` dispatches a mouse event on whatever element is
// at that point, as a real pointer would hit it.
constexpr const char* kDriverHelpers = R"(
function center(node) {
  var r = api.nodeRect(node);
  if (!r) throw new Error('node ' + node + ' is not drawn');
  var viewport = document.getElementById('viewport');
  var box = viewport.getBoundingClientRect();
  if (r.y < box.top || r.y + r.height > box.bottom) {
    viewport.scrollTop += r.y - (box.top + box.bottom) / 2;
    r = api.nodeRect(node);
  }
  return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
}
function fire(type, x, y) {
  var target = document.elementFromPoint(x, y);
  if (!target) throw new Error('nothing at ' + x + ',' + y);
  target.dispatchEvent(new MouseEvent(type, { clientX: x, clientY: y, bubbles: true, cancelable: true, view: window }));
  return target.id || target.tagName;
}
function canvasBox() {
  var b = document.getElementById('flame').getBoundingClientRect();
  return { x: b.left, y: b.top, width: b.width, height: b.height };
}
)";

std::string page_of(const CallTree& tree, const FlamegraphOptions& options = {}) {
  std::ostringstream out;
  swprof::write_flamegraph(tree, options, out);
  return out.str();
}

BrowserRun run_page(const std::string& page, const std::string& driver, const json& input = json::object()) {
  TempDir dir;
  BrowserRun run = run_in_chromium(page, std::string(kDriverHelpers) + driver, input, dir.path());
  INFO("results: " << run.results.dump());
  REQUIRE_FALSE(run.results.contains("exception"));
  return run;
}

void check_clean(const BrowserRun& run) {
  INFO("results: " << run.results.dump());
  CHECK(run.results["errors"] == json::array());
  CHECK(run.results["alerts"] == json::array());
  CHECK(run.results["imgCount"] == 0);
  CHECK(run.results["scriptCount"] == 4);  // data, viewer, and the test's prelude and driver
}

bool contains_icase(const std::string& text, const std::string& part) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

bool has(const json& list, const std::string& value) {
  for (const auto& item : list)
    if (item == value) return true;
  return false;
}

}  // namespace

TEST_CASE("page loads without errors and shows every kind of frame", "[chromium]") {
  const CallTree tree = small_tree();
  FlamegraphOptions options;
  options.title = "CPU <profile> & \"more\"";
  const BrowserRun run = run_page(page_of(tree, options), R"(
    out.state = api.state();
    out.labels = api.labels();
    out.legend = document.getElementById('legend').textContent;
    out.title = document.title;
    out.heading = document.getElementById('title').textContent;
    out.colors = {};
    ['compute', 'helper', 'do_syscall_64', 'Interpreter::run', 'inlined_step', 'guessed_caller'].forEach(function (name) {
      out.colors[name] = api.nodeInfo(api.findNode(name)).color;
    });
    out.root = api.nodeRect(0);
    out.canvas = canvasBox();
    api.zoomTo(api.findNode('guessed_caller'));
    out.zoomedLabels = api.labels();
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["title"] == options.title);
  CHECK(r["heading"] == options.title);
  CHECK(r["state"]["nodes"] == tree.nodes().size());
  CHECK(r["state"]["total"] == tree.total());
  CHECK(r["state"]["zoom"] == 0);
  CHECK(r["state"]["icicle"] == false);
  CHECK(r["state"]["rects"] == tree.nodes().size());  // all wide enough at 1280 px
  // The root spans the canvas and is the bottom row (flame orientation).
  CHECK(r["root"]["width"].get<double>() == Approx(r["canvas"]["width"].get<double>()).margin(1));
  CHECK(r["root"]["y"].get<double>() + 18 == Approx(r["canvas"]["y"].get<double>() + r["canvas"]["height"].get<double>()).margin(1));
  CHECK(has(r["labels"], "all"));
  CHECK(has(r["labels"], "compute"));
  CHECK(has(r["labels"], "gues.."));  // cut to fit
  CHECK(has(r["zoomedLabels"], "guessed_caller ?"));
  for (const char* kind : {"kernel", "JIT-compiled", "inlined", "guessed", "thread", "search match"}) CHECK(contains_icase(r["legend"], kind));
  // Kernel orange, JIT green, ordinary code from the module palette.
  const json& colors = r["colors"];
  CHECK(colors["do_syscall_64"].get<std::string>().rfind("hsl(30,", 0) == 0);
  CHECK(colors["Interpreter::run"].get<std::string>().rfind("hsl(118,", 0) == 0);
  CHECK(colors["compute"] != colors["do_syscall_64"]);
  CHECK(colors["compute"].get<std::string>().rfind("hsl(30,", 0) != 0);
}

TEST_CASE("search reports the matched share without double counting", "[chromium]") {
  const CallTree tree = small_tree();
  const uint64_t compute = matched_samples(tree, [](const std::string& s) { return contains_icase(s, "COMPUTE"); });
  const std::regex re("^(parse|mem)", std::regex::ECMAScript | std::regex::icase);
  const uint64_t regex = matched_samples(tree, [&](const std::string& s) { return std::regex_search(s, re); });
  REQUIRE(compute == 60);  // compute -> helper -> compute counts once
  REQUIRE(regex == 65);
  const BrowserRun run = run_page(page_of(tree), R"(
    var box = document.getElementById('search');
    box.value = 'COMPUTE';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    out.typed = api.state().search;
    out.regex = api.search('^(parse|mem)', { regex: true });
    out.caseSensitive = api.search('COMPUTE', { matchCase: true });
    out.invalid = api.search('(', { regex: true });
    api.search('memcpy');
    api.zoomTo(api.findNode('compute'));
    out.zoomed = api.state().search;
    api.reset();
    document.getElementById('search-clear').click();
    out.cleared = api.state().search;
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["typed"]["matchedSamples"] == compute);
  CHECK(r["typed"]["matchedPercent"].get<double>() == Approx(100.0 * compute / tree.total()));
  CHECK(r["typed"]["label"] == "Matched: 30.00% of samples");
  CHECK(r["regex"]["matchedSamples"] == regex);
  CHECK(r["regex"]["label"] == "Matched: 32.50% of samples");
  CHECK(r["caseSensitive"]["matchedSamples"] == 0);
  CHECK(r["invalid"]["active"] == false);
  CHECK(r["invalid"]["label"] == "Not a valid regular expression");
  // memcpy: 30 under parse_input + 25 under compute; 25 of the 60 in the zoomed compute.
  CHECK(r["zoomed"]["matchedSamples"] == 55);
  CHECK(r["zoomed"]["zoomMatchedSamples"] == 25);
  CHECK(r["zoomed"]["label"] == "Matched: 27.50% of samples (41.67% of the zoomed frame)");
  CHECK(r["cleared"]["active"] == false);
  CHECK(r["cleared"]["label"] == "");
}

TEST_CASE("clicking a frame zooms to it, reset and Escape restore", "[chromium]") {
  const CallTree tree = small_tree();
  const BrowserRun run = run_page(page_of(tree), R"(
    var compute = api.findNode('compute');
    var helper = api.findNode('helper');
    out.canvas = canvasBox();
    out.before = api.nodeRect(compute);
    var c = center(compute);
    out.clickTarget = fire('click', c.x, c.y);
    out.afterClick = api.state();
    out.zoomed = api.nodeRect(compute);
    out.helper = api.nodeRect(helper);
    out.main = api.nodeRect(api.findNode('main'));
    out.sibling = api.nodeRect(api.findNode('parse_input'));
    out.resetEnabled = !document.getElementById('reset-zoom').disabled;
    out.canvasAfter = canvasBox();
    document.getElementById('reset-zoom').click();
    out.afterReset = api.state();
    out.resetDisabled = document.getElementById('reset-zoom').disabled;
    out.restored = api.nodeRect(compute);
    c = center(helper);
    fire('click', c.x, c.y);
    out.secondZoom = api.state().zoomName;
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    out.afterEscape = api.state();
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  const double width = r["canvas"]["width"];
  CHECK(r["clickTarget"] == "flame");
  CHECK(r["before"]["width"].get<double>() == Approx(width * 60 / 200).margin(1));
  CHECK(r["afterClick"]["zoomName"] == "compute");
  CHECK(r["afterClick"]["zoom"] != 0);
  // The zoomed frame and its ancestors now span the whole width.
  CHECK(r["zoomed"]["width"].get<double>() == Approx(width).margin(1));
  CHECK(r["zoomed"]["x"].get<double>() == Approx(r["canvasAfter"]["x"].get<double>()).margin(1));
  CHECK(r["main"]["width"].get<double>() == Approx(width).margin(1));
  CHECK(r["helper"]["width"].get<double>() == Approx(width * 40 / 60).margin(1));
  CHECK(r["sibling"].is_null());  // outside the zoomed frame
  CHECK(r["resetEnabled"] == true);
  CHECK(r["afterReset"]["zoom"] == 0);
  CHECK(r["resetDisabled"] == true);
  CHECK(r["restored"]["width"].get<double>() == Approx(r["before"]["width"].get<double>()).margin(0.5));
  CHECK(r["secondZoom"] == "helper");
  CHECK(r["afterEscape"]["zoom"] == 0);
}

TEST_CASE("names from the profile stay text: no markup, no script", "[chromium]") {
  CallTree tree = small_tree();
  // Non-ASCII names, front-coded in the page against their sorted neighbours.
  const json unicode = {"ns::caf\xC3\xA9_a", "ns::caf\xC3\xA8_b", "ns::\xF0\x9F\x94\xA5::x", "ns::\xF0\x9F\x94\xA5::y",
                        "ns::\xF0\x9F\x94\xA6", "ns::caf", "line\xE2\x80\xA8separator"};
  for (const auto& name : unicode) add_stack(tree, {{"main", "prog", "src/main.c", 10, 0}, {name, "prog", "", 0, 0}}, 1);
  const BrowserRun run = run_page(page_of(tree), R"(
    var img = api.findNode(T.img);
    var script = api.findNode(T.script);
    out.found = img > 0 && script > 0;
    var c = center(img);
    fire('mousemove', c.x, c.y);
    var tip = document.getElementById('tooltip');
    out.imgTooltip = api.tooltip();
    out.imgTooltipHtml = tip.innerHTML;
    out.imgTooltipElements = tip.querySelectorAll('*').length;
    out.details = document.getElementById('details').textContent;
    c = center(script);
    fire('mousemove', c.x, c.y);
    out.scriptTooltip = api.tooltip();
    out.labels = api.labels();
    out.search = api.search(T.script);
    out.unicode = T.unicode.map(function (name) {
      var node = api.findNode(name);
      return node > 0 ? api.nodeInfo(node).name : null;
    });
  )",
                                json{{"img", kImgName}, {"script", kScriptName}, {"unicode", unicode}});
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["found"] == true);
  REQUIRE_FALSE(r["imgTooltip"]["lines"].empty());
  CHECK(r["imgTooltip"]["visible"] == true);
  CHECK(r["imgTooltip"]["lines"][0] == kImgName);
  CHECK(r["imgTooltip"]["lines"][2] == "Source: src/<evil>.c:1");
  CHECK(r["imgTooltipHtml"].get<std::string>().find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  // Only the tooltip's own line elements, each holding text.
  CHECK(r["imgTooltipElements"] == r["imgTooltip"]["lines"].size());
  CHECK(r["details"].get<std::string>().rfind(kImgName, 0) == 0);
  CHECK(r["scriptTooltip"]["lines"][0] == kScriptName);
  CHECK(has(r["labels"], kImgName));
  bool script_label = false;  // drawn, cut to fit its width
  for (const auto& l : r["labels"]) script_label |= l.get<std::string>().rfind("</script><scr", 0) == 0;
  CHECK(script_label);
  CHECK(r["search"]["matchedSamples"] == 35);
  CHECK(r["unicode"] == unicode);
  // Nowhere in the final DOM does a name appear as markup.
  CHECK(run.dom.find("<img") == std::string::npos);
  CHECK(run.dom.find("<script>alert") == std::string::npos);
  CHECK(run.dom.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
}

TEST_CASE("the icicle toggle moves the root to the top", "[chromium]") {
  const BrowserRun run = run_page(page_of(small_tree()), R"(
    out.flameRoot = api.nodeRect(0).y - canvasBox().y;
    out.flameLeaf = api.nodeRect(api.findNode('memcpy')).y - canvasBox().y;
    document.getElementById('icicle').click();
    out.state = api.state();
    out.icicleRoot = api.nodeRect(0).y - canvasBox().y;
    out.icicleLeaf = api.nodeRect(api.findNode('memcpy')).y - canvasBox().y;
    var c = center(api.findNode('main'));
    out.hit = api.hitTest(c.x, c.y) === api.findNode('main');
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["state"]["icicle"] == true);
  CHECK(r["flameRoot"].get<double>() > r["flameLeaf"].get<double>());
  CHECK(r["icicleRoot"] == 0);
  CHECK(r["icicleLeaf"].get<double>() > 0);
  CHECK(r["hit"] == true);
}

namespace {

// Taller than any window: two towers of 300 frames, read from folded stacks.
CallTree tall_tree() {
  std::string left, right;
  for (int depth = 0; depth < 300; ++depth) {
    left += (depth ? ";left_" : "left_") + std::to_string(depth);
    right += (depth ? ";right_" : "right_") + std::to_string(depth);
  }
  std::istringstream folded(left + " 60\n" + right + " 40\n");
  return swprof::read_folded(folded, "tall.folded");
}

}  // namespace

TEST_CASE("a flame graph taller than the window shows its root on the first screen, the page unscrolled",
          "[chromium]") {
  const BrowserRun run = run_page(page_of(tall_tree()), R"(
    var viewport = document.getElementById('viewport').getBoundingClientRect();
    var root = api.nodeRect(0);
    out.pageScroll = document.scrollingElement.scrollTop;
    out.rootInView = root.y >= viewport.top && root.y + root.height <= viewport.bottom;
    out.viewportInWindow = viewport.top >= 0 && viewport.bottom <= window.innerHeight && viewport.height > 400;
    out.middle = api.hitTest(viewport.left + viewport.width / 4, (viewport.top + viewport.bottom) / 2);
    out.state = api.state();
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["state"]["rows"] == 301);
  CHECK(r["pageScroll"] == 0);  // a scrolled document renders blank in headless Chromium's screenshots
  CHECK(r["rootInView"] == true);
  CHECK(r["viewportInWindow"] == true);
  CHECK(r["middle"].is_number());  // a frame in the middle of the first screen
}

TEST_CASE("a screenshot of a flame graph taller than the window shows frames", "[chromium]") {
  TempDir dir;
  const std::string page = dir.file("tall.html");
  std::ofstream(page, std::ios::binary) << page_of(tall_tree());
  const std::string png = dir.file("tall.png");
  const DomDump shot = screenshot("file://" + page, dir.path(), 2000, png, "1400,900");
  INFO("Chromium log:\n" << shot.log_tail);
  REQUIRE(shot.exit_code == 0);
  // Rows 200-860 (under the header, above the footer): the page's background,
  // a frame of each tower, the background again; a blank screen has one colour.
  const ProcessResult r = run({"/usr/bin/env", "python3", PNG_COLOR_RUNS, png, "200", "860", "10"}, dir.path());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["changes"].get<int>() >= 2);
}

TEST_CASE("a differential page colours growth red and shrinkage blue", "[chromium][diff]") {
  const CctFrame main_f{"main", "prog", "", 0, 0};
  CallTree base, current;
  add_stack(base, {main_f, {"shrinks", "prog", "", 0, 0}}, 60);
  add_stack(base, {main_f, {"steady", "prog", "", 0, 0}}, 40);
  add_stack(current, {main_f, {"shrinks", "prog", "", 0, 0}}, 20);
  add_stack(current, {main_f, {"steady", "prog", "", 0, 0}}, 40);
  add_stack(current, {main_f, {"grows", "prog", "", 0, 0}}, 40);
  const swprof::DifferentialTree diff = swprof::make_differential_tree(base, current);
  FlamegraphOptions options;
  swprof::set_differential(options, diff);
  const BrowserRun run = run_page(page_of(diff.tree, options), R"(
    out.state = api.state();
    out.grows = api.nodeInfo(api.findNode('grows'));
    out.shrinks = api.nodeInfo(api.findNode('shrinks'));
    out.steady = api.nodeInfo(api.findNode('steady'));
    var c = center(api.findNode('grows'));
    fire('mousemove', c.x, c.y);
    out.tooltip = api.tooltip();
    out.legend = document.getElementById('legend').textContent;
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["state"]["differential"] == true);
  CHECK(r["grows"]["base"] == 0);
  CHECK(r["shrinks"]["base"] == 60);
  CHECK(r["grows"]["color"] == "rgb(236,50,50)");    // the largest change: full red
  CHECK(r["shrinks"]["color"] == "rgb(50,106,236)");  // -40 points, as large: full blue
  CHECK(r["steady"]["color"] == "rgb(226,226,222)");
  CHECK(has(r["tooltip"]["lines"], "Base: 0.00% (0) \u2192 now 40.00% (+40.00 points)"));
  CHECK(contains_icase(r["legend"], "more samples than the base profile"));
}

TEST_CASE("an off-CPU page colours mostly off-CPU frames blue, the others warm, and splits the tooltip",
          "[chromium][off_cpu]") {
  const CctFrame main_f{"main", "prog", "", 0, 0};
  CallTree tree;
  const std::vector<uint32_t> waits{tree.intern(main_f), tree.intern({"waits", "prog", "", 0, 0})};
  const std::vector<uint32_t> works{tree.intern(main_f), tree.intern({"works", "prog", "", 0, 0})};
  tree.add(waits, 1, 6000, 6000);
  tree.add(works, 4, 4000);
  tree.sort_children();
  FlamegraphOptions options;
  options.off_cpu = true;
  options.unit = "nanoseconds";
  const BrowserRun run = run_page(page_of(tree, options), R"(
    out.state = api.state();
    out.waits = api.nodeInfo(api.findNode('waits'));
    out.works = api.nodeInfo(api.findNode('works'));
    out.main = api.nodeInfo(api.findNode('main'));
    var c = center(api.findNode('main'));
    fire('mousemove', c.x, c.y);
    out.tooltip = api.tooltip();
    out.legend = document.getElementById('legend').textContent;
    out.legendClass = !!document.querySelector('#legend .off-cpu');
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["state"]["offCpu"] == true);
  CHECK(r["waits"]["off"] == 6000);
  auto hue = [](const json& color) { return std::stoi(color.get<std::string>().substr(4)); };  // "hsl(H,..."
  CHECK(hue(r["waits"]["color"]) >= 200);  // blue: 200-218
  CHECK(hue(r["waits"]["color"]) <= 218);
  CHECK(hue(r["works"]["color"]) < 60);    // warm: 8-44
  CHECK(hue(r["main"]["color"]) >= 200);   // 60 % off-CPU
  CHECK(has(r["tooltip"]["lines"], "On-CPU: 4,000 (40.00%), off-CPU: 6,000 (60.00%)"));
  CHECK(contains_icase(r["legend"], "mostly off-CPU (blocked or waiting)"));
  CHECK(contains_icase(r["legend"], "warm: on-CPU"));
  CHECK(r["legendClass"] == true);
}

TEST_CASE("100,000 distinct frames load and draw", "[chromium][large]") {
  const uint32_t kFrames = 100000;
  const auto build_start = std::chrono::steady_clock::now();
  const CallTree tree = synthetic_tree(kFrames);
  REQUIRE(tree.frames().size() == kFrames);
  const auto write_start = std::chrono::steady_clock::now();
  const std::string page = page_of(tree);
  const auto write_end = std::chrono::steady_clock::now();
  const uint64_t render_matches = matched_samples(tree, [](const std::string& s) { return contains_icase(s, "render_unit1"); });
  const BrowserRun run = run_page(page, R"(
    out.state = api.state();
    var t0 = performance.now();
    out.search = api.search('render_unit1');
    out.searchMs = performance.now() - t0;
    var c = center(api.findNode(T.target));
    t0 = performance.now();
    fire('click', c.x, c.y);
    out.zoomMs = performance.now() - t0;
    out.zoomed = api.state();
    api.reset();
    out.bench = api.benchmark(5);
    t0 = performance.now();
    for (var k = 0; k < 50; k++) fire('mousemove', 100 + 20 * k, c.y);
    out.hoverMs = (performance.now() - t0) / 50;
  )",
                                 json{{"target", tree.frame(tree.node(tree.node(0).children[0]).frame).function}});
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["state"]["nodes"] == tree.nodes().size());
  CHECK(r["state"]["frames"] == kFrames + 1);
  CHECK(r["state"]["rects"].get<uint64_t>() > 100);
  CHECK(r["state"]["rects"].get<uint64_t>() < tree.nodes().size());  // narrow frames merged
  CHECK(r["state"]["mergedBlocks"].get<uint64_t>() > 0);
  CHECK(r["search"]["matchedSamples"] == render_matches);
  CHECK(r["zoomed"]["zoom"] != 0);

  const json& t = r["state"]["timing"];
  std::cout << "flamegraph 100k frames: page " << page.size() << " bytes, tree built in "
            << std::chrono::duration<double, std::milli>(write_start - build_start).count() << " ms, written in "
            << std::chrono::duration<double, std::milli>(write_end - write_start).count() << " ms\n"
            << "  in Chromium: parse " << t["parseMs"] << " ms, layout " << t["layoutMs"] << " ms, draw " << t["drawMs"]
            << " ms, init " << t["initMs"] << " ms; rects " << r["state"]["rects"] << ", merged blocks "
            << r["state"]["mergedBlocks"] << ", rows " << r["state"]["rows"] << "\n"
            << "  search " << r["searchMs"] << " ms, click-zoom " << r["zoomMs"] << " ms, hover " << r["hoverMs"]
            << " ms, relayout+redraw " << r["bench"] << "; chromium run " << run.seconds << " s\n";
}
