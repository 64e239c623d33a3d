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

TEST_CASE("plain_number writes fixed notation without trailing zeros, never an exponent") {
  CHECK(plain_number(100) == "100");
  CHECK(plain_number(0.5) == "0.5");
  CHECK(plain_number(12.5) == "12.5");
  CHECK(plain_number(0) == "0");
  CHECK(plain_number(-0.0) == "0");
  CHECK(plain_number(0.00001) == "0.00001");
  CHECK(plain_number(1e6) == "1000000");
  CHECK(plain_number(2.25e9) == "2250000000");
}
