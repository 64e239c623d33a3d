#include "output/folded_reader.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "support/temp_dir.h"

using swprof::CallTree;
using swprof::CctFrame;

namespace {

CallTree read(const std::string& text, const swprof::FoldedReadOptions& options = {}) {
  std::istringstream in(text);
  return swprof::read_folded(in, "test.folded", options);
}

// The node for a path of function names, root first; 0 (the root) if absent.
uint32_t find_path(const CallTree& tree, const std::vector<std::string>& names) {
  uint32_t at = CallTree::kRoot;
  for (const auto& name : names) {
    uint32_t next = CallTree::kRoot;
    for (uint32_t c : tree.node(at).children)
      if (tree.frame(tree.node(c).frame).function == name) next = c;
    if (next == CallTree::kRoot) return CallTree::kRoot;
    at = next;
  }
  return at;
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const swprof::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("folded input: plain stacks build the tree", "[folded]") {
  const CallTree tree = read("main;parse;read_line 12\nmain;compute 3\nmain;parse;read_line 5\n\n   \nmain 1\n");
  CHECK(tree.total() == 21);
  const uint32_t read_line = find_path(tree, {"main", "parse", "read_line"});
  REQUIRE(read_line != CallTree::kRoot);
  CHECK(tree.node(read_line).total == 17);
  CHECK(tree.node(read_line).self == 17);
  const uint32_t main_node = find_path(tree, {"main"});
  CHECK(tree.node(main_node).total == 21);
  CHECK(tree.node(main_node).self == 1);
  CHECK(tree.node(find_path(tree, {"main", "compute"})).total == 3);
  CHECK(tree.frame(tree.node(read_line).frame).module.empty());
}

TEST_CASE("folded input: module and annotation suffixes", "[folded]") {
  const CallTree tree = read(
      "prog`main;libc.so.6`memcpy_[i];vmlinux`do_syscall_64_[k] 4\n"
      "prog`main;entry_SYSCALL_64_[k] 1\n"
      "prog`main;prog`maybe_caller_[g];jitted_[j] 2\n"
      "prog`main;lib`both_[i]_[g] 1\n"
      "prog`main;[unknown] 1\n");
  const uint32_t memcpy_node = find_path(tree, {"main", "memcpy"});
  REQUIRE(memcpy_node != CallTree::kRoot);
  const CctFrame& memcpy_f = tree.frame(tree.node(memcpy_node).frame);
  CHECK(memcpy_f.module == "libc.so.6");
  CHECK(memcpy_f.flags == swprof::kCctInline);

  const CctFrame& sys = tree.frame(tree.node(find_path(tree, {"main", "memcpy", "do_syscall_64"})).frame);
  CHECK(sys.module == "vmlinux");
  CHECK(sys.flags == swprof::kCctKernel);

  const CctFrame& entry = tree.frame(tree.node(find_path(tree, {"main", "entry_SYSCALL_64"})).frame);
  CHECK(entry.module == "[kernel]");
  CHECK(entry.flags == swprof::kCctKernel);

  const CctFrame& guess = tree.frame(tree.node(find_path(tree, {"main", "maybe_caller"})).frame);
  CHECK(guess.module == "prog");
  CHECK(guess.flags == swprof::kCctGuess);

  const CctFrame& jit = tree.frame(tree.node(find_path(tree, {"main", "maybe_caller", "jitted"})).frame);
  CHECK(jit.module == "[jit]");
  CHECK(jit.flags == 0);

  const CctFrame& both = tree.frame(tree.node(find_path(tree, {"main", "both"})).frame);
  CHECK(both.module == "lib");
  CHECK(both.flags == (swprof::kCctInline | swprof::kCctGuess));

  CHECK(find_path(tree, {"main", "[unknown]"}) != CallTree::kRoot);
  CHECK(tree.total() == 9);
}

TEST_CASE("folded input: frame text edge cases", "[folded]") {
  // The module is split at the first backtick only; unknown suffixes stay.
  CHECK(swprof::parse_folded_frame("a`b`c").module == "a");
  CHECK(swprof::parse_folded_frame("a`b`c").function == "b`c");
  CHECK(swprof::parse_folded_frame("`quoted'").function == "`quoted'");
  CHECK(swprof::parse_folded_frame("f_[x]").function == "f_[x]");
  CHECK(swprof::parse_folded_frame("_[i]").function == "_[i]");
  CHECK(swprof::parse_folded_frame("g_[i]").function == "g");
}

TEST_CASE("folded input: names with spaces, tabs and CRLF", "[folded]") {
  const CallTree tree = read("main;foo(int, char const*) 7\r\nmain;operator new(unsigned long)\t2\r\n");
  CHECK(tree.node(find_path(tree, {"main", "foo(int, char const*)"})).total == 7);
  CHECK(tree.node(find_path(tree, {"main", "operator new(unsigned long)"})).total == 2);
}

TEST_CASE("folded input: float counts", "[folded]") {
  SECTION("rounded, carrying the remainder from line to line") {
    const CallTree tree = read("a;b 2.5\na;c 0.4\na;c 0.4\na;c 0.4\na;d 1e1\n");
    CHECK(tree.total() == 14);  // 2.5 + 1.2 + 10 = 13.7
    CHECK(tree.node(find_path(tree, {"a", "b"})).total == 3);
    CHECK(tree.node(find_path(tree, {"a", "c"})).total == 1);
    CHECK(tree.node(find_path(tree, {"a", "d"})).total == 10);
  }
  SECTION("a scale keeps the fractions") {
    swprof::FoldedReadOptions options;
    options.scale = 1000;
    const CallTree tree = read("a;b 2.5\na;c 0.125\na 3\n", options);
    CHECK(tree.node(find_path(tree, {"a", "b"})).total == 2500);
    CHECK(tree.node(find_path(tree, {"a", "c"})).total == 125);
    CHECK(tree.total() == 5625);
  }
}

TEST_CASE("folded input: malformed lines name the file and line", "[folded]") {
  CHECK(error_of("a;b 1\nmain;compute\n") == "test.folded:2: no sample count after the stack (expected \"frame;frame;... COUNT\")");
  CHECK(error_of("a 1\n\nb 2\nmain;compute abc\n") == "test.folded:4: bad sample count \"abc\"");
  CHECK(error_of("a 1\n  17\n") == "test.folded:2: empty stack before the count");
  CHECK(error_of(";; 3\n") == "test.folded:1: empty frame 1 in the stack");
  CHECK(error_of("a 1\na;;b 3\n") == "test.folded:2: empty frame 2 in the stack");
  CHECK(error_of("a -3\n") == "test.folded:1: negative sample count \"-3\"");
  CHECK(error_of("a 1.5.2\n") == "test.folded:1: bad sample count \"1.5.2\"");
  CHECK(error_of("a nan\n") == "test.folded:1: bad sample count \"nan\"");
  CHECK(error_of("a 1e30\n") == "test.folded:1: sample count too large \"1e30\"");
  CHECK(error_of("main;foo(int, char)\n") == "test.folded:1: bad sample count \"char)\"");
  CHECK(error_of("a;prog`_[i] 1\n") == "test.folded:1: empty frame 2 in the stack");
  CHECK(error_of("a; \t;b 1\n") == "test.folded:1: empty frame 2 in the stack");
  CHECK(error_of("lib`\f\f;b 1\n") == "test.folded:1: empty frame 1 in the stack");
  // Error messages stay on one line, whatever the input holds.
  const std::string message = error_of(std::string("a \x01\x02\x1b[31m\n"));
  CHECK(message == "test.folded:1: bad sample count \"???[31m\"");
}

TEST_CASE("folded input: files, and errors for missing ones", "[folded]") {
  swprof::testing::TempDir dir;
  const std::string path = dir.file("stacks.folded");
  {
    std::ofstream out(path);
    for (int i = 0; i < 1000; ++i) out << "main;loop;step" << (i % 7) << ' ' << (i + 1) << '\n';
    out << "main;broken\n";
  }
  try {
    swprof::read_folded_file(path);
    FAIL("expected an error");
  } catch (const swprof::Error& e) {
    CHECK(std::string(e.what()) == path + ":1001: no sample count after the stack (expected \"frame;frame;... COUNT\")");
  }
  CHECK_THROWS_AS(swprof::read_folded_file(dir.file("missing.folded")), swprof::Error);
}

TEST_CASE("folded input: a first line that is not a stack and a count tells other files apart", "[folded]") {
  using swprof::why_not_folded;
  CHECK(why_not_folded("main;a 3\nmain;b 2\n", true).empty());
  CHECK(why_not_folded("\n  \r\nmain;a 1.5\r\n", true).empty());
  CHECK(why_not_folded("", true).empty());  // nothing to judge: no samples
  CHECK(why_not_folded("import hashlib\nprint(1)\n", true) ==
        "its first line \"import hashlib\" does not end with a sample count");
  CHECK(why_not_folded("main;a", true) == "its first line \"main;a\" does not end with a sample count");
  CHECK(why_not_folded("main;a", false).empty());  // the line goes on past the head
  CHECK(why_not_folded(std::string("\x1f\x8b\x08\0", 4), false) == "it holds binary data");
  CHECK(why_not_folded("#!/usr/bin/env python3 -u\n", true) ==
        "its first line \"#!/usr/bin/env python3 -u\" does not end with a sample count");
  CHECK(why_not_folded(std::string(50, 'x') + "\n", true) ==
        "its first line \"" + std::string(40, 'x') + "...\" does not end with a sample count");
}
