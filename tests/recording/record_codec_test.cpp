#include "recording/record_codec.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "support/record_fixtures.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::vector<std::string> round_trip(const std::vector<Record>& records) {
  RecordEncoder enc;
  std::vector<uint8_t> buf;
  for (const auto& r : records) enc.encode(r, buf);
  RecordDecoder dec;
  ByteReader reader(Bytes(buf.data(), buf.size()));
  std::vector<std::string> out;
  while (!reader.at_end()) {
    DecodeResult res = dec.decode(reader);
    REQUIRE(res.status == DecodeResult::Status::kOk);
    out.push_back(to_text(res.record));
  }
  return out;
}

}  // namespace

TEST_CASE("every record type survives encode and decode", "[record_codec]") {
  auto s1 = make_sample(7, 1000, 0x7ffc0000f000, std::vector<uint8_t>(300, 9), {0xffffffff81000010ull, 0xffffffff81000020ull});
  auto s2 = make_sample(7, 2000, 0x7ffc0000efc0, std::vector<uint8_t>(364, 9));
  auto s3 = make_sample(8, 3000, 0x7ffc00100000, {});
  s2.view.stack_truncated = true;
  s3.view.off_cpu = true;
  std::vector<uint8_t> image = {0x7f, 'E', 'L', 'F', 1, 2, 3};
  std::vector<Record> records = {
      make_mapping(10, "/usr/lib/libc.so.6", true),
      make_mapping(11, "[vdso]", false),
      CommRecord{12, 100, 7, true, "my app"},
      TaskRecord{false, 13, 100, 1, 8, 7},
      TaskRecord{true, 14, 100, 1, 8, 8},
      LostRecord{15, 1, 42},
      ThrottleRecord{16, 0, true},
      ThrottleRecord{17, 0, false},
      ImageRecord{"[vdso]", Bytes(image.data(), image.size())},
      s1.view,
      s2.view,
      s3.view,
      SwitchRecord{3100, 100, 8, 1, true, true, false},
      SwitchRecord{3200, 100, 8, 0, false, false, false},
      SwitchRecord{3300, 100, 9, 1, true, false, true},
      OffCpuRepeatRecord{3400, 100, 8, 3000},
      FlushRecord{3500},
      EndRecord{R"({"samples":3})"},
  };
  std::vector<std::string> expected;
  for (const auto& r : records) expected.push_back(to_text(r));
  CHECK(round_trip(records) == expected);
}

TEST_CASE("off-CPU samples and switch records keep their flags", "[record_codec]") {
  auto s = make_sample(7, 1000, 0x7ffc0000f000, std::vector<uint8_t>(64, 1));
  s.view.off_cpu = true;
  auto out = round_trip({s.view, SwitchRecord{1100, 100, 7, 1, true, true, false},
                         SwitchRecord{1200, 100, 7, 0, false, false, true}});
  REQUIRE(out.size() == 3);
  CHECK(out[0].find("off=1") != std::string::npos);
  CHECK(out[1] == "switch-out t=1100 100/7 cpu=1 preempted=1 syn=0");
  CHECK(out[2] == "switch-in t=1200 100/7 cpu=0 preempted=0 syn=1");
}

TEST_CASE("a sample whose registers are only ip and sp keeps that flag", "[record_codec]") {
  auto partial = make_sample(7, 1000, 0x7ffc0000f000, std::vector<uint8_t>(64, 1));
  partial.view.ip_sp_only = true;
  auto full = make_sample(7, 2000, 0x7ffc0000f000, std::vector<uint8_t>(64, 1));
  RecordEncoder enc;
  std::vector<uint8_t> buf;
  enc.encode(partial.view, buf);
  enc.encode(full.view, buf);
  RecordDecoder dec;
  ByteReader reader(Bytes(buf.data(), buf.size()));
  auto first = dec.decode(reader);
  auto second = dec.decode(reader);
  REQUIRE(first.status == DecodeResult::Status::kOk);
  REQUIRE(second.status == DecodeResult::Status::kOk);
  CHECK(std::get<SampleView>(first.record).ip_sp_only);
  CHECK_FALSE(std::get<SampleView>(second.record).ip_sp_only);
  CHECK(std::get<SampleView>(first.record).regs[7] == 0x7ffc0000f000);
}

TEST_CASE("a sample with stack read past its copy keeps how much", "[record_codec]") {
  // The thread's second sample is delta-coded against the first, both with bytes past the copy.
  std::vector<uint8_t> bytes(600);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 13);
  auto extended = make_sample(7, 1000, 0x7ffc0000f000, bytes);
  extended.view.stack_truncated = true;
  extended.view.stack_beyond = 200;
  auto again = make_sample(7, 2000, 0x7ffc0000f040, std::vector<uint8_t>(bytes.begin() + 64, bytes.end()));
  again.view.stack_truncated = true;
  again.view.stack_beyond = 200;
  auto plain = make_sample(7, 3000, 0x7ffc0000f000, std::vector<uint8_t>(64, 1));
  auto out = round_trip({extended.view, again.view, plain.view});
  REQUIRE(out.size() == 3);
  CHECK(out[0] == to_text(extended.view));
  CHECK(out[0].find("beyond=200:") != std::string::npos);
  CHECK(out[1] == to_text(again.view));
  CHECK(out[2].find("beyond=") == std::string::npos);
}

TEST_CASE("a sample read past its copy keeps the map of its copy's end", "[record_codec]") {
  std::vector<uint8_t> bytes(600);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 13);
  const std::vector<uint8_t> changed = {0x01, 0x80, 0x00, 0x11, 0x00, 0x00};  // the copy's last 384 bytes
  auto extended = make_sample(7, 1000, 0x7ffc0000f000, bytes);
  extended.view.stack_truncated = true;
  extended.view.stack_beyond = 200;
  extended.view.beyond_changed = Bytes(changed.data(), changed.size());
  extended.view.beyond_delay_us = 1234;
  auto older = make_sample(7, 2000, 0x7ffc0000f000, bytes);  // version 3: no map
  older.view.stack_truncated = true;
  older.view.stack_beyond = 200;
  auto out = round_trip({extended.view, older.view});
  REQUIRE(out.size() == 2);
  CHECK(out[0] == to_text(extended.view));
  CHECK(out[0].find("changed=1.128.0.17.0.0.:delay=1234:") != std::string::npos);
  CHECK(out[1] == to_text(older.view));
  CHECK(out[1].find("changed=") == std::string::npos);
}

TEST_CASE("the map of a copy's end is bounded by the copy and kMaxStackReread", "[record_codec][hostile]") {
  // nchanged (u16), the map and the delay (u32) are the record's last fields.
  auto decode_with_map = [](uint32_t stack_bytes, uint32_t beyond, size_t map_bytes, uint16_t claimed,
                            uint32_t delay_us = 0) {
    std::vector<uint8_t> map(map_bytes, 0);
    auto s = make_sample(1, 1, 0x1000, std::vector<uint8_t>(stack_bytes, 1));
    s.view.stack_beyond = beyond;
    s.view.beyond_changed = Bytes(map.data(), map.size());
    RecordEncoder enc;
    std::vector<uint8_t> buf;
    enc.encode(s.view, buf);
    std::memcpy(buf.data() + buf.size() - 4 - map_bytes - 2, &claimed, 2);
    std::memcpy(buf.data() + buf.size() - 4, &delay_us, 4);
    RecordDecoder dec;
    ByteReader r(Bytes(buf.data(), buf.size()));
    return dec.decode(r).status;
  };
  using S = DecodeResult::Status;
  CHECK(decode_with_map(4096, 1024, 48, 48) == S::kOk);
  CHECK(decode_with_map(4096, 1024, 49, 49) == S::kCorrupt);  // 49 * 64 bytes: more than the 3072 copied
  CHECK(decode_with_map(8192, 1024, 48, 49) == S::kCorrupt);  // more than the record holds
  CHECK(decode_with_map(4096, 1024, 48, 0) == S::kCorrupt);
  CHECK(decode_with_map(4096, 1024, 48, 48, kMaxStackReadDelayUs) == S::kOk);
  CHECK(decode_with_map(4096, 1024, 48, 48, kMaxStackReadDelayUs + 1) == S::kCorrupt);
  CHECK(decode_with_map(kMaxStackReread + 64, 64, kMaxStackReread / 64, kMaxStackReread / 64) == S::kOk);
  CHECK(decode_with_map(kMaxStackSize + 64 * 8, 64 * 8, kMaxStackReread / 64 + 1, kMaxStackReread / 64 + 1) ==
        S::kCorrupt);  // more than the largest copy
}

TEST_CASE("the stack read past a copy is bounded", "[record_codec][hostile]") {
  // The size after the stored bytes is the record's last field.
  auto decode_with_beyond = [](uint32_t stack_bytes, uint32_t beyond, uint32_t max_stack) {
    auto s = make_sample(1, 1, 0x1000, std::vector<uint8_t>(stack_bytes, 1));
    s.view.stack_beyond = 1;
    RecordEncoder enc;
    std::vector<uint8_t> buf;
    enc.encode(s.view, buf);
    std::memcpy(buf.data() + buf.size() - 4, &beyond, 4);
    RecordDecoder dec;
    dec.set_max_stack_size(max_stack);
    ByteReader r(Bytes(buf.data(), buf.size()));
    return dec.decode(r).status;
  };
  using S = DecodeResult::Status;
  CHECK(decode_with_beyond(64, 32, 32) == S::kOk);
  CHECK(decode_with_beyond(64, 16, 32) == S::kCorrupt);  // the kernel's part past --stack-size
  CHECK(decode_with_beyond(64, 65, 32) == S::kCorrupt);  // more past the copy than the stack holds
  CHECK(decode_with_beyond(kMaxStackBeyond + 8, kMaxStackBeyond + 8, 65528) == S::kCorrupt);
  CHECK(decode_with_beyond(kMaxStackBeyond + 8, kMaxStackBeyond, 65528) == S::kOk);
  SECTION("the flag without the size is damaged") {
    auto s = make_sample(1, 1, 0x1000, std::vector<uint8_t>(64, 1));
    s.view.stack_beyond = 8;
    RecordEncoder enc;
    std::vector<uint8_t> buf;
    enc.encode(s.view, buf);
    buf.resize(buf.size() - 4);
    const uint32_t size = static_cast<uint32_t>(buf.size());
    std::memcpy(buf.data(), &size, 4);
    RecordDecoder dec;
    ByteReader r(Bytes(buf.data(), buf.size()));
    CHECK(dec.decode(r).status == S::kCorrupt);
  }
}

TEST_CASE("synthesized mappings keep their flag", "[record_codec]") {
  auto m = make_mapping(1, "/bin/x", false);
  m.synthesized = true;
  auto out = round_trip({m});
  CHECK(out[0].find("syn=1") != std::string::npos);
}

TEST_CASE("records of unknown type are skipped, not fatal", "[record_codec]") {
  std::vector<uint8_t> buf;
  ByteWriter w(buf);
  w.put<uint32_t>(12);
  w.put<uint16_t>(999);
  w.put<uint16_t>(0);
  w.put<uint32_t>(0xdeadbeef);
  RecordEncoder enc;
  enc.encode(CommRecord{1, 2, 3, false, "next"}, buf);
  RecordDecoder dec;
  ByteReader r(Bytes(buf.data(), buf.size()));
  CHECK(dec.decode(r).status == DecodeResult::Status::kUnknownType);
  auto res = dec.decode(r);
  REQUIRE(res.status == DecodeResult::Status::kOk);
  CHECK(std::get<CommRecord>(res.record).comm == "next");
}

TEST_CASE("damaged records are reported as corrupt", "[record_codec]") {
  RecordEncoder enc;
  auto s = make_sample(1, 1, 0x1000, std::vector<uint8_t>(64, 1));
  std::vector<uint8_t> buf;
  enc.encode(s.view, buf);
  SECTION("cut short") {
    buf.resize(buf.size() - 3);
    RecordDecoder dec;
    ByteReader r(Bytes(buf.data(), buf.size()));
    CHECK(dec.decode(r).status == DecodeResult::Status::kCorrupt);
  }
  SECTION("size smaller than a header") {
    uint32_t tiny = 3;
    std::memcpy(buf.data(), &tiny, 4);
    RecordDecoder dec;
    ByteReader r(Bytes(buf.data(), buf.size()));
    CHECK(dec.decode(r).status == DecodeResult::Status::kCorrupt);
  }
  SECTION("register count out of range") {
    // nregs lives after time, pid, tid, cpu, abi, period, ip: 8+4+4+4+4+8+8 bytes past the header.
    uint16_t nregs = 200;
    std::memcpy(buf.data() + kRecordHeaderSize + 40, &nregs, 2);
    RecordDecoder dec;
    ByteReader r(Bytes(buf.data(), buf.size()));
    CHECK(dec.decode(r).status == DecodeResult::Status::kCorrupt);
  }
}
