#include "output/folded_writer.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "output/folded_reader.h"
#include "support/profile_fixture.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("folded: one sorted line per distinct stack with its self count") {
  Profile p = sample_profile();
  std::ostringstream out;
  write_folded(p.tree, {}, out);
  CHECK(out.str() ==
        "main;a 10\n"
        "main;a;b 60\n"
        "main;c;b 25\n"
        "main;rec;rec;rec 5\n");
}

TEST_CASE("folded: modules, annotations and separators in names") {
  CallTree t;
  add_stack(t, {fn("main"), fn("inl", "app", kCctInline), fn("sys_read", "[kernel]", kCctKernel)}, 2);
  add_stack(t, {fn("main"), fn("maybe", "app", kCctGuess), fn("odd;name\n", "lib.so")}, 1);
  t.sort_children();
  std::ostringstream plain, modules;
  write_folded(t, {}, plain);
  FoldedOptions o;
  o.modules = true;
  write_folded(t, o, modules);
  CHECK(plain.str() == "main;inl_[i];sys_read_[k] 2\nmain;maybe_[g];odd_name_ 1\n");
  CHECK(modules.str() == "app`main;app`inl_[i];[kernel]`sys_read_[k] 2\napp`main;app`maybe_[g];lib.so`odd_name_ 1\n");
}

TEST_CASE("folded: a backtick in a function name reads back as one frame") {
  CallTree t;
  add_stack(t, {fn("main"), fn("tail`", "lib.so"), fn("a`b", "lib.so")}, 3);
  t.sort_children();
  std::ostringstream plain, modules;
  write_folded(t, {}, plain);
  FoldedOptions o;
  o.modules = true;
  write_folded(t, o, modules);
  // Without modules the reader would split "a`b" into module "a" and
  // function "b", and refuse "tail`" as an empty function.
  CHECK(plain.str() == "main;tail_;a_b 3\n");
  CHECK(modules.str() == "app`main;lib.so`tail`;lib.so`a`b 3\n");
  for (const std::string& text : {plain.str(), modules.str()}) {
    std::istringstream in(text);
    const CallTree back = read_folded(in, "written.folded");
    CHECK(back.total() == 3);
    CHECK(back.nodes().size() == t.nodes().size());
  }
}

TEST_CASE("folded: off-CPU and wall profiles write each stack's weight in ns") {
  const Profile p = wall_profile();
  std::ostringstream out;
  FoldedOptions o;
  o.weights = true;
  write_folded(p.tree, o, out);
  CHECK(out.str() ==
        "main;nap;schedule_[k] 15000000\n"
        "main;spin;schedule_[k];[preempted]_[k] 2000000\n"
        "main;wait_pipe;schedule_[k] 3000000\n"
        "main;work 4000000\n");
}
