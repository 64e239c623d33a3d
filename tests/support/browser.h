#pragma once
// Runs a flame graph page in headless Chromium and reads back what a test
// script in the page found; or dumps the DOM of any page Chromium loads.
//
// The page is written to a scratch file with two extra scripts:
//  - a prelude right after <head>, before anything of the page runs, that
//    records uncaught errors and every alert/confirm/prompt call;
//  - a driver before </body> that, on the load event, calls
//      (function (api, out, T) { <driver> })(window.swprofFlame, out, T)
//    where T is the test's JSON value, then writes `out` (plus the recorded
//    errors and alerts, and counts of <img> and <script> elements) as JSON
//    into <pre id="swprof-test-results">.
// Chromium's --dump-dom prints the DOM after loading; the results are parsed
// back from it.

#include <string>

#include <nlohmann/json.hpp>

namespace swprof::testing {

// $SWPROF_CHROMIUM, else the first of chromium, chromium-browser,
// google-chrome found on PATH; empty when there is none.
std::string find_chromium();

struct BrowserRun {
  nlohmann::json results;  // `out` of the driver, with errors, alerts, imgCount, scriptCount
  std::string dom;         // the whole dumped DOM
  double seconds = 0;      // wall time of the Chromium run
};

// What headless Chromium shows of `url` after loading it and letting
// `virtual_time_ms` of timers run (--dump-dom). Throws std::runtime_error
// when there is no Chromium; a failed run is in exit_code (124: timed out).
struct DomDump {
  std::string dom;
  int exit_code = -1;
  std::string log_tail;  // Chromium's last log lines
  double seconds = 0;    // wall time of the run
};
DomDump dump_dom(const std::string& url, const std::string& work_dir, int virtual_time_ms);
// The same, writing a PNG of the window (`window_size`: "WIDTH,HEIGHT") to
// `png_path` (dom empty).
DomDump screenshot(const std::string& url, const std::string& work_dir, int virtual_time_ms,
                   const std::string& png_path, const std::string& window_size = "1280,900");

// Throws std::runtime_error (with Chromium's last log lines) when Chromium is
// missing, fails, times out, or the page wrote no results.
BrowserRun run_in_chromium(const std::string& html, const std::string& driver, const nlohmann::json& input,
                           const std::string& work_dir);

}  // namespace swprof::testing
