#include "profile/thread_names.h"

#include <catch2/catch.hpp>

using namespace swprof;

namespace {
CommRecord comm(uint32_t tid, const std::string& name) {
  CommRecord c;
  c.pid = 100;
  c.tid = tid;
  c.comm = name;
  return c;
}
TaskRecord task(uint32_t tid, uint32_t parent, bool exit = false) {
  TaskRecord t;
  t.pid = t.ppid = 100;
  t.tid = tid;
  t.ptid = parent;
  t.exit = exit;
  return t;
}
}  // namespace

TEST_CASE("thread names: from COMM records, the last one wins", "[thread_names]") {
  ThreadNames names;
  CHECK(names.name(1).empty());
  CHECK_FALSE(names.named_by_record(1));
  names.on_comm(comm(1, "app"));
  names.on_comm(comm(1, "renamed"));
  CHECK(names.name(1) == "renamed");
  CHECK(names.named_by_record(1));
}

TEST_CASE("thread names: a new thread inherits its parent's name until a COMM record names it", "[thread_names]") {
  ThreadNames names;
  names.on_comm(comm(1, "app"));
  names.on_task(task(2, 1));
  CHECK(names.name(2) == "app");
  CHECK_FALSE(names.named_by_record(2));
  names.on_comm(comm(2, "worker"));
  CHECK(names.name(2) == "worker");
  CHECK(names.named_by_record(2));
}

TEST_CASE("thread names: a fork does not rename a known thread, exits and unknown parents change nothing",
          "[thread_names]") {
  ThreadNames names;
  names.on_comm(comm(1, "app"));
  names.on_comm(comm(2, "worker"));
  names.on_task(task(2, 1));
  CHECK(names.name(2) == "worker");
  names.on_task(task(3, 1, /*exit=*/true));
  CHECK(names.name(3).empty());
  names.on_task(task(4, 99));
  CHECK(names.name(4).empty());
}
