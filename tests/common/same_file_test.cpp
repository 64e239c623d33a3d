// check_output_is_not_an_input: an output that is an input, by whatever name,
// is refused; other files, missing ones and devices are not.

#include "common/same_file.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "common/error.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("an output that is an input under any name is refused", "[same_file]") {
  TempDir dir;
  const std::string in = dir.file("in.swprof"), other = dir.file("other.swprof");
  std::ofstream(in) << "input";
  std::ofstream(other) << "another input";
  REQUIRE(::symlink("in.swprof", dir.file("soft").c_str()) == 0);
  REQUIRE(::link(in.c_str(), dir.file("hard").c_str()) == 0);
  for (const std::string& out : {in, dir.file("soft"), dir.file("hard"), dir.path() + "/./in.swprof"}) {
    INFO(out);
    CHECK_THROWS_WITH(check_output_is_not_an_input(out, {other, in}, "--html"),
                      "the output '" + out + "' would overwrite the input '" + in + "' (the same file): choose another --html");
  }
  CHECK_NOTHROW(check_output_is_not_an_input(dir.file("in.json"), {in, other}));  // not there yet
  CHECK_NOTHROW(check_output_is_not_an_input(other, {in, dir.file("missing")}));
  CHECK_NOTHROW(check_output_is_not_an_input("/dev/null", {"/dev/null"}));  // written in place, never replaced
}

TEST_CASE("standard output open on an input is refused", "[same_file]") {
  TempDir dir;
  const std::string in = dir.file("in.swprof");
  std::ofstream(in) << "input";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(in.c_str(), O_WRONLY | O_APPEND);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0) _exit(3);
    try {
      check_output_is_not_an_input("-", {in});
    } catch (const Error& e) {
      _exit(std::string(e.what()) ==
                    "standard output would write into the input '" + in + "' (the same file): redirect it elsewhere"
                ? 0
                : 4);
    }
    _exit(5);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
