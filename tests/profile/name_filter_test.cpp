#include "profile/name_filter.h"

#include <catch2/catch.hpp>

#include "common/error.h"
#include "compare/diff.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// A generated template instance can have a name this long; std::regex
// recursed once per character on it and overflowed the stack.
const std::string kLongA(30000, 'a');
const std::string kLongFoo = std::string(30000, 'x') + "foo";

std::string error_of(const std::string& pattern, const char* option) {
  try {
    NameFilter f(pattern, option);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("name filter: searched anywhere in the name", "[name_filter]") {
  NameFilter f("parse_(input|header)", "--include");
  CHECK(f.matches("app::parse_input(char const*)"));
  CHECK(f.matches("parse_header"));
  CHECK_FALSE(f.matches("parse_body"));
  NameFilter anchored("^main$", "--include");
  CHECK(anchored.matches("main"));
  CHECK_FALSE(anchored.matches("main2"));
  NameFilter utf8("größe", "--include");
  CHECK(utf8.matches("berechne_größe"));
}

TEST_CASE("name filter: 30,000-character names do not exhaust the stack", "[name_filter]") {
  CHECK(NameFilter("a+", "--include").matches(kLongA));
  CHECK(NameFilter("^a+$", "--include").matches(kLongA));
  CHECK_FALSE(NameFilter("a+b", "--include").matches(kLongA));
  CHECK(NameFilter(".*foo", "--only").matches(kLongFoo));
  CHECK_FALSE(NameFilter(".*foo$", "--only").matches(kLongFoo + "d"));
  CHECK(NameFilter("(a|b)*c?$", "--exclude").matches(kLongA));
}

TEST_CASE("name filter: a bad pattern names the option and RE2's error", "[name_filter]") {
  const std::string paren = error_of("(", "--include");
  CHECK_THAT(paren, Catch::StartsWith("invalid --include regex '(': missing )"));
  CHECK(paren.find('\n') == std::string::npos);
  // ECMAScript features RE2 does not have get a hint.
  CHECK_THAT(error_of("(?=x)y", "--exclude"), Catch::StartsWith("invalid --exclude regex '(?=x)y':") &&
                                                   Catch::Contains("no lookahead or lookbehind"));
  CHECK_THAT(error_of("(a)\\1", "--only"), Catch::Contains("no backreferences"));
  CHECK(error_of("a+", "--only").empty());
}

TEST_CASE("stack filter: include and exclude on frames with 30,000-character names", "[name_filter]") {
  CallTree tree;
  const uint32_t main_id = tree.intern(fn("entry"));  // no 'a' in it
  const uint32_t long_a = tree.intern(fn(kLongA));
  const uint32_t long_foo = tree.intern(fn(kLongFoo));
  const uint32_t other = tree.intern(fn("other"));
  const std::vector<uint32_t> with_a{main_id, long_a}, with_foo{main_id, long_foo}, plain{main_id, other};

  StackFilter include(tree, "a+", "");
  CHECK(include.keep(with_a));
  CHECK_FALSE(include.keep(with_foo));  // 'x's and "foo": no 'a'
  CHECK_FALSE(include.keep(plain));
  StackFilter include_foo(tree, ".*foo", "");
  CHECK(include_foo.keep(with_foo));
  CHECK_FALSE(include_foo.keep(with_a));

  StackFilter exclude(tree, "", "^a+$");
  CHECK_FALSE(exclude.keep(with_a));
  CHECK(exclude.keep(with_foo));
  CHECK(exclude.keep(plain));

  StackFilter both(tree, "entry", ".*foo");
  CHECK(both.keep(with_a));
  CHECK_FALSE(both.keep(with_foo));
  CHECK(StackFilter(tree, "", "").keep(with_foo));
  CHECK_THROWS_AS(StackFilter(tree, "", "[z-a]"), Error);
}

TEST_CASE("diff --only on 30,000-character names judges the matching function", "[name_filter]") {
  Profile base, next;
  base.source = "base.json";
  next.source = "new.json";
  add_stack(base.tree, {fn("main"), fn(kLongFoo)}, 500);
  add_stack(base.tree, {fn("main"), fn(kLongA)}, 500);
  add_stack(next.tree, {fn("main"), fn(kLongFoo)}, 900);
  add_stack(next.tree, {fn("main"), fn(kLongA)}, 100);
  DiffOptions o;
  o.only = ".*foo";
  const ProfileDiff d = diff_profiles(base, next, o);
  size_t judged = 0;
  for (const FunctionDiff& f : d.functions) {
    if (!f.total.eligible) continue;
    ++judged;
    CHECK(f.function == kLongFoo);
    CHECK(f.total.change == Change::kRegression);
  }
  CHECK(judged == 1);
  CHECK(d.regressed());
  o.only = "^a+$";
  for (const FunctionDiff& f : diff_profiles(base, next, o).functions)
    CHECK(f.total.eligible == (f.function == kLongA));
}
