// `swprof browse` end to end, in a terminal: tmux runs it in an 80x24
// window of a server of the test's own (its socket in the test's folder),
// the test sends keys and reads the window's text. The browser's model, keys
// and drawing are tested without a terminal in tests/tui/; this checks the
// wiring: the terminal, its keys, its size, the charset, quitting.

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

// The stored recording (tests/golden/recording/): _start -> run -> compute
// -> hot|warm -> spin, run -> cold -> spin; spin has every sample.
std::string stored_recording() { return std::string(GOLDEN_DIR) + "/recording/known_tiny.swprof"; }

// tmux's path; empty, with a warning, when it is not installed.
std::string find_tmux() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/tmux").c_str(), X_OK) == 0) return dir + "/tmux";
  WARN("tmux is not installed: the terminal test of browse is skipped (scripts/setup.sh installs it)");
  return "";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A process is gone when it is no more, or a zombie nobody reaps.
bool gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || line.substr(paren + 2, 1) == "Z";
}

// `pid` and its descendants, as /proc lists them now.
std::vector<pid_t> with_descendants(pid_t pid) {
  std::vector<pid_t> out = {pid};
  for (size_t i = 0; i < out.size(); ++i) {
    std::ifstream children("/proc/" + std::to_string(out[i]) + "/task/" + std::to_string(out[i]) + "/children");
    for (pid_t child; children >> child;) out.push_back(child);
  }
  return out;
}

// A tmux server with one window of 80x24 running `command` (a shell
// command), on a socket in `dir`. The destructor kills the server, and waits
// for it and the window's processes to be gone, however the test ended.
class TmuxWindow {
 public:
  TmuxWindow(const TempDir& dir, const std::string& tmux, const std::string& command)
      : dir_(dir), tmux_(tmux), socket_(dir.file("tmux.socket")) {
    const ProcessResult r = tmux_run({"-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", command});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string pids = tmux_run({"display-message", "-p", "#{pid} #{pane_pid}"}).out;
    std::istringstream in(pids);
    for (pid_t pid; in >> pid;) pids_.push_back(pid);
  }

  ~TmuxWindow() {
    // The window's shell with what it runs (timeout, swprof), then the server.
    std::vector<pid_t> pids = pids_.size() > 1 ? with_descendants(pids_[1]) : std::vector<pid_t>{};
    if (!pids_.empty()) pids.push_back(pids_[0]);
    tmux_run({"kill-server"});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (pid_t pid : pids)
      while (!gone(pid) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  TmuxWindow(const TmuxWindow&) = delete;
  TmuxWindow& operator=(const TmuxWindow&) = delete;

  // tmux send-keys: each a key name (Enter, Escape, Tab, Right) or text.
  void keys(const std::vector<std::string>& keys) {
    std::vector<std::string> args = {"send-keys", "-t", "0"};
    args.insert(args.end(), keys.begin(), keys.end());
    REQUIRE(tmux_run(args).exit_code == 0);
  }

  void resize(int width, int height) {
    REQUIRE(tmux_run({"resize-window", "-x", std::to_string(width), "-y", std::to_string(height)}).exit_code == 0);
  }

  std::string screen() { return tmux_run({"capture-pane", "-p", "-t", "0"}).out; }

  // The window's text once it shows all of `texts` (polled: the machine may
  // be slow); fails with the last text seen after a minute.
  std::string wait_for(const std::vector<std::string>& texts) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string text;
    for (;;) {
      text = screen();
      bool all = true;
      for (const std::string& t : texts) all = all && text.find(t) != std::string::npos;
      if (all) return text;
      if (std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (const std::string& t : texts) {
      INFO("window:\n" << text);
      CHECK(text.find(t) != std::string::npos);
    }
    FAIL("timed out waiting for the window");
    return text;
  }

 private:
  ProcessResult tmux_run(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "TMUX", tmux_, "-S", socket_};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, dir_.path(), 60);
  }

  const TempDir& dir_;
  std::string tmux_, socket_;
  std::vector<pid_t> pids_;  // the server's, the window's shell's
};

// A shell command: `swprof browse ARGS` with `env` (VAR=VALUE ...), then its
// exit status, then a wait for the window to close. Should the test runner
// itself be killed (no destructor runs), the window still ends on its own:
// browse after five minutes, the shell a minute later, and tmux with its
// last window.
std::string browse_command(const TempDir& dir, const std::string& env, const std::vector<std::string>& args) {
  std::string line = env + " timeout --foreground -k 5 300 " + quoted(swprof_bin()) + " browse";
  for (const std::string& a : args) line += " " + quoted(a);
  const std::string script = dir.file("browse.sh");
  std::ofstream(script) << line << "\necho \"browse exited $?\"\nsleep 60\n";
  return "/usr/bin/env -u LC_ALL -u LC_CTYPE -u LC_MESSAGES /bin/sh " + quoted(script);
}

}  // namespace

TEST_CASE("browse: in tmux at 80x24: search, open, callers and callees, annotate, quit", "[integration][browse]") {
  const std::string tmux = find_tmux();
  if (tmux.empty()) return;
  TempDir dir;
  TmuxWindow window(dir, tmux, browse_command(dir, "LANG=C.UTF-8", {stored_recording()}));
  window.wait_for({" Top functions by self  |  known_tiny.swprof", "  100.00   100.00       329  spin  [known_tiny]",
                   "spin: self 100.0%, total 100.0%  |  329 samples, 0.90 s, 1 thread  |  ? help"});
  window.keys({"Tab"});
  window.wait_for({" Calling-context tree", "\u25b8 _start  [known_tiny]"});
  window.keys({"/", "warm", "Enter"});
  window.wait_for({"\u25be compute  [known_tiny]", "\u25b8 warm  [known_tiny]", "warm: self 0.0%, total 31.0%"});
  window.keys({"Right"});
  window.wait_for({"\u25be warm  [known_tiny]", "  31.00%   31.00%            spin  [known_tiny]"});
  window.keys({"c"});
  window.wait_for({" Callers and callees of warm  [known_tiny]", "\u25be warm  [known_tiny]  (callers)",
                   "\u25be compute  [known_tiny]", "  31.00%   31.00%      spin  [known_tiny]"});
  window.keys({"Escape"});
  window.wait_for({" Calling-context tree  |"});
  window.keys({"?"});
  window.wait_for({" Help  |", "  /                 search function names as you type"});
  window.keys({"Escape"});
  window.wait_for({" Calling-context tree  |"});
  window.keys({"Tab"});
  window.wait_for({" Top functions by self  |"});
  window.keys({"a"});
  window.wait_for({" Annotation of spin  [known_tiny]", "       270  82.1%       400195  cmpq %rax, %rdi"});
  window.keys({"q"});
  window.wait_for({"browse exited 0"});
}

TEST_CASE("browse: in tmux without UTF-8: ASCII marks, a resized window is drawn at its new size", "[integration][browse]") {
  const std::string tmux = find_tmux();
  if (tmux.empty()) return;
  TempDir dir;
  TmuxWindow window(dir, tmux, browse_command(dir, "LANG=C", {"--inlined", "separate", stored_recording()}));
  window.wait_for({" Top functions by self"});
  window.keys({"Tab", "Enter"});  // a path without branches opens in one step: _start, then run
  window.wait_for({"- _start  [known_tiny]", "- run  [known_tiny]", "+ compute  [known_tiny]", "+ cold  [known_tiny]",
                   "_start: self 0.0%, total 100.0%  |  329 samples, 0.90 s, 1 thread  |  ? help"});
  window.resize(60, 12);
  // At 60 columns the selected name keeps its room and the totals go.
  CHECK(lines_of(window.wait_for({"_start: self 0.0%, total 100.0%  |  ? help"})).size() == 12);
  window.keys({"q"});
  window.wait_for({"browse exited 0"});
}

TEST_CASE("browse: in tmux, a recording made here: the hottest function first, its annotation with its source, its callers",
          "[integration][browse]") {
  const std::string tmux = find_tmux();
  if (tmux.empty()) return;
  TempDir dir;
  // known_hot_line: _start -> run -> hash_buf, whose time is on one line.
  const ProcessResult rec = run({swprof_bin(), "record", "-F", "999", "-o", dir.file("hot.swprof"), "--",
                                 std::string(KNOWN_STACK_DIR) + "/known_hot_line"},
                                dir.path());
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  TmuxWindow window(dir, tmux,
                    browse_command(dir, "LANG=C.UTF-8", {"--source-dir", SYM_SOURCE_DIR, dir.file("hot.swprof")}));
  const std::vector<std::string> rows = lines_of(window.wait_for({" Top functions by self  |  hot.swprof", "? help"}));
  REQUIRE(rows.size() > 2);
  CHECK(rows[2].find("  hash_buf  [known_hot_line]") != std::string::npos);
  window.keys({"a"});
  window.wait_for({" Annotation of hash_buf  [known_hot_line]", "h = h / d * 7 + data[i];   // @hot-line"});
  window.keys({"Escape"});
  window.wait_for({" Top functions by self  |"});
  window.keys({"c"});
  window.wait_for({" Callers and callees of hash_buf  [known_hot_line]", "run  [known_hot_line]",
                   "hash_buf  [known_hot_line]  (callees)"});
  window.keys({"q"});
  window.wait_for({"browse exited 0"});
}

TEST_CASE("browse: a TERM this machine has no description of is one line, before the file is read", "[integration][browse]") {
  const std::string tmux = find_tmux();
  if (tmux.empty()) return;
  TempDir dir;
  TmuxWindow window(dir, tmux, browse_command(dir, "LANG=C.UTF-8 TERM=nosuchterm", {stored_recording()}));
  const std::string text =
      window.wait_for({"swprof: error: cannot use the terminal: TERM is 'nosuchterm'", "browse exited 2"});
  CHECK(text.find("samples in") == std::string::npos);  // no summary of a file read for nothing
}

TEST_CASE("browse: without a terminal, one line that points at report, exit 2", "[integration][browse]") {
  TempDir dir;
  const ProcessResult r = run({swprof_bin(), "browse", stored_recording()}, dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "swprof: error: browse needs a terminal, and its standard output is not one (for a text report: "
                 "swprof report)\n");
}
