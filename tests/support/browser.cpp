#include "support/browser.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "output/html_escape.h"
#include "support/read_file.h"

namespace swprof::testing {
namespace {

constexpr const char* kPrelude = R"(<script>
window.__swprofTest = { errors: [], alerts: [] };
window.addEventListener('error', function (e) {
  var where = e.target && e.target !== window && e.target.tagName ? ' (' + e.target.tagName + ')' : '';
  window.__swprofTest.errors.push(String(e.message || 'resource error') + where);
}, true);
window.addEventListener('unhandledrejection', function (e) {
  window.__swprofTest.errors.push('unhandled rejection: ' + String(e.reason));
});
['alert', 'confirm', 'prompt'].forEach(function (name) {
  window[name] = function (message) { window.__swprofTest.alerts.push(name + ': ' + String(message)); };
});
</script>
)";

constexpr const char* kResultsOpen = "<pre id=\"swprof-test-results\">";

std::string driver_script(const std::string& driver, const nlohmann::json& input) {
  std::string s = "<script>\nwindow.addEventListener('load', function () {\n  var out = {};\n  try {\n";
  s += "    var T = JSON.parse(" + script_json_string(input.dump()) + ");\n";
  s += "    (function (api, out, T) {\n" + driver + "\n    })(window.swprofFlame, out, T);\n";
  s += R"(  } catch (e) {
    out.exception = String(e && e.stack ? e.stack : e);
  }
  out.errors = window.__swprofTest.errors;
  out.alerts = window.__swprofTest.alerts;
  out.imgCount = document.getElementsByTagName('img').length;
  out.scriptCount = document.scripts.length;
  var pre = document.createElement('pre');
  pre.id = 'swprof-test-results';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
)";
  return s;
}

std::string instrument(const std::string& html, const std::string& driver, const nlohmann::json& input) {
  std::string page = html;
  const size_t head = page.find("<head>");
  const size_t body_end = page.rfind("</body>");
  if (head == std::string::npos || body_end == std::string::npos) throw std::runtime_error("page has no <head> or </body>");
  page.insert(body_end, driver_script(driver, input));
  page.insert(head + 6, kPrelude);
  return page;
}


std::string tail_lines(const std::string& text, size_t lines) {
  size_t at = text.size();
  for (size_t n = 0; n <= lines && at != std::string::npos && at > 0; ++n) at = text.rfind('\n', at - 1);
  return at == std::string::npos ? text : text.substr(at + 1);
}

// The text of <pre id="swprof-test-results"> with the serializer's escapes undone.
std::string results_text(const std::string& dom) {
  const size_t open = dom.find(kResultsOpen);
  if (open == std::string::npos) return {};
  const size_t start = open + std::string(kResultsOpen).size();
  const size_t close = dom.find("</pre>", start);
  const std::string raw = dom.substr(start, close - start);
  std::string text;
  for (size_t i = 0; i < raw.size();) {
    static const std::pair<const char*, const char*> kEntities[] = {
        {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&nbsp;", "\xC2\xA0"}, {"&amp;", "&"}};
    bool replaced = false;
    for (auto [entity, value] : kEntities) {
      if (raw.compare(i, std::char_traits<char>::length(entity), entity) == 0) {
        text += value;
        i += std::char_traits<char>::length(entity);
        replaced = true;
        break;
      }
    }
    if (!replaced) text += raw[i++];
  }
  return text;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string find_chromium() {
  if (const char* env = std::getenv("SWPROF_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::istringstream split(dirs);
    std::string dir;
    while (std::getline(split, dir, ':')) {
      const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return {};
}

namespace {

// Runs headless Chromium on `url` with `output` (--dump-dom: the DOM on
// stdout, kept in dom; --screenshot=PATH) in a window of `window_size`.
DomDump run_headless(const std::string& url, const std::string& work_dir, int virtual_time_ms,
                     const std::string& output, const std::string& window_size = "1280,900") {
  const std::string chromium = find_chromium();
  if (chromium.empty())
    throw std::runtime_error("Chromium not found (install it with scripts/setup.sh, or set SWPROF_CHROMIUM)");
  const std::string dom_path = work_dir + "/dom.html";
  const std::string log_path = work_dir + "/chromium.log";
  // --virtual-time-budget lets timers and pending events (an injected
  // <img onerror>, say) run before the DOM is dumped.
  const std::vector<std::string> args = {
      "timeout", "120", chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
      "--disable-sync", "--mute-audio", "--hide-scrollbars", "--window-size=" + window_size,
      "--virtual-time-budget=" + std::to_string(virtual_time_ms), "--user-data-dir=" + work_dir + "/profile",
      output, url};
  std::string command;
  for (const auto& a : args) command += shell_quote(a) + " ";
  command += ">" + shell_quote(dom_path) + " 2>" + shell_quote(log_path) + " </dev/null";

  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  DomDump out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.dom = read_file(dom_path);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.log_tail = tail_lines(read_file(log_path), 15);
  return out;
}

}  // namespace

DomDump dump_dom(const std::string& url, const std::string& work_dir, int virtual_time_ms) {
  return run_headless(url, work_dir, virtual_time_ms, "--dump-dom");
}

DomDump screenshot(const std::string& url, const std::string& work_dir, int virtual_time_ms,
                   const std::string& png_path, const std::string& window_size) {
  return run_headless(url, work_dir, virtual_time_ms, "--screenshot=" + png_path, window_size);
}

BrowserRun run_in_chromium(const std::string& html, const std::string& driver, const nlohmann::json& input,
                           const std::string& work_dir) {
  const std::string page_path = work_dir + "/page.html";
  std::ofstream(page_path, std::ios::binary) << instrument(html, driver, input);
  const DomDump dump = dump_dom("file://" + page_path, work_dir, 2000);
  BrowserRun run;
  run.seconds = dump.seconds;
  run.dom = dump.dom;
  const int code = dump.exit_code;
  const std::string results = results_text(run.dom);
  if (code != 0 || results.empty()) {
    throw std::runtime_error("Chromium " + std::string(code == 124 ? "timed out" : "failed") + " (exit " +
                             std::to_string(code) + ") or the page wrote no results; log tail:\n" + dump.log_tail);
  }
  run.results = nlohmann::json::parse(results);
  return run;
}

}  // namespace swprof::testing
