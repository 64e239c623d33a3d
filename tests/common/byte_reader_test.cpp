#include "common/byte_reader.h"

#include <catch2/catch.hpp>

using namespace swprof;

TEST_CASE("ByteReader reads values and refuses to read past the end", "[byte_reader]") {
  const uint8_t data[] = {1, 0, 0, 0, 2, 0, 'h', 'i', 0, 0};
  ByteReader r(Bytes(data, sizeof data));
  CHECK(r.read<uint32_t>() == 1u);
  CHECK(r.read<uint16_t>() == 2u);
  CHECK(r.remaining() == 4);
  CHECK_FALSE(r.read<uint64_t>().has_value());
  CHECK(r.offset() == 6);  // a failed read leaves the cursor alone
  auto s = r.padded_string(4);
  REQUIRE(s);
  CHECK(*s == "hi");
  CHECK(r.at_end());
  CHECK_FALSE(r.bytes(1).has_value());
  CHECK_FALSE(r.skip(1));
}

TEST_CASE("ByteWriter and read_string round trip", "[byte_reader]") {
  std::vector<uint8_t> buf;
  ByteWriter w(buf);
  w.put<uint64_t>(0x1122334455667788ull);
  w.put_string("swprof");
  w.patch<uint8_t>(0, 0x99);
  ByteReader r(Bytes(buf.data(), buf.size()));
  CHECK(r.read<uint64_t>() == 0x1122334455667799ull);
  CHECK(read_string(r) == "swprof");
  CHECK(r.at_end());
}

TEST_CASE("read_string fails on a length past the end", "[byte_reader]") {
  const uint8_t data[] = {200, 0, 0, 0, 'a'};
  ByteReader r(Bytes(data, sizeof data));
  CHECK_FALSE(read_string(r).has_value());
}
