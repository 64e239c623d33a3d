// Recordings of a recursion thousands of frames deep
// (tests/programs/known_deep_recursion.c: main -> descend x (DEPTH + 1) ->
// leaf, 80-byte frames): no bound on the walk stops it before the stack's
// bottom, read past the kernel's copy by the recorder, and where the bytes
// end no caller is guessed.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "recording/record_source.h"
#include "support/cli_harness.h"
#include "support/known_stack_check.h"
#include "support/real_walks.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"
#include "unwind/recording_unwinder.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

struct DeepWalks {
  uint64_t in_leaf = 0;
  uint64_t guessed = 0;  // samples in leaf with a guessed frame
  uint64_t wrong = 0;    // ... with a frame other than leaf, descend x N, main, then libc
  size_t fewest = SIZE_MAX, most = 0;  // frames of a sample in leaf
  size_t fewest_complete = SIZE_MAX;   // ... of one whose walk ended complete
  std::map<std::string, uint64_t> ends;
  std::string first_bad;

  std::string summary() const {
    std::string s = "in leaf " + std::to_string(in_leaf) + ", guessed " + std::to_string(guessed) + ", wrong " +
                    std::to_string(wrong) + ", frames " + std::to_string(fewest) + ".." + std::to_string(most) +
                    ", ends:";
    for (const auto& [why, n] : ends) s += " " + why + "=" + std::to_string(n);
    return s + "; first bad: " + first_bad;
  }
  uint64_t ended(const std::string& why) const {
    const auto it = ends.find(why);
    return it == ends.end() ? 0 : it->second;
  }
};

DeepWalks record_deep(const std::string& program, int depth, const std::vector<std::string>& extra = {},
                      const UnwindOptions& options = {}, const std::string& linger = "0") {
  TempDir dir;
  const std::string out = dir.file("deep.swprof");
  std::vector<std::string> argv = {swprof_bin(), "record", "-F", "999", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--", std::string(KNOWN_STACK_DIR) + "/" + program, std::to_string(depth), "0.5", linger});
  const auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  DeepWalks w;
  const std::unique_ptr<RecordSource> reader = open_record_source(out);
  RecordingUnwinder unwinder(options);
  unwinder.run(*reader, [&](const UnwoundSample& s) {
    if (s.walk.frames.empty() || frame_name(s, s.walk.frames[0]) != "leaf") return;
    ++w.in_leaf;
    ++w.ends[walk_end_name(s.walk.end)];
    w.fewest = std::min(w.fewest, s.walk.frames.size());
    w.most = std::max(w.most, s.walk.frames.size());
    if (s.walk.end == WalkEnd::kBottom) w.fewest_complete = std::min(w.fewest_complete, s.walk.frames.size());
    bool guessed = false, wrong = false, past_main = false;
    for (size_t i = 1; i < s.walk.frames.size(); ++i) {
      const Frame& f = s.walk.frames[i];
      guessed = guessed || (f.flags & kFrameGuess);
      const std::string name = frame_name(s, f);
      if (past_main) wrong = wrong || name == "descend" || name == "leaf" || name == "main";
      else if (name == "main") past_main = true;
      else wrong = wrong || name != "descend";
    }
    w.guessed += guessed;
    w.wrong += wrong;
    if ((guessed || wrong) && w.first_bad.empty())
      for (const Frame& f : s.walk.frames) w.first_bad += frame_name(s, f) + " ";
  });
  return w;
}

}  // namespace

TEST_CASE("deep stacks: a recursion 600 deep in a whole copy is walked to its bottom", "[integration][unwind]") {
  for (const char* program : {"known_deep_recursion", "known_deep_recursion_fp"}) {
    SECTION(program) {
      // 601 x 80 (96) bytes: 48 (56) KB, within a 65,528-byte copy.
      const DeepWalks w = record_deep(program, 600, {"--stack-size", "65528"});
      INFO(w.summary());
      REQUIRE(w.in_leaf >= 100);
      CHECK(w.ended("complete") * 100 >= w.in_leaf * 99);
      CHECK(w.fewest >= 603);  // leaf, descend x 601, main
      CHECK(w.guessed == 0);
      CHECK(w.wrong == 0);
    }
  }
}

TEST_CASE("deep stacks: a recursion 2,500 deep is walked whole when read past the copy, to the copy's end without",
          "[integration][unwind]") {
  // descend's frame: 80 bytes, 96 with rbp pushed: 200 (240) KB of stack.
  for (const auto& [program, frame_bytes] :
       {std::pair{"known_deep_recursion", size_t{80}}, {"known_deep_recursion_fp", size_t{96}}}) {
    SECTION(std::string(program) + " read past a 65528-byte copy") {
      // The program sleeps 2 s at its deepest when done: a recorder behind
      // with its samples (a sanitizer build on a loaded machine) still finds
      // the stack to read; after the exit nothing is read and the walk ends
      // at the copy.
      const DeepWalks w = record_deep(program, 2500, {"--stack-size", "65528"}, {}, "2");
      INFO(w.summary());
      REQUIRE(w.in_leaf >= 100);
      CHECK(w.ended("complete") * 100 >= w.in_leaf * 99);
      CHECK(w.fewest_complete >= 2503);  // leaf, descend x 2501, main
      // A sample whose live read did not verify (the thread seen to move on,
      // or a recorder far behind on a loaded machine) ends where its copy
      // ended, every copied frame walked and none guessed.
      CHECK(w.ended("complete") + w.ended("stack copy exhausted") == w.in_leaf);
      CHECK(w.fewest >= (65528 - 1024) / frame_bytes);
      CHECK(w.guessed == 0);
      CHECK(w.wrong == 0);
    }
    SECTION(std::string(program) + " with --stack-size 65528 and --stack-beyond 0") {
      const DeepWalks w = record_deep(program, 2500, {"--stack-size", "65528", "--stack-beyond", "0"});
      INFO(w.summary());
      REQUIRE(w.in_leaf >= 100);
      CHECK(w.ended("stack copy exhausted") == w.in_leaf);
      // Every frame the copy holds (the kernel copies a little less than asked
      // where the stack's top is near).
      CHECK(w.fewest >= (65528 - 1024) / frame_bytes);
      CHECK(w.guessed == 0);
      CHECK(w.wrong == 0);
    }
    SECTION(std::string(program) + " with the default stack size and --stack-beyond 0") {
      const DeepWalks w = record_deep(program, 2500, {"--stack-beyond", "0"});
      INFO(w.summary());
      REQUIRE(w.in_leaf >= 100);
      CHECK(w.ended("stack copy exhausted") == w.in_leaf);
      CHECK(w.fewest >= (32768 - 1024) / frame_bytes);
      CHECK(w.guessed == 0);
      CHECK(w.wrong == 0);
    }
  }
  SECTION("a smaller --max-depth cuts the walks where asked") {
    UnwindOptions options;
    options.max_depth = 100;
    const DeepWalks w = record_deep("known_deep_recursion", 2500, {}, options);
    INFO(w.summary());
    REQUIRE(w.in_leaf >= 100);
    CHECK(w.ended("maximum depth") == w.in_leaf);
    CHECK(w.most == 100);
  }
}

// A translation unit after bench/template_heavy.cpp, small enough to compile
// in about a second: recursive instantiation 700 deep and a deeply nested
// expression make clang's parser and Sema recurse far past 32 KiB of stack.
constexpr const char* kTemplateHeavy = R"(
template <int N> struct Fib { static constexpr long value = Fib<N - 1>::value + Fib<N - 2>::value % 1000003; };
template <> struct Fib<1> { static constexpr long value = 1; };
template <> struct Fib<0> { static constexpr long value = 0; };
template <int N> long chain(long x) {
  if constexpr (N == 0) return x;
  else return chain<N - 1>(x + N) * 7 % 1000003;
}
template <int N, typename T> struct Nest {
  static long get(long x) { return Nest<N - 1, T>::get(x * 3 + N) ^ (x >> 2); }
};
template <typename T> struct Nest<0, T> { static long get(long x) { return x; } };
#define E1(x) ((x) * 3 + 1)
#define E2(x) E1(E1(E1(E1(x))))
#define E3(x) E2(E2(E2(E2(x))))
#define E4(x) E3(E3(E3(x)))
long deep_expression(long x) { return E4(x); }
long run(long x) { return Fib<700>::value + chain<700>(x) + Nest<300, int>::get(x) + deep_expression(x); }
)";

TEST_CASE("deep stacks: clang++ -O2 compiling recursive templates, its stacks read past the default copy",
          "[integration][unwind]") {
  if (!std::filesystem::exists("/usr/bin/clang++")) {
    WARN("clang++ is not installed (scripts/setup.sh installs it); skipped");
    return;
  }
  TempDir dir;
  std::ofstream(dir.file("t.cpp")) << kTemplateHeavy;
  const std::string out = dir.file("clang.swprof");
  const ProcessResult r =
      run({swprof_bin(), "record", "-F", "999", "-o", out, "--", "/usr/bin/clang++", "-std=c++20", "-O2", "-c",
           dir.file("t.cpp"), "-o", dir.file("t.o")},
          dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Some 40 % of the samples need frames past the 32 KiB copy; those whose
  // read came after the thread had moved on end at the copy (1-4 % on a
  // loaded machine). The unoptimized sanitizer build's recorder reads late
  // on a loaded machine (under 10 % of the samples read past in time, with
  // two other processes busy): there, what is read late ends at the copy
  // like any other, and nothing may be guessed or cut short elsewhere.
  const RealWalks w = real_walks(out);
  if (kSanitizedBuild) CHECK(w.beyond > 0);
  else CHECK(w.beyond * 100 >= w.samples * 10);
  require_real_targets(w, kSanitizedBuild ? 100 : 20);
}

