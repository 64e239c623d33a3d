#include "support/built_program.h"

#include <catch2/catch.hpp>
#include <fstream>

namespace swprof::testing {

std::string built_program_source(bool variant) {
  std::string s =
      "#include <stdlib.h>\n"
      "#include <time.h>\n"
      "volatile unsigned long sink;\n";
  if (variant) s += "__attribute__((noinline)) void added_first(void) { for (int i = 0; i < 99; ++i) sink -= i; }\n";
  s += "__attribute__((noinline)) void leaf_work(void) { for (int i = 0; i < 1000; ++i) sink += i * 7; }\n"
       "__attribute__((noinline)) void middle_call(void) { leaf_work(); }\n"
       "int main(int argc, char** argv) {\n"
       "  double secs = argc > 1 ? atof(argv[1]) : 0.5;\n"
       "  struct timespec s, n;\n"
       "  clock_gettime(CLOCK_MONOTONIC, &s);\n"
       "  do {\n"
       "    middle_call();\n"
       "    clock_gettime(CLOCK_MONOTONIC, &n);\n"
       "  } while ((n.tv_sec - s.tv_sec) + (n.tv_nsec - s.tv_nsec) / 1e9 < secs);\n"
       "  return 0;\n"
       "}\n";
  return s;
}

void BuiltProgram::build(bool variant, const char* opt, const std::vector<std::string>& extra) {
  std::ofstream(dir.file("app.c")) << built_program_source(variant);
  std::vector<std::string> argv = {"/usr/bin/cc", opt, "-g", "-fno-omit-frame-pointer", "-o", app};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(dir.file("app.c"));
  auto cc = run(argv, dir.path());
  INFO(cc.err);
  REQUIRE(cc.exit_code == 0);
}

void BuiltProgram::record(const std::vector<std::string>& options) {
  std::vector<std::string> args = {"record", "-o", recording};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {app, "0.5"});
  auto r = swprof(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

ProcessResult BuiltProgram::swprof(std::vector<std::string> args) {
  if (!args.empty()) args.insert(args.begin() + 1, common_options.begin(), common_options.end());
  args.insert(args.begin(), swprof_bin());
  return run(args, dir.path());
}

std::string BuiltProgram::script(std::vector<std::string> extra) {
  std::vector<std::string> args = {"script"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(recording);
  auto r = swprof(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace swprof::testing
