// Names a profiled program controls (functions, modules, files, threads, its
// command) reach a terminal and pull-request comments: no escape sequence may
// come out raw and no markdown may come alive.

#include <catch2/catch.hpp>
#include <sstream>

#include "compare/diff_markdown.h"
#include "compare/diff_text.h"
#include "output/context_stack.h"
#include "output/info_text.h"
#include "output/report.h"
#include "output/script_writer.h"
#include "support/pprof_text.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::string kClear = "evil\x1b[2Jname";                      // clears the screen
const std::string kTitle = "\x1b]0;pwned\x07title";                // sets the window title
const std::string kImage = "![x](http://example.invalid/x.png)";   // an image in a PR comment
const std::string kHtml = "<img src=x onerror=alert(1)>";
const std::string kTicks = "tick`s``|pipe|";
const std::string kLines = "two\nlines\r";
const std::string kC1 = "c1\xc2\x9b" "2J\x9b";                     // U+009B and a lone 0x9b
const std::string kProgram = "![p](x.png)<img src=p>" + kTitle;

// The first byte that a terminal would act on: C0 controls but '\n', DEL,
// U+0080-U+009F, and a continuation byte with no lead byte. npos when none.
size_t raw_control(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<uint8_t>(text[i]);
    const auto prev = i ? static_cast<uint8_t>(text[i - 1]) : 0;
    if ((b < 0x20 && b != '\n') || b == 0x7f) return i;
    if (b == 0xc2 && i + 1 < text.size() && static_cast<uint8_t>(text[i + 1]) < 0xa0) return i;
    if (b >= 0x80 && b < 0xc0 && prev < 0x80) return i;
  }
  return std::string::npos;
}

#define CHECK_NO_RAW_CONTROL(text)                \
  do {                                            \
    const std::string t_ = (text);                \
    INFO(t_);                                     \
    CHECK(raw_control(t_) == std::string::npos);  \
  } while (0)

// The line with its code spans taken out (CommonMark 6.1: a run of n
// backquotes opens a span that the next run of exactly n closes; a
// backslash-escaped character is literal).
std::string outside_code_spans(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      out += line.substr(i, 2);
      i += 2;
      continue;
    }
    if (line[i] != '`') {
      out += line[i++];
      continue;
    }
    const size_t run = line.find_first_not_of('`', i) == std::string::npos ? line.size() - i
                                                                           : line.find_first_not_of('`', i) - i;
    size_t close = i + run;
    for (;;) {
      close = line.find('`', close);
      if (close == std::string::npos) break;
      const size_t end = line.find_first_not_of('`', close);
      const size_t len = (end == std::string::npos ? line.size() : end) - close;
      if (len == run) break;
      close += len;
    }
    if (close == std::string::npos) {
      out += line.substr(i, run);
      i += run;
    } else {
      out += "<code>";
      i = close + run;
    }
  }
  return out;
}

// `what` appears in markdown text without a backslash escaping its first character.
bool live(const std::string& text, const std::string& what) {
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    if (at == 0 || text[at - 1] != '\\') return true;
  return false;
}

// Cell separators of a GitHub table row: '|' not after a backslash,
// code spans included (the table is split before spans are read).
size_t table_pipes(const std::string& line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++n;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

Profile hostile_profile(uint64_t each, uint64_t plain, const std::string& program) {
  Profile p;
  p.source = "hostile\x1b[2J.json";
  p.header.command = {program, "--name", kTitle};
  p.header.event = "cpu-clock";
  p.header.host = "host\x1b]0;x\x07";
  p.header.kernel_release = "6.1\x1b[31m";
  p.header.start_unix_ns = 1'700'000'000'000'000'000;
  p.threads[7] = ProfileThread{7, kTitle, each};
  for (const std::string& name : {kClear, kTitle, kImage, kHtml, kTicks, kLines, kC1})
    add_stack(p.tree, {fn("main"), fn(name, "lib<b>|" + kClear)}, name == kTicks ? 2 * each : each);
  add_stack(p.tree, {fn("main"), fn("plain")}, plain);
  p.tree.sort_children();
  p.samples_read = p.samples_kept = p.tree.total();
  return p;
}

ProfileDiff hostile_diff() {
  static const Profile base = hostile_profile(100, 1300, "./bench");
  static const Profile next = hostile_profile(300, 100, "./" + kProgram);
  return diff_profiles(base, next, {});
}

}  // namespace

TEST_CASE("hostile names: text report shows escapes, never raw control bytes", "[hostile]") {
  std::ostringstream out;
  write_text_report(hostile_profile(10, 10, "./app" + kClear), {}, out);
  CHECK_NO_RAW_CONTROL(out.str());
  CHECK_THAT(out.str(), Catch::Contains("evil\\x1b[2Jname  [lib<b>|evil\\x1b[2Jname]"));
  CHECK_THAT(out.str(), Catch::Contains("\\x1b]0;pwned\\x07title"));
  CHECK_THAT(out.str(), Catch::Contains("two\\x0alines\\x0d"));
  CHECK_THAT(out.str(), Catch::Contains("c1\\xc2\\x9b2J\\x9b"));
  CHECK_THAT(out.str(), Catch::Contains("command:   $'./appevil\\x1b[2Jname' --name $'\\x1b]0;pwned\\x07title'"));
  CHECK_THAT(out.str(), Catch::Contains("on host\\x1b]0;x\\x07 (Linux 6.1\\x1b[31m)"));
}

TEST_CASE("hostile names: folded lines stay one stack a line", "[hostile]") {
  const Profile p = hostile_profile(10, 10, "./app");
  for (bool modules : {false, true}) {
    std::ostringstream out;
    FoldedOptions o;
    o.modules = modules;
    write_folded(p.tree, o, out);
    CHECK_NO_RAW_CONTROL(out.str());
    CHECK(lines_of(out.str()).size() == 8);
    CHECK_THAT(out.str(), Catch::Contains("two_lines_ 10"));
    CHECK_THAT(out.str(), Catch::Contains("evil\\x1b[2Jname 10"));
    CHECK_THAT(out.str(), Catch::Contains("\\x1b]0_pwned\\x07title 10"));  // ';' separates frames
  }
}

TEST_CASE("hostile names: diff text shows escapes, never raw control bytes", "[hostile]") {
  const ProfileDiff d = hostile_diff();
  REQUIRE(d.regressed());
  std::ostringstream out;
  write_diff_text(d, {}, out);
  CHECK_NO_RAW_CONTROL(out.str());
  CHECK_THAT(out.str(), Catch::Contains("REGRESSION"));
  CHECK_THAT(out.str(), Catch::Contains("main > evil\\x1b[2Jname"));
  CHECK_THAT(out.str(), Catch::Contains("$'./![p](x.png)<img src=p>\\x1b]0;pwned\\x07title'"));
}

TEST_CASE("hostile names: diff markdown renders every name as literal text", "[hostile]") {
  const ProfileDiff d = hostile_diff();
  std::ostringstream out;
  DiffReportOptions o;
  o.top = 50;
  write_diff_markdown(d, o, out);
  const std::string md = out.str();
  CHECK_NO_RAW_CONTROL(md);
  // The names, as code spans (in tables '|' escaped for the table parser).
  CHECK_THAT(md, Catch::Contains("`![x](http://example.invalid/x.png)`"));
  CHECK_THAT(md, Catch::Contains("`<img src=x onerror=alert(1)>`"));
  CHECK_THAT(md, Catch::Contains("```tick`s``\\|pipe\\|```"));   // a table cell
  CHECK_THAT(md, Catch::Contains("```tick`s``|pipe|```"));       // the summary line
  CHECK_THAT(md, Catch::Contains("`evil\\x1b[2Jname`"));
  CHECK_THAT(md, Catch::Contains("`two\\x0alines\\x0d`"));
  // The warning about the other program is escaped text.
  CHECK_THAT(md, Catch::Contains("\\!\\[p\\](x.png)\\<img src=p\\>\\\\x1b\\]0;pwned\\\\x07title"));
  size_t header_pipes = 0;
  for (const std::string& line : lines_of(md)) {
    INFO(line);
    const std::string rest = outside_code_spans(line);
    CHECK_FALSE(live(rest, "!["));
    CHECK_FALSE(live(rest, "<img"));
    CHECK_FALSE(live(rest, "<b>"));
    if (line.rfind("| Gate", 0) == 0 || line.rfind("| Context id", 0) == 0 || line.rfind("| Function", 0) == 0)
      header_pipes = table_pipes(line);
    else if (!line.empty() && line[0] == '|')
      CHECK(table_pipes(line) == header_pipes);
  }
}

TEST_CASE("hostile names: a decoded context id shows escapes", "[hostile]") {
  const Profile p = hostile_profile(10, 10, "./app");
  uint64_t id = 0;
  for (const CctNode& n : p.tree.nodes())
    if (n.frame != CallTree::kNoFrame && p.tree.frame(n.frame).function == kTitle) id = n.context_id;
  REQUIRE(id);
  std::ostringstream out;
  write_context_stack(p, id, out);
  CHECK_NO_RAW_CONTROL(out.str());
  CHECK_THAT(out.str(), Catch::Contains("in hostile\\x1b[2J.json"));
  CHECK_THAT(out.str(), Catch::Contains("\\x1b]0;pwned\\x07title  [lib<b>|evil\\x1b[2Jname]"));
}

TEST_CASE("hostile names: script frames show escapes", "[hostile]") {
  SymbolizedAddress where;
  SourceFrame inl;
  inl.function = kClear;
  inl.file = "/src/\x1b[31m.c";
  inl.line = 3;
  inl.inlined = true;
  SourceFrame outer;
  outer.function = kTitle;
  outer.module = "lib\x1b[2J.so";
  outer.file = "/src/a.c";
  where.frames = {inl, outer};
  Frame frame;
  frame.pc = 0x1234;
  const std::string user = format_user_frame(frame, where);
  const auto lines = lines_of(user);
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) {
    CHECK(line[0] == '\t');  // the format's own column separator
    CHECK_NO_RAW_CONTROL(line.substr(1));
  }
  CHECK_THAT(user, Catch::Contains("evil\\x1b[2Jname (inlined) /src/\\x1b[31m.c:3"));
  CHECK_THAT(user, Catch::Contains("\\x1b]0;pwned\\x07title+0x0 (lib\\x1b[2J.so+0x0) /src/a.c"));
  SymbolizedAddress kernel;
  kernel.frames = {outer};
  const std::string k = format_kernel_frame(0xffff, kernel);
  CHECK_NO_RAW_CONTROL(k.substr(1));
  CHECK_THAT(k, Catch::Contains("\\x1b]0;pwned\\x07title+0x0 (lib\\x1b[2J.so)"));
}

TEST_CASE("hostile names: info shows escapes for the command, host, threads and paths", "[hostile]") {
  RecordingInfo info;
  info.header.command = {"./app", "a b", "it's", kClear};
  info.header.host = "host\x1b]0;x\x07";
  info.header.event = "cpu-clock";
  info.threads[5] = ThreadInfo{5, kTitle, 1};
  info.binaries["/lib/\x1b[2J.so"] = BinaryInfo{"", 1};
  const std::string text = format_info(info);
  CHECK_NO_RAW_CONTROL(text);
  CHECK_THAT(text, Catch::Contains("command:      ./app 'a b' $'it\\'s' $'evil\\x1b[2Jname'"));
  CHECK_THAT(text, Catch::Contains("host:         host\\x1b]0;x\\x07"));
  CHECK_THAT(text, Catch::Contains("\\x1b]0;pwned\\x07title"));
  CHECK_THAT(text, Catch::Contains("/lib/\\x1b[2J.so"));
}

TEST_CASE("quote_command: arguments a shell reads back, control bytes as $'\\xNN'", "[hostile]") {
  CHECK(quote_command({"./app", "--fast"}) == "./app --fast");
  CHECK(quote_command({"a b", "", "$HOME"}) == "'a b' '' '$HOME'");
  CHECK(quote_command({"it's", "back\\slash'"}) == "$'it\\'s' $'back\\\\slash\\''");
  CHECK(quote_command({"tab\there", "\x1b[2J"}) == "$'tab\\x09here' $'\\x1b[2J'");
  CHECK(quote_command({"größe"}) == "größe");
}

TEST_CASE("hostile names: pprof strings are valid UTF-8 with escapes, never raw control bytes", "[hostile]") {
  std::ostringstream out;
  write_pprof(hostile_profile(10, 10, "./app" + kClear), out);
  const perftools::profiles::Profile p = read_pprof(out.str());  // a proto3 string must be UTF-8 to parse
  std::string all;
  for (const auto& s : p.string_table()) {
    CHECK_NO_RAW_CONTROL(s);
    all += s + "\n";
  }
  CHECK_THAT(all, Catch::Contains("evil\\x1b[2Jname\n"));
  CHECK_THAT(all, Catch::Contains("\\x1b]0;pwned\\x07title"));
  CHECK_THAT(all, Catch::Contains("two\\x0alines\\x0d"));
  CHECK_THAT(all, Catch::Contains("c1\\xc2\\x9b2J\\x9b"));
}
