// Flame graph page cost on synthetic profiles of N distinct frames: time to
// write the page, its size, and what the page itself measures in headless
// Chromium: loading the HTML up to the viewer script, then the script's JSON
// parse, set-up, first layout and draw; then search, zoom, redraw and hover.
// Then the same for recordings of N samples with their time order
// (--samples N: synthetic_timed_profile, 8 threads).
//
//   swprof_flamegraph_bench [--keep DIR] [--samples N]... [FRAMES...]
//       (default 10000 100000, and --samples 30000 --samples 300000)
//
// Also times read_folded on the same profile written as folded stacks.
// Prints Markdown tables (see bench/RESULTS.md). --keep writes each
// page to DIR/flamegraph_FRAMES.html (DIR/timed_SAMPLES.html) for a look in
// a browser.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "output/flamegraph.h"
#include "output/folded_reader.h"
#include "support/browser.h"
#include "support/sample_trees.h"
#include "support/temp_dir.h"

namespace {

// Runs in the page on load; every figure is the page's own performance.now().
constexpr const char* kDriver = R"(
  var canvas = document.getElementById('flame');
  function fire(type, x, y) {
    var target = document.elementFromPoint(x, y);
    target.dispatchEvent(new MouseEvent(type, { clientX: x, clientY: y, bubbles: true, view: window }));
  }
  out.state = api.state();
  var t0 = performance.now();
  api.search('render_unit1');
  out.searchMs = performance.now() - t0;
  api.clearSearch();
  var r = api.nodeRect(api.findNode(T.target));
  document.getElementById('viewport').scrollTop += r.y - window.innerHeight / 2;
  r = api.nodeRect(api.findNode(T.target));
  t0 = performance.now();
  fire('click', r.x + r.width / 2, r.y + r.height / 2);
  out.zoomMs = performance.now() - t0;
  api.reset();
  out.redraw = api.benchmark(10);
  var viewport = document.getElementById('viewport').getBoundingClientRect();
  var y = (viewport.top + viewport.bottom) / 2;  // a row of frames (or merged ones) mid-view
  out.hoverHits = 0;
  t0 = performance.now();
  for (var k = 0; k < 100; k++) {
    fire('mousemove', 50 + 10 * k, y);
    out.hoverHits += api.tooltip().visible ? 1 : 0;
  }
  out.hoverMs = (performance.now() - t0) / 100;
)";

// The page of a recording with a timeline: its load, as above; the
// sandwich of its function with the most samples (the list, the two trees
// and their drawing); the time order's first draw (its spans made), a draw
// zoomed to a tenth of the time, and hovering the lanes.
constexpr const char* kTimedDriver = R"(
  out.state = api.state();
  var t0 = performance.now();
  api.selectFunction(api.functions()[0].name);
  out.sandwichMs = performance.now() - t0;
  t0 = performance.now();
  api.showView('time');
  out.timeFirstMs = performance.now() - t0;
  var timeline = api.timeline();
  out.blocks = timeline.lanes.reduce(function (n, l) { return n + l.blocks.length; }, 0);
  out.allBlocks = timeline.cut ? timeline.cut.blocks : out.blocks;
  t0 = performance.now();
  api.setTimeRange(timeline.end * 0.45, timeline.end * 0.55);
  out.timeZoomMs = performance.now() - t0;
  api.setTimeRange(0, timeline.end);
  var box = document.getElementById('lanes').getBoundingClientRect();
  var y = box.top + 22 + 20 + 4 * 18 + 9;
  t0 = performance.now();
  for (var k = 0; k < 100; k++) {
    document.getElementById('lanes').dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + 10 + 12 * k, clientY: y, bubbles: true }));
  }
  out.timeHoverMs = (performance.now() - t0) / 100;
  out.after = api.state();
)";

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string fixed(double v, int digits = 1) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

// The tree as folded stacks, "module`function" frames, one line per node with self samples.
std::string folded_text(const swprof::CallTree& tree) {
  std::string text;
  for (uint32_t id = 1; id < tree.nodes().size(); ++id) {
    if (tree.node(id).self == 0) continue;
    const auto path = tree.path(id);
    for (size_t i = 0; i < path.size(); ++i) {
      const swprof::CctFrame& f = tree.frame(path[i]);
      if (i) text += ';';
      text += f.module + "`" + f.function;
      if (f.flags & swprof::kCctInline) text += "_[i]";
      if (f.flags & swprof::kCctKernel) text += "_[k]";
    }
    text += ' ' + std::to_string(tree.node(id).self) + '\n';
  }
  return text;
}

void folded_table(const std::vector<uint32_t>& sizes) {
  std::cout << "\n| frames | folded MB | lines | read ms | MB/s |\n|---|---|---|---|---|\n";
  for (uint32_t frames : sizes) {
    const swprof::CallTree tree = swprof::testing::synthetic_tree(frames);
    const std::string text = folded_text(tree);
    double best = 1e300;
    size_t nodes = 0;
    for (int run = 0; run < 3; ++run) {
      std::istringstream in(text);
      const auto start = std::chrono::steady_clock::now();
      const swprof::CallTree read = swprof::read_folded(in, "bench");
      best = std::min(best, ms_since(start));
      nodes = read.nodes().size();
    }
    if (nodes != tree.nodes().size()) std::cerr << "folded round trip: " << nodes << " nodes, expected " << tree.nodes().size() << "\n";
    const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    std::cout << "| " << frames << " | " << fixed(text.size() / 1e6, 1) << " | " << lines << " | " << fixed(best) << " | "
              << fixed(text.size() / 1e3 / best, 0) << " |\n";
  }
}

// Page size, load and the new views' times for recordings of N samples
// (with their timeline).
void timed_table(const std::vector<uint32_t>& sizes, const std::string& keep) {
  if (sizes.empty()) return;
  std::cout << "\n| samples | blocks | page MB | write ms | HTML load ms | script total ms | sandwich ms (list, trees) "
               "| time order first draw ms (spans) | time zoom ms | time hover ms |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n";
  for (uint32_t samples : sizes) {
    const swprof::Profile profile = swprof::testing::synthetic_timed_profile(samples);
    std::string page;
    double write_ms = 1e300;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      std::ostringstream out;
      swprof::write_flamegraph(profile, {}, out);
      write_ms = std::min(write_ms, ms_since(start));
      page = out.str();
    }
    if (!keep.empty()) std::ofstream(keep + "/timed_" + std::to_string(samples) + ".html") << page;
    swprof::testing::TempDir dir;
    const auto run = swprof::testing::run_in_chromium(page, kTimedDriver, nlohmann::json::object(), dir.path());
    const auto& r = run.results;
    if (r.contains("exception") || !r["errors"].empty()) {
      std::cerr << "page failed: " << r.dump() << "\n";
      std::exit(1);
    }
    const auto& t = r["state"]["timing"];
    const auto& a = r["after"]["timing"];
    std::string blocks = r["blocks"].dump();
    if (r["allBlocks"] != r["blocks"]) blocks += " (of " + r["allBlocks"].dump() + ": bounded)";
    std::cout << "| " << samples << " | " << blocks << " | " << fixed(page.size() / 1e6, 2) << " | " << fixed(write_ms)
              << " | " << fixed(t["scriptStartMs"]) << " | " << fixed(t["initMs"]) << " | " << fixed(r["sandwichMs"]) << " ("
              << fixed(a["listMs"]) << ", " << fixed(a["sandwichBuildMs"]) << ") | " << fixed(r["timeFirstMs"]) << " ("
              << fixed(a["timeSpansMs"]) << ") | " << fixed(r["timeZoomMs"]) << " | " << fixed(r["timeHoverMs"], 2) << " |\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string keep;
  std::vector<uint32_t> sizes, timed;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--keep" && i + 1 < argc)
      keep = argv[++i];
    else if (arg == "--samples" && i + 1 < argc)
      timed.push_back(static_cast<uint32_t>(std::stoul(argv[++i])));
    else
      sizes.push_back(static_cast<uint32_t>(std::stoul(arg)));
  }
  if (sizes.empty() && timed.empty()) {
    sizes = {10000, 100000};
    timed = {30000, 300000};
  }

  if (!sizes.empty())
    std::cout << "| frames | page MB | write ms | HTML load ms | JSON parse ms | set-up ms | layout ms | draw ms "
               "| script total ms | search ms | click-zoom ms | relayout+draw ms | hover ms (on a frame) | rects | merged |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (uint32_t frames : sizes) {
    const swprof::CallTree tree = swprof::testing::synthetic_tree(frames);
    std::string page;
    double write_ms = 1e300;
    for (int run = 0; run < 3; ++run) {  // best of 3
      const auto start = std::chrono::steady_clock::now();
      std::ostringstream out;
      swprof::write_flamegraph(tree, {}, out);
      write_ms = std::min(write_ms, ms_since(start));
      page = out.str();
    }
    if (!keep.empty()) std::ofstream(keep + "/flamegraph_" + std::to_string(frames) + ".html") << page;
    swprof::testing::TempDir dir;
    const nlohmann::json input = {{"target", tree.frame(tree.node(tree.node(0).children[0]).frame).function}};
    const auto run = swprof::testing::run_in_chromium(page, kDriver, input, dir.path());
    const auto& r = run.results;
    if (r.contains("exception") || !r["errors"].empty()) {
      std::cerr << "page failed: " << r.dump() << "\n";
      return 1;
    }
    const auto& t = r["state"]["timing"];
    const double setup = t["structureMs"].get<double>() + t["legendMs"].get<double>();
    std::cout << "| " << frames << " | " << fixed(page.size() / 1e6, 2) << " | " << fixed(write_ms) << " | "
              << fixed(t["scriptStartMs"]) << " | " << fixed(t["parseMs"]) << " | " << fixed(setup) << " | " << fixed(t["layoutMs"]) << " | "
              << fixed(t["drawMs"]) << " | " << fixed(t["initMs"]) << " | " << fixed(r["searchMs"]) << " | "
              << fixed(r["zoomMs"]) << " | " << fixed(r["redraw"]["layoutMs"].get<double>() + r["redraw"]["drawMs"].get<double>())
              << " | " << fixed(r["hoverMs"], 2) << " (" << r["hoverHits"] << "%) | " << r["state"]["rects"] << " | " << r["state"]["mergedBlocks"]
              << " |\n";
  }
  if (!sizes.empty()) folded_table(sizes);
  timed_table(timed, keep);
  return 0;
}
