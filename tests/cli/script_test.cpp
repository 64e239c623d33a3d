// `swprof script` end to end: a recording of known_stack, symbolized.

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/sym_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

struct Output {
  int status;
  std::string text;
};

Output shell(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return {pclose(p), out};
}

// Lines "\t<pc> <function>+0x<hex> (<module>+0x<hex>) ..." that also hold
// every string of `parts`.
size_t count_frames(const std::string& text, const std::string& function, const std::string& module,
                    const std::vector<std::string>& parts) {
  std::istringstream lines(text);
  std::string line;
  size_t n = 0;
  const std::string head = " " + function + "+0x";
  const std::string where = " (" + module + "+0x";
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '\t') continue;
    const size_t at = line.find(head);
    if (at == std::string::npos || line.find_first_not_of(" 0123456789abcdef", 1) < at) continue;  // pc column
    if (line.find(where, at) == std::string::npos) continue;
    bool all = true;
    for (const auto& p : parts) all = all && line.find(p) != std::string::npos;
    n += all;
  }
  return n;
}

}  // namespace

TEST_CASE("script: frames show function+offset, module+offset and file:line", "[symbolize][script]") {
  TempDir dir;
  const std::string rec = dir.file("r.swprof");
  const std::string app = std::string(SYM_PROGRAMS_DIR) + "/known_stack_O2_fp";
  REQUIRE(shell(std::string(SWPROF_BIN) + " record -o " + rec + " -- " + app + " vdso 0.4 >/dev/null 2>&1").status == 0);

  const Output out = shell(std::string(SWPROF_BIN) + " script " + rec + " 2>" + dir.file("err"));
  REQUIRE(out.status == 0);
  CHECK(shell("cat " + dir.file("err")).text.empty());
  // main -> a -> b -> c -> vdso_leaf, each named with its source line.
  for (const char* fn : {"main", "a", "b", "c", "vdso_leaf"}) {
    INFO(fn);
    CHECK(count_frames(out.text, fn, "known_stack_O2_fp", {"/known_stack.c:", ") /", " ["}) > 0);
  }
  // Frames in the vDSO are named from its symbols.
  CHECK(count_frames(out.text, "__vdso_clock_gettime", "[vdso]", {}) + count_frames(out.text, "clock_gettime", "[vdso]", {}) >
        0);

  // Without inline frames no line says "(inlined)"; with them, every
  // "(inlined)" line is followed by a frame of the same pc.
  const Output flat = shell(std::string(SWPROF_BIN) + " script --no-inline --no-demangle " + rec + " 2>/dev/null");
  REQUIRE(flat.status == 0);
  CHECK(flat.text.find("(inlined)") == std::string::npos);
  std::istringstream lines(out.text);
  std::string line, next;
  while (std::getline(lines, line)) {
    if (line.find("(inlined)") == std::string::npos) continue;
    REQUIRE(std::getline(lines, next));
    CHECK(next.substr(0, 18) == line.substr(0, 18));
  }
}
