#include <catch2/catch.hpp>

#include "symbolize/demangle.h"

using swprof::demangle;

TEST_CASE("demangle: Itanium C++ names are demangled, others kept", "[symbolize]") {
  CHECK(demangle("_ZN8sym_test3BoxIiE5twiceEi") == "sym_test::Box<int>::twice(int)");
  CHECK(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi") == "std::vector<int, std::allocator<int> >::push_back(int const&)");
  CHECK(demangle("_Z3fooi.cold") == "foo(int) [clone .cold]");
  CHECK(demangle("main") == "main");
  CHECK(demangle("_Z") == "_Z");
  CHECK(demangle("_Znot valid") == "_Znot valid");
  CHECK(demangle("") == "");
  CHECK(demangle(nullptr) == "");
}
