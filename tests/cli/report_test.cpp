// `swprof report` end to end on real recordings of the known-stack program:
// every format, the filters, and bad input.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "binary/elf_binary.h"
#include "common/hex.h"
#include "output/json_profile_writer.h"
#include "output/text_width.h"
#include "recording/recording_format.h"
#include "support/cli_harness.h"
#include "support/recording_layout.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

std::string known_bin(const std::string& variant) { return std::string(KNOWN_STACK_DIR) + "/known_stack_" + variant; }

// One recording shared by the tests: four threads in thread_main -> a -> b -> c -> leaf.
const std::string& threads_recording() {
  static TempDir dir;
  static std::string path;
  if (path.empty()) {
    path = dir.file("threads.swprof");
    auto r = run({swprof_bin(), "record", "-F", "999", "-o", path, "--", known_bin("O2_fp"), "threads", "0.6"}, dir.path());
    REQUIRE(r.exit_code == 0);
  }
  return path;
}

std::map<std::string, uint64_t> parse_folded(const std::string& text) {
  std::map<std::string, uint64_t> stacks;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.rfind(' ');
    REQUIRE(sp != std::string::npos);
    stacks[line.substr(0, sp)] += std::stoull(line.substr(sp + 1));
  }
  return stacks;
}

uint64_t total(const std::map<std::string, uint64_t>& stacks) {
  uint64_t n = 0;
  for (const auto& [s, c] : stacks) n += c;
  return n;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ProcessResult report(std::vector<std::string> args) {
  std::vector<std::string> argv = {swprof_bin(), "report", threads_recording()};
  argv.insert(argv.end(), args.begin(), args.end());
  static TempDir work;  // run() leaves the captured stdout and stderr there
  return run(argv, work.path());
}

}  // namespace

TEST_CASE("report folded: the known path carries the samples, names from symbols") {
  auto r = report({"-f", "folded"});
  REQUIRE(r.exit_code == 0);
  const auto stacks = parse_folded(r.out);
  uint64_t known = 0;
  for (const auto& [s, c] : stacks)
    if (ends_with(s, ";thread_main;a;b;c;leaf")) known += c;
  INFO(r.out);
  CHECK(total(stacks) > 1000);  // 4 threads x 0.6 s at 999 Hz
  CHECK(known >= total(stacks) * 9 / 10);
  // The summary line on stderr.
  CHECK(r.err.find("swprof report: ") != std::string::npos);
  CHECK(r.err.find("complete stacks") != std::string::npos);
}

TEST_CASE("report json: valid against the schema, totals consistent, read back") {
  TempDir dir;
  const std::string json_path = dir.file("p.json");
  REQUIRE(report({"-f", "json", "-o", json_path}).exit_code == 0);
  auto check = run({"/usr/bin/env", "python3", SCHEMA_CHECKER, SCHEMA_FILE, json_path}, dir.path());
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);

  std::ifstream in(json_path);
  const auto doc = nlohmann::json::parse(in);
  const auto& nodes = doc["nodes"];
  CHECK(nodes[0]["total"] == doc["metadata"]["samples"]);
  uint64_t self_sum = 0;
  for (const auto& n : nodes) self_sum += n["self"].get<uint64_t>();
  CHECK(self_sum == nodes[0]["total"].get<uint64_t>());
  CHECK(doc["threads"].size() >= 4);

  // The JSON profile reads back into the same folded stacks.
  auto from_recording = report({"-f", "folded"});
  auto from_json = run({swprof_bin(), "report", json_path, "-f", "folded"}, dir.path());
  REQUIRE(from_json.exit_code == 0);
  CHECK(from_json.out == from_recording.out);
}

TEST_CASE("report speedscope: one sampled profile per thread") {
  auto r = report({"-f", "speedscope"});
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["$schema"] == "https://www.speedscope.app/file-format-schema.json");
  CHECK(doc["profiles"].size() >= 4);
  for (const auto& p : doc["profiles"]) {
    CHECK(p["type"] == "sampled");
    CHECK(p["samples"].size() == p["weights"].size());
  }
}

TEST_CASE("report text: header, leaf on top, tree") {
  auto r = report({});
  REQUIRE(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.find("command:   " + known_bin("O2_fp") + " threads 0.6") != std::string::npos);
  CHECK(r.out.find("event:     cpu-clock at 999 Hz") != std::string::npos);
  const auto top = r.out.find("Top functions by self samples:");
  REQUIRE(top != std::string::npos);
  const auto first_row = r.out.find('\n', r.out.find('\n', top) + 1) + 1;
  CHECK(r.out.substr(first_row, r.out.find('\n', first_row) - first_row).find("  leaf  [known_stack_O2_fp]") !=
        std::string::npos);
  CHECK(r.out.find("Calling-context tree") != std::string::npos);
}

TEST_CASE("report filters: tid, comm, include, exclude, time window, reverse, per-thread") {
  const auto all = parse_folded(report({"-f", "folded"}).out);
  const uint64_t n = total(all);

  auto per_thread = report({"-f", "folded", "--per-thread"});
  REQUIRE(per_thread.exit_code == 0);
  std::map<std::string, uint64_t> by_root;
  for (const auto& [s, c] : parse_folded(per_thread.out)) by_root[s.substr(0, s.find(';'))] += c;
  CHECK(by_root.size() >= 4);
  std::string busiest;
  for (const auto& [root, c] : by_root)
    if (busiest.empty() || c > by_root[busiest]) busiest = root;
  // "known_stack_O2_ [1234]": the tid between the brackets.
  const std::string tid = busiest.substr(busiest.rfind('[') + 1, busiest.size() - busiest.rfind('[') - 2);
  const auto one = parse_folded(report({"-f", "folded", "--tid", tid}).out);
  CHECK(total(one) == by_root[busiest]);

  CHECK(total(parse_folded(report({"-f", "folded", "--comm", "no-such-thread"}).out)) == 0);
  CHECK(total(parse_folded(report({"-f", "folded", "--comm", busiest.substr(0, busiest.find(" ["))}).out)) == n);

  const auto with_leaf = parse_folded(report({"-f", "folded", "--include", "^leaf$"}).out);
  const auto without_leaf = parse_folded(report({"-f", "folded", "--exclude", "^leaf$"}).out);
  CHECK(total(with_leaf) + total(without_leaf) == n);
  for (const auto& [s, c] : with_leaf) CHECK((ends_with(s, ";leaf") || s.find(";leaf;") != std::string::npos));
  for (const auto& [s, c] : without_leaf) CHECK((!ends_with(s, ";leaf") && s.find(";leaf;") == std::string::npos));

  const auto reversed = parse_folded(report({"-f", "folded", "--reverse"}).out);
  CHECK(total(reversed) == n);
  uint64_t leaf_first = 0;
  for (const auto& [s, c] : reversed)
    if (s.rfind("leaf;c;b;a;thread_main", 0) == 0) leaf_first += c;
  CHECK(leaf_first >= n * 9 / 10);

  const auto early = total(parse_folded(report({"-f", "folded", "--to", "0.25"}).out));
  const auto late = total(parse_folded(report({"-f", "folded", "--from", "0.25"}).out));
  CHECK(early + late == n);
  CHECK(early > 0);
  CHECK(late > 0);
}

TEST_CASE("report bad input: one line, exit 2, no output written") {
  TempDir dir;
  auto one_line_error = [](const ProcessResult& r, const std::string& what) {
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(line_count(r.err) == 1);
  };
  one_line_error(report({"-f", "svg"}), "unknown format 'svg'");
  one_line_error(report({"--include", "("}), "invalid --include regex");
  one_line_error(run({swprof_bin(), "report", dir.file("missing.swprof")}, dir.path()), "No such file");
  one_line_error(run({swprof_bin(), "report"}, dir.path()), "run 'swprof record' first");
  // An output that cannot be written: nothing else appears.
  one_line_error(report({"-o", dir.path()}), "cannot write");
  const std::string out = dir.file("out.txt");
  one_line_error(report({"-f", "nope", "-o", out}), "unknown format");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("report on a cut recording: a warning, and the samples before the cut") {
  TempDir dir;
  const std::string cut = dir.file("cut.swprof");
  std::filesystem::copy_file(threads_recording(), cut);
  // Cut in the middle of the last chunk: the chunks before it stay whole.
  const std::vector<ChunkSpan> spans = chunk_spans(read_bytes(cut));
  std::vector<uint64_t> chunk_ends;
  for (const ChunkSpan& s : spans) chunk_ends.push_back(s.end);
  REQUIRE(chunk_ends.size() >= 2);
  const uint64_t before_last = chunk_ends[chunk_ends.size() - 2];
  std::filesystem::resize_file(cut, before_last + (chunk_ends.back() - before_last) / 2);
  auto r = run({swprof_bin(), "report", cut, "-f", "folded"}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: recording '" + cut + "' is") != std::string::npos);
  CHECK(total(parse_folded(r.out)) > 0);
}

TEST_CASE("report with a binary removed since recording: one warning, its frames unknown, the rest named") {
  TempDir dir;
  const std::string app = dir.file("app");
  std::filesystem::copy_file(known_bin("O2_fp"), app);
  const std::string rec = dir.file("gone.swprof");
  // Without the build-id cache, which would keep the program.
  REQUIRE(run({swprof_bin(), "record", "--no-cache", "-o", rec, "--", app, "leaf", "0.3"}, dir.path()).exit_code == 0);
  std::filesystem::remove(app);
  auto r = run({swprof_bin(), "report", "--no-cache", rec, "-f", "folded", "--modules"}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: ") != std::string::npos);
  CHECK(r.err.find(app) != std::string::npos);
  const auto stacks = parse_folded(r.out);
  CHECK(total(stacks) > 0);
  bool unknown_app = false, named_libc = false;
  for (const auto& [s, c] : stacks) {
    unknown_app |= s.find("app`[unknown] app+0x") != std::string::npos;
    named_libc |= s.find("libc.so.6`__libc_start_main") != std::string::npos;
    CHECK(s.find("`leaf") == std::string::npos);
  }
  CHECK(unknown_app);
  CHECK(named_libc);
}

namespace {

// A debuginfod "server" that takes connections into its backlog and never
// answers: a client that asks it waits for its timeout.
struct SilentServer {
  int fd = -1;
  int port = 0;
  SilentServer() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd, 64) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
  }
  ~SilentServer() { ::close(fd); }
  bool was_asked() const {
    const int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) return false;
    ::close(c);
    return true;
  }
};

}  // namespace

TEST_CASE("report asks debuginfod servers only with --debuginfod") {
  // Debian's python3 is stripped, with a build-id and no debuginfo
  // installed: elfutils would ask the servers for it.
  const std::string python = "/usr/bin/python3";
  REQUIRE(std::filesystem::exists(python));
  TempDir home;
  const std::string recording = home.file("py.swprof");
  REQUIRE(run({swprof_bin(), "record", "-F", "999", "-o", recording, "--", python, "-c", "sum(range(3 * 10**7))"},
              home.path())
              .exit_code == 0);
  SilentServer server;
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {"/usr/bin/env",        "HOME=" + home.path(),
                                     "DEBUGINFOD_URLS=http://127.0.0.1:" + std::to_string(server.port),
                                     "DEBUGINFOD_TIMEOUT=1", swprof_bin(), "report", recording, "-f", "folded",
                                     "-o",                   home.file("out.txt")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv, home.path());
  };
  SECTION("without it: no connection, nothing written under HOME") {
    auto r = with({});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(!server.was_asked());
    CHECK(!std::filesystem::exists(home.path() + "/.cache"));
  }
  SECTION("with it: the server is asked (and its silence only costs its timeout)") {
    auto r = with({"--debuginfod"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(server.was_asked());
  }
}

TEST_CASE("report folded: a stripped program's unnamed functions are one frame each, named by their start") {
  // known_stack_O2_nofp_nocfi.stripped: no symbols, no CFI for its own code.
  // Every sample in leaf, wherever in leaf, folds into one frame
  // "[unknown] MODULE+0xSTART" with START leaf's start offset (from the twin).
  const std::string program = known_bin("O2_nofp_nocfi");
  auto twin = swprof::ElfBinary::open(program);
  REQUIRE(twin);
  auto frame = [&](const char* fn) {
    const swprof::FunctionSymbol* f = twin->function_named(fn);
    REQUIRE(f);
    char buf[128];
    snprintf(buf, sizeof buf, "[unknown] known_stack_O2_nofp_nocfi.stripped+0x%llx",
             static_cast<unsigned long long>(*twin->file_offset_of(f->start)));
    return std::string(buf);
  };
  // main is named by the entry code that hands it to __libc_start_main
  // (binary/startup_functions.h).
  const std::string path = ";main;" + frame("a") + ";" + frame("b") + ";" + frame("c") + ";" + frame("leaf");
  TempDir dir;
  const std::string recording = dir.file("stripped.swprof");
  REQUIRE(run({swprof_bin(), "record", "-F", "999", "-o", recording, "--", program + ".stripped", "leaf", "0.5"},
              dir.path()).exit_code == 0);
  auto r = run({swprof_bin(), "report", recording, "-f", "folded"}, dir.path());
  REQUIRE(r.exit_code == 0);
  const auto stacks = parse_folded(r.out);
  uint64_t known = 0;
  for (const auto& [s, c] : stacks)
    if (ends_with(s, path)) known += c;
  INFO(r.out);
  CHECK(total(stacks) > 300);
  CHECK(known >= total(stacks) * 9 / 10);
}

TEST_CASE("report text and folded with --no-inline never read DWARF, outputs with lines or inline frames do") {
  // The program's DWARF is in a separate debug file whose compressed
  // .debug_info claims a terabyte: opening its DWARF gives a warning that
  // names the section (which is then set aside).
  TempDir dir;
  const std::string app = dir.file("app");
  const std::string debug = dir.file("app.debug");
  std::filesystem::copy_file(known_bin("O2_fp"), app);
  REQUIRE(std::system(("objcopy --only-keep-debug " + app + " " + debug + " && strip -g " + app +
                       " && objcopy --compress-debug-sections=zlib " + debug)
                          .c_str()) == 0);
  auto binary = swprof::ElfBinary::open(app);
  REQUIRE(binary);
  const std::string hex = swprof::to_hex(swprof::Bytes(binary->build_id().data(), binary->build_id().size()));
  REQUIRE(hex.size() > 2);
  const std::string root = dir.file("debug");
  const std::string placed = root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  std::filesystem::create_directories(std::filesystem::path(placed).parent_path());
  std::filesystem::rename(debug, placed);
  {
    auto info = swprof::ElfBinary::open(placed)->section(".debug_info");
    REQUIRE(info);
    std::fstream f(placed, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(info->offset + 8));  // Elf64_Chdr's ch_size
    const uint64_t claimed = uint64_t{1} << 40;
    f.write(reinterpret_cast<const char*>(&claimed), sizeof claimed);
    REQUIRE(f.good());
  }
  const std::string rec = dir.file("app.swprof");
  REQUIRE(run({swprof_bin(), "record", "-o", rec, "--", app, "leaf", "0.3"}, dir.path()).exit_code == 0);
  auto warns = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {swprof_bin(), "report", rec, "--debug-dir", root, "-o", dir.file("out")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = run(argv, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.err.find("ignored the compressed .debug_info section of " + placed) != std::string::npos;
  };
  CHECK_FALSE(warns({"--no-inline"}));
  CHECK_FALSE(warns({"-f", "folded", "--no-inline"}));
  CHECK(warns({}));
  CHECK(warns({"-f", "json", "--no-inline"}));
}

// --debug-dir takes one root per option: a recording named after it is the
// recording, not a second root.
TEST_CASE("report, script: a recording after --debug-dir ROOT is the recording", "[cli][report]") {
  TempDir dir;
  const std::string rec = dir.file("true.swprof");
  REQUIRE(run({swprof_bin(), "record", "-o", rec, "--", "/bin/true"}, dir.path()).exit_code == 0);
  for (const char* command : {"report", "script"}) {
    auto r = run({swprof_bin(), command, "--debug-dir", dir.path(), "--debug-dir", dir.file("none"), rec}, dir.path());
    INFO(command << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("cannot open recording") == std::string::npos);
  }
}

namespace {

// A JSON profile of a recursion 60 calls deep through long C++ names.
std::string deep_json_profile(const TempDir& dir) {
  swprof::Profile p;
  p.source = "deep.swprof";
  p.header.event = "cpu-clock";
  std::vector<uint32_t> stack;
  for (int level = 0; level < 60; ++level) {
    swprof::CctFrame f;
    f.function = "engine::detail::Visitor<std::vector<std::pair<int, std::string>>>::visit_level_" +
                 std::to_string(level) + "(Node<std::map<int, long>> const&)";
    f.module = "libengine.so";
    stack.push_back(p.tree.intern(f));
    p.tree.add(stack, 2, 2);
  }
  p.samples_read = p.samples_kept = p.tree.total();
  const std::string path = dir.file("deep.json");
  std::ofstream out(path);
  swprof::write_json_profile(p, out);
  return path;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("report text: COLUMNS=80 fits every line in 80 columns, piped or written to a file, lines stay whole") {
  TempDir dir;
  const std::string profile = deep_json_profile(dir);
  {
    ScopedEnv columns("COLUMNS", "80");
    auto r = run({swprof_bin(), "report", profile, "--min-percent", "0", "--top", "1"}, dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    INFO(r.out);
    size_t named = 0;
    for (const std::string& line : lines_of(r.out)) {
      CHECK(swprof::display_width(line) <= 80);
      if (line.find("visit_level_") == std::string::npos) continue;
      ++named;
      CHECK(line.find_first_not_of(' ') == line.find_first_of("0123456789"));  // never a name on a line of its own
    }
    CHECK(named == 61);  // 60 in the tree, the leaf in the top table
    CHECK(r.out.find("::visit_level_59(\u2026)") != std::string::npos);

    // --width wins over COLUMNS; a file gets whole lines.
    auto wide = run({swprof_bin(), "report", profile, "--min-percent", "0", "--width", "0"}, dir.path());
    CHECK(wide.out.find("visit_level_59(Node<std::map<int, long>> const&)  [libengine.so]") != std::string::npos);
    auto file = run({swprof_bin(), "report", profile, "--min-percent", "0", "-o", dir.file("r.txt")}, dir.path());
    CHECK(file.exit_code == 0);
    std::ifstream in(dir.file("r.txt"));
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == wide.out);
  }
  {
    ScopedEnv columns("COLUMNS", std::nullopt);
    auto piped = run({swprof_bin(), "report", profile, "--min-percent", "0"}, dir.path());
    CHECK(piped.out.find("visit_level_59(Node<std::map<int, long>> const&)  [libengine.so]") != std::string::npos);
    auto narrow = run({swprof_bin(), "report", profile, "--width", "12"}, dir.path());
    CHECK(narrow.exit_code == 2);
    CHECK(narrow.err.find("--width 12 is too narrow") != std::string::npos);
    CHECK(line_count(narrow.err) == 1);
  }
}

namespace {

// The rows of the text report's top table.
std::vector<std::string> top_rows(const std::string& report) {
  const size_t from = report.find("Top functions"), to = report.find("Calling-context tree");
  std::vector<std::string> rows = lines_of(report.substr(from, to - from));
  return {rows.begin() + 2, rows.end() - 1};  // without the title, the heading and the blank line
}

std::vector<std::string> rows_naming(const std::vector<std::string>& rows, const std::string& function) {
  std::vector<std::string> out;
  for (const std::string& r : rows)
    if (r.find("  " + function + "  ") != std::string::npos) out.push_back(r);
  return out;
}

double self_percent(const std::string& row) { return std::stod(row); }

}  // namespace

TEST_CASE("report text: a comparator inlined into a merge sort and called by qsort is one row, its inlined share shown") {
  TempDir dir;
  const std::string rec = dir.file("sort.swprof");
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_sort";
  auto r = run({swprof_bin(), "record", "-F", "999", "-o", rec, "--", program, "0.4"}, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto report = [&](const std::string& inlined) {
    auto out = run({swprof_bin(), "report", rec, "--width", "0", "--inlined", inlined}, dir.path());
    INFO(out.err);
    REQUIRE(out.exit_code == 0);
    return out.out;
  };
  const std::string merged = report("merge");
  INFO(merged);
  const auto one = rows_naming(top_rows(merged), "compare_entries");
  REQUIRE(one.size() == 1);
  CHECK(one[0].find("[known_sort] (inlined ") != std::string::npos);  // some, not all, of it inlined
  CHECK(self_percent(one[0]) > 50);
  // The tree keeps the inlined copies as nodes of their own.
  CHECK(merged.find("compare_entries  [known_sort] (inlined)\n", merged.find("Calling-context tree")) !=
        std::string::npos);

  const auto two = rows_naming(top_rows(report("separate")), "compare_entries");
  REQUIRE(two.size() == 2);
  CHECK((two[0].find("(inlined)") == std::string::npos) != (two[1].find("(inlined)") == std::string::npos));

  // Charged to the function it was inlined into, the merge step's own
  // share grows past what it has by itself.
  const auto caller_rows = top_rows(report("caller"));
  const auto by_caller = rows_naming(caller_rows, "compare_entries");
  REQUIRE(by_caller.size() == 1);
  CHECK(by_caller[0].find("(inlined") == std::string::npos);
  CHECK(self_percent(by_caller[0]) < self_percent(one[0]));
  const auto merge_step = rows_naming(caller_rows, "merge_runs");
  REQUIRE(merge_step.size() == 1);
  CHECK(self_percent(merge_step[0]) > self_percent(rows_naming(top_rows(merged), "merge_runs").at(0)) + 10);
}
