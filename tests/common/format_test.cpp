#include "common/format.h"

#include <catch2/catch.hpp>

using namespace swprof;

TEST_CASE("format_duration picks ns, us, ms or s with three decimals") {
  CHECK(format_duration(0) == "0 ns");
  CHECK(format_duration(999) == "999 ns");
  CHECK(format_duration(1'000) == "1.000 us");
  CHECK(format_duration(12'345) == "12.345 us");
  CHECK(format_duration(4'012'000) == "4.012 ms");
  CHECK(format_duration(999'999'999) == "1000.000 ms");
  CHECK(format_duration(1'250'000'000) == "1.250 s");
}
