#include "binary/eh_frame_hdr.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace swprof;
using namespace swprof::cfi_detail;

TEST_CASE("encoded pointers decode per the LSB DW_EH_PE encodings", "[cfi]") {
  const PointerBase base{0x1000, 0x8000};
  auto decode = [&](std::vector<uint8_t> bytes, uint8_t encoding, size_t skip = 0) {
    ByteReader r(Bytes(bytes.data(), bytes.size()));
    REQUIRE(r.skip(skip));
    auto v = read_encoded_pointer(r, encoding, base);
    if (v) CHECK(r.at_end());
    return v;
  };
  CHECK(decode({0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0}, kPeAbsptr) == 0x12345678u);
  CHECK(decode({0xfe, 0xff, 0xff, 0xff}, kPeUdata4) == 0xfffffffeu);
  CHECK(decode({0xfe, 0xff, 0xff, 0xff}, kPeSdata4) == uint64_t(-2));
  CHECK(decode({0xfe, 0xff}, kPeSdata2) == uint64_t(-2));
  CHECK(decode({0xfe, 0xff}, kPeUdata2) == 0xfffeu);
  CHECK(decode({1, 2, 3, 4, 5, 6, 7, 8}, kPeUdata8) == 0x0807060504030201u);
  CHECK(decode({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, kPeSdata8) == uint64_t(-1));
  CHECK(decode({0xe5, 0x8e, 0x26}, kPeUleb128) == 624485u);
  CHECK(decode({0xc0, 0xbb, 0x78}, kPeSleb128) == uint64_t(-123456));
  // pcrel: relative to the field's own address (section vaddr + offset).
  CHECK(decode({0, 0, 0x10, 0, 0, 0}, kPePcrel | kPeSdata4, 2) == 0x1000u + 2 + 0x10);
  CHECK(decode({0xf0, 0xff, 0xff, 0xff}, kPePcrel | kPeSdata4) == 0x1000u - 0x10);
  // datarel: relative to the data base (.eh_frame_hdr).
  CHECK(decode({0x20, 0, 0, 0}, kPeDatarel | kPeSdata4) == 0x8020u);
  // Truncated values and unsupported encodings fail.
  CHECK_FALSE(decode({1, 2, 3}, kPeUdata4));
  CHECK_FALSE(decode({0x80, 0x80}, kPeUleb128));
  CHECK_FALSE(decode({0, 0, 0, 0}, kPeTextrel | kPeSdata4));
  CHECK_FALSE(decode({0, 0, 0, 0}, kPeIndirect | kPePcrel | kPeSdata4));
  CHECK_FALSE(decode({0, 0, 0, 0}, 0x07));
  CHECK_FALSE(decode({0, 0, 0, 0}, kPeOmit));
}

TEST_CASE("an .eh_frame_hdr search table parses, and a malformed one does not", "[cfi]") {
  // version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4, table datarel|sdata4.
  std::vector<uint8_t> hdr = {1, 0x1b, 0x03, 0x3b, 0x10, 0, 0, 0, 2, 0, 0, 0,
                              0x00, 0xf0, 0xff, 0xff, 0x40, 0, 0, 0,   // pc hdr-0x1000, fde hdr+0x40
                              0x20, 0xf0, 0xff, 0xff, 0x60, 0, 0, 0};  // pc hdr-0xfe0, fde hdr+0x60
  auto entries = parse_eh_frame_hdr(Bytes(hdr.data(), hdr.size()), 0x3000);
  REQUIRE(entries);
  REQUIRE(entries->size() == 2);
  CHECK((*entries)[0].initial_location == 0x2000);
  CHECK((*entries)[0].fde_vaddr == 0x3040);
  CHECK((*entries)[1].initial_location == 0x2020);
  CHECK((*entries)[1].fde_vaddr == 0x3060);

  auto truncated = hdr;
  truncated.resize(hdr.size() - 1);
  CHECK_FALSE(parse_eh_frame_hdr(Bytes(truncated.data(), truncated.size()), 0x3000));
  auto huge_count = hdr;
  huge_count[8] = 0xff;
  huge_count[11] = 0x7f;
  CHECK_FALSE(parse_eh_frame_hdr(Bytes(huge_count.data(), huge_count.size()), 0x3000));
  auto bad_version = hdr;
  bad_version[0] = 2;
  CHECK_FALSE(parse_eh_frame_hdr(Bytes(bad_version.data(), bad_version.size()), 0x3000));
  auto no_table = hdr;
  no_table[3] = kPeOmit;
  CHECK_FALSE(parse_eh_frame_hdr(Bytes(no_table.data(), no_table.size()), 0x3000));
}
