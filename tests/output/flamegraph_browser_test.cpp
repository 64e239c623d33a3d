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
#include "profile/function_table.h"
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
function middle(r) {
  if (!r) throw new Error('not drawn');
  return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
}
function clickElement(element) {
  var r = element.getBoundingClientRect();
  return fire('click', r.left + r.width / 2, r.top + r.height / 2);
}
function key(target, name) {
  target.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true }));
}
// The function list's row of a function, by name.
function row(name) {
  var rows = document.querySelectorAll('#function-list tbody tr');
  for (var i = 0; i < rows.length; i++) if (rows[i].querySelector('.mono').textContent === name) return rows[i];
  throw new Error('no row ' + name);
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

// ---- the sandwich ------------------------------------------------------------

namespace {

// work runs in four places: called from a, from b (and again from inside
// itself, through helper), inlined into c, and at the top of other.
constexpr const char* kWorkFolded =
    "main;a;work 10\n"
    "main;b;work;leaf1 20\n"
    "main;b;work;helper;work;leaf2 5\n"
    "main;c;work_[i];leaf1 7\n"
    "main;c 3\n"
    "other;work 4\n";

// The folded stacks above, each line's frames in the other order when
// `reversed` (as --reverse gives them: leaf first).
CallTree work_tree(bool reversed = false) {
  std::string text;
  std::istringstream lines(kWorkFolded);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    std::vector<std::string> frames;
    std::istringstream split(line.substr(0, space));
    for (std::string f; std::getline(split, f, ';');) frames.push_back(f);
    if (reversed) std::reverse(frames.begin(), frames.end());
    for (size_t i = 0; i < frames.size(); ++i) text += (i ? ";" : "") + frames[i];
    text += line.substr(space) + "\n";
  }
  std::istringstream in(text);
  CallTree tree = swprof::read_folded(in, "work.folded");
  tree.sort_children();
  return tree;
}

// (path, total) of every node of a tree the page shows, in its order.
std::vector<std::pair<std::string, uint64_t>> paths(const json& tree) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& node : tree) out.emplace_back(node["path"], node["total"]);
  return out;
}

// name -> (self, total) for the rows of function_table (merge: a function
// with its inlined copies).
std::map<std::string, std::pair<uint64_t, uint64_t>> function_rows(const CallTree& tree, bool reversed = false) {
  swprof::Profile p;
  p.tree = tree;
  p.reversed = reversed;
  std::map<std::string, std::pair<uint64_t, uint64_t>> rows;
  for (const auto& r : swprof::function_table(p, swprof::InlineRows::kMerge)) rows[tree.frame(r.frame).function] = {r.self, r.total};
  return rows;
}

std::map<std::string, std::pair<uint64_t, uint64_t>> page_rows(const json& functions) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> rows;
  for (const auto& f : functions) rows[f["name"]] = {f["self"], f["total"]};
  return rows;
}

std::vector<std::string> names_of(const json& functions) {
  std::vector<std::string> names;
  for (const auto& f : functions) names.push_back(f["name"]);
  return names;
}

}  // namespace

TEST_CASE("the sandwich view shows a function's callers above and its callees below, merged over every place it runs",
          "[chromium][sandwich]") {
  const CallTree tree = work_tree();
  const BrowserRun run = run_page(page_of(tree), R"(
    out.timeTabDisabled = document.getElementById('tab-time').disabled;  // folded stacks: no time order
    clickElement(document.getElementById('tab-sandwich'));
    out.view = api.state().view;
    out.listed = api.functions();
    out.rows = Array.from(document.querySelectorAll('#function-list tbody tr .mono'), function (e) { return e.textContent; });
    clickElement(row('work'));
    out.sandwich = api.sandwich();
    out.selected = row('work').getAttribute('aria-selected');
    out.callersLabels = api.labels('callers');
    out.calleesLabels = api.labels('callees');
    out.callerRoot = api.paneRect('callers', 'work');
    out.caller = api.paneRect('callers', 'work;b');
    out.calleeRoot = api.paneRect('callees', 'work');
    out.callee = api.paneRect('callees', 'work;leaf1');
    out.titles = [document.getElementById('callers-title').textContent, document.getElementById('callees-title').textContent];
    var c = middle(api.paneRect('callees', 'work;helper'));
    fire('mousemove', c.x, c.y);
    out.tooltip = api.tooltip();
    clickElement(document.querySelector('#function-list th button[data-sort="total"]'));
    out.byTotal = api.functions();
    out.sortMark = document.querySelector('#function-list th[aria-sort] button').dataset.sort;
    api.search('leaf');
    out.searched = api.functions();
    out.count = document.getElementById('function-count').textContent;
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["timeTabDisabled"] == true);
  CHECK(r["view"] == "sandwich");
  // One row per function, work's inlined copy in its row: the text report's rows.
  CHECK(page_rows(r["listed"]) == function_rows(tree));
  CHECK(names_of(r["listed"]) ==
        std::vector<std::string>{"leaf1", "work", "leaf2", "c", "main", "b", "a", "helper", "other"});  // by self, then total
  CHECK(r["rows"] == json(names_of(r["listed"])));
  CHECK(r["selected"] == "true");
  CHECK(r["sandwich"]["name"] == "work");
  // Callers: inverted, rooted at work; each place once (recursion inside b's counts there once).
  CHECK(paths(r["sandwich"]["callers"]) == std::vector<std::pair<std::string, uint64_t>>{
                                               {"work", 46}, {"work;a", 10}, {"work;a;main", 10}, {"work;b", 25},
                                               {"work;b;main", 25}, {"work;c", 7}, {"work;c;main", 7}, {"work;other", 4}});
  // Callees: every place summed, the inlined copy's leaf1 with the call's.
  CHECK(paths(r["sandwich"]["callees"]) == std::vector<std::pair<std::string, uint64_t>>{
                                               {"work", 46}, {"work;helper", 5}, {"work;helper;work", 5},
                                               {"work;helper;work;leaf2", 5}, {"work;leaf1", 27}});
  CHECK(r["sandwich"]["callees"][0]["self"] == 14);
  for (const char* name : {"work", "a", "b", "c", "other", "main"}) CHECK(has(r["callersLabels"], name));
  for (const char* name : {"work", "helper", "leaf1", "leaf2"}) CHECK(has(r["calleesLabels"], name));
  // Callers above the function, callees below it.
  CHECK(r["caller"]["y"].get<double>() < r["callerRoot"]["y"].get<double>());
  CHECK(r["callerRoot"]["y"].get<double>() < r["calleeRoot"]["y"].get<double>());
  CHECK(r["calleeRoot"]["y"].get<double>() < r["callee"]["y"].get<double>());
  CHECK(r["titles"][0].get<std::string>().find("Callers of work") != std::string::npos);
  CHECK(r["titles"][1].get<std::string>().find("Callees of work") != std::string::npos);
  CHECK(r["tooltip"]["lines"][0] == "helper");
  CHECK(has(r["tooltip"]["lines"], "10.87% of its caller work"));  // 5 of 46
  CHECK(names_of(r["byTotal"]) ==
        std::vector<std::string>{"work", "main", "leaf1", "b", "c", "a", "leaf2", "helper", "other"});
  CHECK(r["sortMark"] == "total");
  CHECK(names_of(r["searched"]) == std::vector<std::string>{"leaf1", "leaf2"});
  CHECK(r["count"].get<std::string>().rfind("2 of 9 functions match the search", 0) == 0);
}

TEST_CASE("the sandwich of a reversed profile is the same as of the profile", "[chromium][sandwich]") {
  const std::string driver = R"(
    api.selectFunction('work');
    out.sandwich = api.sandwich();
    out.functions = api.functions();
    api.selectFunction('leaf1');
    out.leaf = api.sandwich();
  )";
  const BrowserRun forward = run_page(page_of(work_tree()), driver);
  FlamegraphOptions options;
  options.reversed = true;
  const BrowserRun reversed = run_page(page_of(work_tree(true), options), driver);
  check_clean(reversed);
  INFO("forward: " << forward.results.dump() << "\nreversed: " << reversed.results.dump());
  CHECK(reversed.results["sandwich"] == forward.results["sandwich"]);
  CHECK(reversed.results["leaf"] == forward.results["leaf"]);
  CHECK(page_rows(reversed.results["functions"]) == page_rows(forward.results["functions"]));
  CHECK(page_rows(reversed.results["functions"]) == function_rows(work_tree(true), true));
  // leaf1's callers: work from b and work inlined into c, one function.
  CHECK(paths(forward.results["leaf"]["callers"]) ==
        std::vector<std::pair<std::string, uint64_t>>{{"leaf1", 27}, {"leaf1;work", 27}, {"leaf1;work;b", 20},
                                                      {"leaf1;work;b;main", 20}, {"leaf1;work;c", 7}, {"leaf1;work;c;main", 7}});
}

TEST_CASE("a frame clicked in the flame graph shows its details, and its callers and callees from there",
          "[chromium][sandwich]") {
  const BrowserRun run = run_page(page_of(work_tree()), R"(
    out.hiddenAtLoad = !api.details().visible;
    var c = center(api.findNode('work'));  // main;b;work, 25 samples
    fire('click', c.x, c.y);
    out.details = api.details();
    out.zoom = api.state().zoomName;
    clickElement(document.getElementById('details-sandwich'));
    out.view = api.state().view;
    out.name = api.sandwich().name;
    c = middle(api.paneRect('callees', 'work;leaf1'));
    fire('dblclick', c.x, c.y);
    out.again = api.sandwich().name;
    c = middle(api.paneRect('callees', 'leaf1'));
    fire('click', c.x, c.y);
    out.leafDetails = api.details();
    // The list by keyboard: the selected row is its tab stop; arrows move, Enter picks.
    var stop = document.querySelector('#function-list tbody tr[tabindex="0"]');
    out.stop = stop.querySelector('.mono').textContent;
    stop.focus();
    key(stop, 'ArrowDown');
    out.focused = document.activeElement.querySelector('.mono').textContent;
    key(document.activeElement, 'Enter');
    out.picked = api.sandwich().name;
    clickElement(document.getElementById('details-close'));
    out.closed = !api.details().visible;
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["hiddenAtLoad"] == true);
  CHECK(r["zoom"] == "work");
  CHECK(r["details"]["visible"] == true);
  CHECK(r["details"]["name"] == "work");
  CHECK(has(r["details"]["lines"], "This call path: 25 samples (51.02% of all), self 0 (0.00%)"));
  CHECK(has(r["details"]["lines"],
            "Function, every place it runs (its inlined copies too): self 14 samples (28.57%), total 46 (93.88%)"));
  CHECK(r["details"]["sourceNote"] == "This page has no samples per source line.");
  CHECK(r["view"] == "sandwich");
  CHECK(r["name"] == "work");
  CHECK(r["again"] == "leaf1");
  CHECK(r["leafDetails"]["name"] == "leaf1");
  CHECK(has(r["leafDetails"]["lines"], "Every place it runs: 27 samples (55.10% of all), self 27 (55.10%)"));
  CHECK(r["stop"] == "leaf1");  // the selected function's row
  CHECK(r["focused"] == "work");
  CHECK(r["picked"] == "work");
  CHECK(r["closed"] == true);
}

TEST_CASE("the details panel lists a function's source lines with their shares when the page has them",
          "[chromium][sandwich]") {
  const CallTree tree = small_tree();
  FlamegraphOptions options;
  for (uint32_t f = 0; f < tree.frames().size(); ++f)
    if (tree.frame(f).function == "compute") {
      options.source_lines.push_back({f, "src/compute.c", 9, 10});
      options.source_lines.push_back({f, "src/<compute>.c", 8, 30});
    }
  REQUIRE(options.source_lines.size() == 2);
  const BrowserRun run = run_page(page_of(tree, options), R"(
    var c = center(api.findNode('compute'));
    fire('click', c.x, c.y);
    out.compute = api.details();
    c = center(api.findNode('main'));
    fire('click', c.x, c.y);
    out.main = api.details();
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["compute"]["sourceLines"] == json::array({json::array({"src/<compute>.c:8", "30", "75.0%"}),
                                                    json::array({"src/compute.c:9", "10", "25.0%"})}));
  CHECK(r["main"]["sourceLines"] == json::array());
  CHECK(r["main"]["sourceNote"] == "This page has no samples per source line.");
}

// ---- the time order ------------------------------------------------------------

namespace {

constexpr uint64_t kMs = 1'000'000;

// Two threads alternating between fa and fb: 4242 six turns of 3 ms (fa
// first), 4243 fb and fa 2 ms each from 0.5 ms, then fb again after a pause.
swprof::Profile alternating_profile() {
  swprof::Profile p;
  p.header.start_monotonic_ns = 1'000'000'000;
  p.weight_unit = "nanoseconds";
  p.threads[4242] = swprof::ProfileThread{4242, "alternating", 18};
  p.threads[4243] = swprof::ProfileThread{4242, "worker", 6};
  const uint64_t t0 = p.header.start_monotonic_ns;
  auto sample = [&](uint32_t tid, uint64_t at_us, const char* leaf) {
    add_timed_stack(p, {{"main", "prog", "alt.c", 3, 0}, {leaf, "prog", "alt.c", leaf[1] == 'a' ? 10u : 20u, 0}}, tid,
                    t0 + at_us * 1000, kMs);
  };
  for (uint64_t ms = 0; ms < 18; ++ms) sample(4242, ms * 1000, ms / 3 % 2 ? "fb" : "fa");
  for (uint64_t at : {500, 1500}) sample(4243, at, "fb");
  for (uint64_t at : {2500, 3500}) sample(4243, at, "fa");
  for (uint64_t at : {10500, 11500}) sample(4243, at, "fb");
  p.tree.sort_children();
  swprof::order_timeline(p.timeline);
  return p;
}

std::string page_of(const swprof::Profile& p, const FlamegraphOptions& options = {}) {
  std::ostringstream out;
  swprof::write_flamegraph(p, options, out);
  return out.str();
}

// Hovers the middle of every block of every lane (at its leaf's row) and
// gives the tooltip's first line for each: the frame drawn there (null for a
// block outside the time range shown).
constexpr const char* kHoverBlocks = R"(
function hoverBlocks() {
  var timeline = api.timeline();
  return timeline.lanes.map(function (lane, l) {
    return lane.blocks.map(function (block, b) {
      var r = api.blockRect(l, b);
      if (!r) return null;
      var c = middle(r);
      fire('mousemove', c.x, c.y);
      return api.tooltip().lines[0];
    });
  });
}
)";

}  // namespace

TEST_CASE("the time order shows a lane per thread, its blocks in time order, with the stack and time on hover",
          "[chromium][time_order]") {
  const BrowserRun run = run_page(page_of(alternating_profile()), std::string(kHoverBlocks) + R"(
    clickElement(document.getElementById('tab-time'));
    out.view = api.state().view;
    out.timeline = api.timeline();
    out.drawn = hoverBlocks();
    var c = middle(api.blockRect(0, 1));
    fire('mousemove', c.x, c.y);
    out.tooltip = api.tooltip();
    out.labels = api.labels('time');
    out.range = document.getElementById('time-range').textContent;
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["view"] == "time");
  const json& lanes = r["timeline"]["lanes"];
  REQUIRE(lanes.size() == 2);
  CHECK(lanes[0]["name"] == "alternating [4242]");
  CHECK(lanes[1]["name"] == "worker [4243]");
  // Consecutive samples of one stack are one block; a pause starts another.
  auto blocks = [](const json& lane) {
    std::vector<std::tuple<std::string, double, double, int>> out;
    for (const auto& b : lane["blocks"]) out.emplace_back(b["leaf"], b["start"], b["end"], b["samples"]);
    return out;
  };
  using B = std::tuple<std::string, double, double, int>;
  CHECK(blocks(lanes[0]) == std::vector<B>{{"fa", 0, 3000, 3}, {"fb", 3000, 6000, 3}, {"fa", 6000, 9000, 3},
                                           {"fb", 9000, 12000, 3}, {"fa", 12000, 15000, 3}, {"fb", 15000, 18000, 3}});
  CHECK(blocks(lanes[1]) == std::vector<B>{{"fb", 500, 2500, 2}, {"fa", 2500, 4500, 2}, {"fb", 10500, 12500, 2}});
  CHECK(lanes[0]["blocks"][0]["stack"] == json::array({"main", "fa"}));
  // What is drawn at each block, lane by lane in time order.
  CHECK(r["drawn"] == json::array({json::array({"fa", "fb", "fa", "fb", "fa", "fb"}), json::array({"fb", "fa", "fb"})}));
  const json& tip = r["tooltip"]["lines"];
  CHECK(tip[0] == "fb");
  CHECK(has(tip, "Thread: alternating [4242]"));
  CHECK(has(tip, "3 ms \u2013 6 ms (3 ms)"));
  CHECK(has(tip, "3 samples"));
  CHECK(has(tip, "Source: alt.c:20"));
  CHECK(has(tip, "  fb"));
  CHECK(has(tip, "  main"));
  CHECK(has(r["labels"], "main"));  // main: one span over each lane's touching blocks
  CHECK(r["range"] == "0 \u00b5s \u2013 18 ms (18 ms of 18 ms)");
}

TEST_CASE("the time order zooms into a dragged range, by keys and wheel, and back, and a click shows the details",
          "[chromium][time_order]") {
  const BrowserRun run = run_page(page_of(alternating_profile()), std::string(kHoverBlocks) + R"(
    api.showView('time');
    var lanes = document.getElementById('lanes');
    var from = api.blockRect(0, 1);
    var to = api.blockRect(0, 2);
    var y = from.y + 5;
    fire('mousedown', from.x + 1, y);
    window.dispatchEvent(new MouseEvent('mousemove', { clientX: to.x + to.width - 1, clientY: y, bubbles: true }));
    out.selecting = !document.getElementById('time-selection').hidden;
    window.dispatchEvent(new MouseEvent('mouseup', { clientX: to.x + to.width - 1, clientY: y, bubbles: true }));
    out.dragged = api.timeline().range;
    out.resetEnabled = !document.getElementById('reset-zoom').disabled;
    out.zoomedDrawn = hoverBlocks();
    lanes.focus();
    key(lanes, '+');
    out.keyZoom = api.timeline().range;
    key(lanes, 'ArrowRight');
    out.moved = api.timeline().range;
    var box = lanes.getBoundingClientRect();
    lanes.dispatchEvent(new WheelEvent('wheel', { deltaY: 500, ctrlKey: true, clientX: box.left, clientY: y, bubbles: true, cancelable: true }));
    out.wheel = api.timeline().range;
    document.getElementById('reset-zoom').click();
    out.reset = api.timeline().range;
    var c = middle(api.blockRect(1, 2));
    fire('mousedown', c.x, c.y);
    window.dispatchEvent(new MouseEvent('mouseup', { clientX: c.x, clientY: c.y, bubbles: true }));
    fire('click', c.x, c.y);
    out.details = api.details();
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["selecting"] == true);
  // fb then fa of the first lane, to within a pixel (18 ms over ~1250 px).
  CHECK(r["dragged"]["start"].get<double>() == Approx(3000).margin(40));
  CHECK(r["dragged"]["end"].get<double>() == Approx(9000).margin(40));
  CHECK(r["resetEnabled"] == true);
  CHECK(r["zoomedDrawn"][0][1] == "fb");
  CHECK(r["zoomedDrawn"][0][2] == "fa");
  const double width = r["keyZoom"]["end"].get<double>() - r["keyZoom"]["start"].get<double>();
  CHECK(width == Approx(3000).margin(40));  // halved around the middle
  CHECK(r["moved"]["start"].get<double>() == Approx(r["keyZoom"]["start"].get<double>() + width * 0.2));
  CHECK(r["wheel"]["end"].get<double>() - r["wheel"]["start"].get<double>() > width);  // Ctrl+wheel down zooms out
  CHECK(r["reset"] == json({{"start", 0}, {"end", 18000}}));
  CHECK(r["details"]["name"] == "fb");
  CHECK(has(r["details"]["lines"], "Thread: worker [4243]"));
  CHECK(has(r["details"]["lines"], "Time: 10.5 ms \u2013 12.5 ms (2 ms), 2 samples"));
}

TEST_CASE("the time order holds at most the bound's blocks and says where it stops", "[chromium][time_order]") {
  FlamegraphOptions options;
  options.max_time_blocks = 4;
  const BrowserRun run = run_page(page_of(alternating_profile(), options), R"(
    api.showView('time');
    out.timeline = api.timeline();
  )");
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["timeline"]["cut"] == json({{"at", 6000}, {"blocks", 9}}));
  CHECK(r["timeline"]["lanes"][0]["blocks"].size() == 2);
  CHECK(r["timeline"]["lanes"][1]["blocks"].size() == 2);
  CHECK(r["timeline"]["note"] ==
        "Only the first 6 ms are shown (4 of 9 blocks, the most a page holds): swprof flamegraph --from and --to show a "
        "later part.");
}

TEST_CASE("names from the profile stay text in the sandwich, the time order and the details", "[chromium][sandwich]") {
  swprof::Profile p;
  p.header.start_monotonic_ns = 1'000'000'000;
  p.weight_unit = "nanoseconds";
  p.threads[66] = swprof::ProfileThread{66, kScriptName, 2};
  const CctFrame img{kImgName, "lib<b>.so", "src/<evil>.c", 1, 0};
  add_timed_stack(p, {{"main", "prog", "", 0, 0}, img}, 66, 1'000'000'000, kMs);
  add_timed_stack(p, {{"main", "prog", "", 0, 0}, img}, 66, 1'001'000'000, kMs);
  p.tree.sort_children();
  const BrowserRun run = run_page(page_of(p), std::string(kHoverBlocks) + R"(
    api.selectFunction(T.img);
    out.title = document.getElementById('callers-title').textContent;
    out.row = row(T.img).querySelector('td.function').textContent;
    var c = middle(api.paneRect('callees', T.img));
    fire('click', c.x, c.y);
    out.details = api.details();
    api.showView('time');
    out.drawn = hoverBlocks();
    out.tooltip = api.tooltip();
    out.lane = api.timeline().lanes[0].name;
  )",
                                 json{{"img", kImgName}});
  check_clean(run);
  const json& r = run.results;
  INFO("results: " << r.dump());
  CHECK(r["title"] == "\u25b2 Callers of " + kImgName + " (lib<b>.so)");
  CHECK(r["row"] == kImgName + "lib<b>.so");
  CHECK(r["details"]["name"] == kImgName);
  CHECK(has(r["details"]["lines"], "Source: src/<evil>.c:1"));
  CHECK(has(r["details"]["lines"], "Every place it runs: 2 samples (100.00% of all), self 2 (100.00%)"));
  CHECK(r["drawn"] == json::array({json::array({kImgName})}));
  CHECK(has(r["tooltip"]["lines"], "Thread: " + kScriptName + " [66]"));
  CHECK(r["lane"] == kScriptName + " [66]");
  CHECK(run.dom.find("<img") == std::string::npos);
  CHECK(run.dom.find("<b>") == std::string::npos);
  CHECK(run.dom.find("<script>alert") == std::string::npos);
}

TEST_CASE("differential, off-CPU and empty pages have their sandwich too, coloured as their flame graph",
          "[chromium][sandwich]") {
  const CctFrame main_f{"main", "prog", "", 0, 0};
  CallTree base, current;
  add_stack(base, {main_f, {"shrinks", "prog", "", 0, 0}}, 60);
  add_stack(current, {main_f, {"shrinks", "prog", "", 0, 0}}, 20);
  add_stack(current, {main_f, {"grows", "prog", "", 0, 0}}, 40);
  const swprof::DifferentialTree diff = swprof::make_differential_tree(base, current);
  FlamegraphOptions differential;
  swprof::set_differential(differential, diff);
  const std::string driver = R"(
    out.selected = api.selectFunction(T.name);
    out.sandwich = api.sandwich();
    out.tabTime = document.getElementById('tab-time').disabled;
    out.status = document.getElementById('details').textContent;
    if (out.selected) {
      var c = middle(api.paneRect('callers', T.name + ';main'));
      fire('mousemove', c.x, c.y);
      out.tooltip = api.tooltip();
    }
  )";
  const BrowserRun grows = run_page(page_of(diff.tree, differential), driver, json{{"name", "grows"}});
  check_clean(grows);
  INFO("differential: " << grows.results.dump());
  CHECK(has(grows.results["tooltip"]["lines"], "Base: 0.00% (0) \u2192 now 66.67% (+66.67 points)"));

  CallTree waits;
  const std::vector<uint32_t> stack{waits.intern(main_f), waits.intern({"waits", "prog", "", 0, 0})};
  waits.add(stack, 1, 6000, 6000);
  FlamegraphOptions off_cpu;
  off_cpu.off_cpu = true;
  off_cpu.unit = "nanoseconds";
  const BrowserRun off = run_page(page_of(waits, off_cpu), driver, json{{"name", "waits"}});
  check_clean(off);
  INFO("off-CPU: " << off.results.dump());
  CHECK(has(off.results["tooltip"]["lines"], "On-CPU: 0 (0.00%), off-CPU: 6,000 (100.00%)"));

  const BrowserRun empty = run_page(page_of(CallTree()), driver, json{{"name", "main"}});
  check_clean(empty);
  INFO("empty: " << empty.results.dump());
  CHECK(empty.results["selected"] == false);
  CHECK(empty.results["tabTime"] == true);
}
