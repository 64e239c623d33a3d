// PerfDataReader on perf.data images built byte by byte
// (support/perf_data_image.h): what each record becomes, the header facts
// from the attrs and feature sections, compressed records, what is skipped,
// and files cut or damaged anywhere.

#include <linux/perf_event.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <random>
#include <tuple>

#include "common/error.h"
#include "recording/build_id.h"
#include "recording/perf_data_reader.h"
#include "sampler/proc.h"
#include "support/peak_rss.h"
#include "support/perf_data_image.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"
#include "unwind/registers.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kDwarfSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
                                      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
constexpr uint64_t kRegsMask = 0xff0fff;  // perf's default for --call-graph dwarf on x86-64
constexpr uint64_t kKernelMark = static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
constexpr uint64_t kUserMark = static_cast<uint64_t>(PERF_CONTEXT_USER);

PerfImageEvent dwarf_event() {
  PerfImageEvent e;
  e.sample_type = kDwarfSampleType;
  e.regs_mask = kRegsMask;
  e.stack_size = 64;
  e.ids = {11, 12};
  return e;
}

// rax..r15 in perf's order with the ip (index 8) and sp (index 7) set.
std::vector<uint64_t> regs_with(uint64_t ip, uint64_t sp) {
  std::vector<uint64_t> regs(20, 0);
  for (size_t i = 0; i < regs.size(); ++i) regs[i] = 0x100 + i;
  regs[7] = sp;
  regs[8] = ip;
  return regs;
}

PerfImageSample dwarf_sample(uint64_t time) {
  PerfImageSample s;
  s.ip = 0x401000;
  s.pid = s.tid = 42;
  s.time = time;
  s.period = 1001001;
  s.callchain = {kKernelMark, 0xffffffff81000010ull, 0xffffffff81000020ull};
  s.regs = regs_with(0x401000, 0x7ffd0000);
  s.stack = ByteVector(40, 0xab);
  s.dyn_size = 40;
  return s;
}

// A perf.data image of one `perf record -g` event (id 5), no records yet.
PerfDataImage callchain_image() {
  PerfDataImage img;
  PerfImageEvent e;
  e.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  e.ids = {5};
  img.add_event(e);
  return img;
}

PerfDataImage dwarf_image() {
  PerfDataImage img;
  img.add_event(dwarf_event());
  img.set_hostname("buildhost");
  img.set_os_release("6.1.0-test");
  img.set_cmdline({"/usr/bin/perf", "record", "--call-graph", "dwarf", "--", "./app"});
  img.set_event_names({"cpu-clock:ppp"});
  img.add_build_id("/usr/bin/app", ByteVector{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  img.add_record(img.comm(42, 42, "app", 100));
  img.add_record(img.mmap2(42, 0x400000, 0x2000, 0, "/usr/bin/app", 200));
  img.add_record(img.sample(dwarf_sample(300)));
  return img;
}

// `file` with every event's id list replaced by the first event's (where
// the attrs section, at the offset the header gives, holds them: the last
// 16 bytes of each attr).
ByteVector sharing_first_id_list(ByteVector file, size_t events) {
  uint64_t attr_size = 0, attrs_at = 0;
  std::memcpy(&attr_size, file.data() + 16, 8);
  std::memcpy(&attrs_at, file.data() + 24, 8);
  const size_t list_at = static_cast<size_t>(attrs_at + attr_size - 16);
  for (size_t e = 1; e < events; ++e) std::memcpy(file.data() + list_at + e * attr_size, file.data() + list_at, 16);
  return file;
}

std::vector<Record> read_all(PerfDataReader& reader) {
  std::vector<Record> out;
  while (auto r = reader.next()) {
    if (auto* s = std::get_if<SampleView>(&*r)) s->stack = {}, s->kernel_chain = {}, s->user_chain = {};  // views die
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace

TEST_CASE("recording: perf.data: the header tells the event, rate, stack size, host and command", "[recording][perf_data]") {
  const ByteVector file = dwarf_image().build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "perf.data");
  const RecordingHeader& h = reader.header();
  CHECK(h.event == "cpu-clock");  // the modifiers are perf's
  CHECK(h.frequency == 999);
  CHECK(h.period == 0);
  CHECK(h.stack_size == 64);
  CHECK(h.regs_mask == kRegsMask);
  CHECK(h.host == "buildhost");
  CHECK(h.kernel_release == "6.1.0-test");
  CHECK(h.command == std::vector<std::string>{"./app"});
  CHECK(reader.format() == SourceFormat::kPerfData);
  CHECK(reader.events() == std::vector<std::string>{"cpu-clock:ppp"});
}

TEST_CASE("recording: perf.data: comm, mmap2 with the build-id of its file, and a dwarf sample", "[recording][perf_data]") {
  const ByteVector file = dwarf_image().build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "perf.data");
  auto comm = reader.next();
  REQUIRE(comm);
  REQUIRE(std::holds_alternative<CommRecord>(*comm));
  CHECK(std::get<CommRecord>(*comm).comm == "app");
  CHECK(std::get<CommRecord>(*comm).exec);
  CHECK(std::get<CommRecord>(*comm).time == 100);

  auto map = reader.next();
  REQUIRE(map);
  REQUIRE(std::holds_alternative<MappingRecord>(*map));
  const auto& m = std::get<MappingRecord>(*map);
  CHECK(m.path == "/usr/bin/app");
  CHECK(m.start == 0x400000);
  CHECK(m.length == 0x2000);
  CHECK(m.prot == 5);
  CHECK(m.time == 200);
  CHECK(m.build_id_hex() == "deadbeef0102030405060708090a0b0c0d0e0f10");

  auto rec = reader.next();
  REQUIRE(rec);
  REQUIRE(std::holds_alternative<SampleView>(*rec));
  const auto& s = std::get<SampleView>(*rec);
  CHECK(s.pid == 42);
  CHECK(s.time == 300);
  CHECK(s.period == 1001001);
  CHECK(s.ip == 0x401000);
  CHECK(s.abi == PERF_SAMPLE_REGS_ABI_64);
  const Registers regs = Registers::from_sample(s);
  CHECK(regs.pc() == 0x401000);
  CHECK(regs.sp() == 0x7ffd0000);
  CHECK(regs.get(kRax) == 0x100);
  CHECK(regs.get(kR15) == 0x100 + 19);
  CHECK(s.stack.size() == 40);
  CHECK_FALSE(s.stack_truncated);
  REQUIRE(s.kernel_depth() == 2);
  CHECK(s.kernel_ip(0) == 0xffffffff81000010ull);
  CHECK(s.user_chain.empty());

  CHECK_FALSE(reader.next());
  CHECK(reader.status().state == ReadStatus::State::kComplete);
  CHECK(reader.status().records == 3);
  CHECK(reader.status().skipped.empty());
}

TEST_CASE("recording: perf.data: a -g sample keeps its user chain, an MMAP is code", "[recording][perf_data]") {
  PerfDataImage img = callchain_image();
  img.add_record(img.mmap(7, 0x10000, 0x1000, 0, "/bin/x", 1));
  img.add_record(img.mmap(0xffffffffu, 0xffffffff81000000ull, 0x100000, 0, "[kernel.kallsyms]_text", 1));
  PerfImageSample s;
  s.pid = s.tid = 7;
  s.ip = 0x10010;
  s.time = 2;
  s.callchain = {kKernelMark, 0xffffffff81000100ull, kUserMark, 0x10010, 0x10020, 0x10030};
  img.add_record(img.sample(s));
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "g.data");
  auto map = reader.next();
  REQUIRE(map);
  CHECK(std::get<MappingRecord>(*map).prot == 5);  // PROT_READ | PROT_EXEC
  auto rec = reader.next();
  REQUIRE(rec);
  const auto& sample = std::get<SampleView>(*rec);
  CHECK(sample.kernel_depth() == 1);
  REQUIRE(sample.user_chain_depth() == 3);
  uint64_t second;
  std::memcpy(&second, sample.user_chain.data() + 8, 8);
  CHECK(second == 0x10020);
  CHECK(sample.nregs == 0);
  CHECK_FALSE(reader.next());
  CHECK(reader.status().skipped.at("kernel and module mappings") == 1);
}

TEST_CASE("recording: perf.data: a sample without a call graph is its sampled address alone",
          "[recording][perf_data]") {
  PerfDataImage img;
  PerfImageEvent e;
  e.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  e.ids = {5};
  img.add_event(e);
  img.add_record(img.mmap(7, 0x10000, 0x1000, 0, "/bin/x", 1));
  PerfImageSample user;
  user.id = 5;
  user.pid = user.tid = 7;
  user.ip = 0x10010;
  user.time = 2;
  img.add_record(img.sample(user));
  PerfImageSample kernel = user;
  kernel.misc = 1;  // PERF_RECORD_MISC_KERNEL
  kernel.ip = 0xffffffff81000100ull;
  kernel.time = 3;
  img.add_record(img.sample(kernel));
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "plain.data");
  REQUIRE(reader.next());  // the mapping
  const auto first = reader.next();
  REQUIRE(first);
  const auto& in_user = std::get<SampleView>(*first);
  REQUIRE(in_user.user_chain_depth() == 1);
  uint64_t pc;
  std::memcpy(&pc, in_user.user_chain.data(), 8);
  CHECK(pc == 0x10010);
  CHECK(in_user.kernel_depth() == 0);
  const auto second = reader.next();
  REQUIRE(second);
  const auto& in_kernel = std::get<SampleView>(*second);
  CHECK(in_kernel.user_chain_depth() == 0);
  REQUIRE(in_kernel.kernel_depth() == 1);
  CHECK(in_kernel.kernel_ip(0) == 0xffffffff81000100ull);
}

TEST_CASE("recording: perf.data: compressed records, one record split across them", "[recording][perf_data]") {
  const PerfDataImage plain = dwarf_image();
  const ByteVector plain_file = plain.build();
  PerfDataReader plain_reader(Bytes(plain_file.data(), plain_file.size()), "plain");
  const size_t expected = read_all(plain_reader).size();

  PerfDataImage img;
  img.add_event(dwarf_event());
  ByteVector records;
  for (int i = 0; i < 50; ++i) {
    const ByteVector r = img.sample(dwarf_sample(1000 + i));
    records.insert(records.end(), r.begin(), r.end());
  }
  // 7 pieces: the zstd stream is cut inside records.
  img.add_record(PerfDataImage::compressed(records, 7));
  img.add_record(img.comm(42, 42, "after", 5000));
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "z.data");
  const std::vector<Record> got = read_all(reader);
  CHECK(expected == 3);
  REQUIRE(got.size() == 51);
  for (int i = 0; i < 50; ++i) CHECK(std::get<SampleView>(got[static_cast<size_t>(i)]).time == 1000u + static_cast<unsigned>(i));
  CHECK(std::get<CommRecord>(got[50]).comm == "after");
  CHECK(reader.status().state == ReadStatus::State::kComplete);
  CHECK(reader.status().skipped.empty());
}

TEST_CASE("recording: perf.data: compressed records inflating beyond the bound stop the read, keeping what was read",
          "[recording][perf_data]") {
  // 100,000 identical samples (5.6 MB) compress to about 1 KB: far more than
  // 1000 times.
  PerfDataImage img = callchain_image();
  PerfImageSample s;
  s.ip = 0x401000;
  s.pid = s.tid = 42;
  s.time = 7;
  s.callchain = {kUserMark, 0x401000};
  const ByteVector one = img.sample(s);
  constexpr size_t kSamples = 100'000;
  ByteVector records;
  records.reserve(one.size() * kSamples);
  for (size_t i = 0; i < kSamples; ++i) records.insert(records.end(), one.begin(), one.end());
  img.add_record(img.comm(42, 42, "before", 1));
  const ByteVector bomb = PerfDataImage::compressed(records, 1);
  REQUIRE(bomb.size() * 1000 < records.size());
  img.add_record(bomb);
  img.add_record(img.comm(42, 42, "after", 9));
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "bomb.data");
  const std::vector<Record> got = read_all(reader);
  REQUIRE(got.size() > 1);
  CHECK(std::get<CommRecord>(got[0]).comm == "before");
  const auto samples = static_cast<size_t>(
      std::count_if(got.begin(), got.end(), [](const Record& r) { return std::holds_alternative<SampleView>(r); }));
  CHECK(samples == got.size() - 1);  // no "after"
  // The records of 1000 times the compressed bytes, but for the one cut there.
  const size_t allowed = (bomb.size() - 8) * 1000;
  CHECK(samples * one.size() <= allowed);
  CHECK(samples * one.size() > allowed - one.size());
  CHECK(reader.status().state == ReadStatus::State::kCorrupt);
  CHECK_THAT(reader.status().problem, Catch::Contains("inflates more than 1000 times"));
}

TEST_CASE("recording: perf.data: other events, 32-bit samples and unknown records are skipped and counted",
          "[recording][perf_data]") {
  PerfDataImage img;
  PerfImageEvent dummy;  // perf's side-band placeholder comes first
  dummy.config = 9;
  dummy.sample_type = kDwarfSampleType | PERF_SAMPLE_IDENTIFIER;
  dummy.regs_mask = kRegsMask;
  dummy.stack_size = 64;
  dummy.ids = {1};
  img.add_event(dummy);
  PerfImageEvent clock = dummy;
  clock.config = 0;
  clock.ids = {2};
  img.add_event(clock);
  PerfImageEvent faults = dummy;
  faults.config = 2;
  faults.ids = {3};
  img.add_event(faults);
  PerfImageSample s = dwarf_sample(10);
  s.id = 2;
  img.add_record(img.sample(s));
  s.id = 3;
  img.add_record(img.sample(s));
  s.id = 99;
  img.add_record(img.sample(s));
  s.id = 2;
  s.abi = PERF_SAMPLE_REGS_ABI_32;
  img.add_record(img.sample(s));
  img.add_record(PerfDataImage::record(200, 0, ByteVector(16, 0)));
  img.add_record(PerfDataImage::record(68, 0, {}));  // FINISHED_ROUND: nothing to count
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "multi.data");
  CHECK(reader.header().event == "cpu-clock");
  CHECK(reader.events() == std::vector<std::string>{"cpu-clock", "dummy", "page-faults"});
  CHECK(read_all(reader).size() == 1);
  const auto& skipped = reader.status().skipped;
  CHECK(skipped.at("samples of event 'page-faults'") == 1);
  CHECK(skipped.at("samples of unknown events") == 1);
  CHECK(skipped.at("samples of 32-bit processes") == 1);
  CHECK(skipped.at("records of type 200") == 1);
  CHECK(skipped.size() == 4);
  CHECK(reader.status().state == ReadStatus::State::kComplete);
}

TEST_CASE("recording: perf.data: damaged headers are one clear error", "[recording][perf_data]") {
  const ByteVector good = dwarf_image().build();
  auto error_of = [](ByteVector bytes) -> std::string {
    try {
      PerfDataReader reader(Bytes(bytes.data(), bytes.size()), "bad.data");
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  };
  auto patched = [&](size_t at, uint64_t value) {
    ByteVector b = good;
    std::memcpy(b.data() + at, &value, 8);
    return b;
  };
  CHECK_THAT(error_of(ByteVector(good.begin(), good.begin() + 50)), Catch::Contains("cut inside its header"));
  CHECK_THAT(error_of(patched(8, 16)), Catch::Contains("pipe"));
  CHECK_THAT(error_of(patched(8, 200)), Catch::Contains("damaged header"));
  CHECK_THAT(error_of(patched(16, 7)), Catch::Contains("damaged header"));                  // attr_size
  CHECK_THAT(error_of(patched(24, uint64_t{1} << 40)), Catch::Contains("attribute section"));  // attrs offset
  CHECK_THAT(error_of(patched(32, 0)), Catch::Contains("damaged header"));                  // no events
  CHECK_THAT(error_of(patched(40, uint64_t{1} << 40)), Catch::Contains("before its data"));  // data offset
}

TEST_CASE("recording: perf.data: cut at any byte or with random damage, never a crash", "[recording][perf_data]") {
  PerfDataImage img = dwarf_image();
  ByteVector records;
  for (int i = 0; i < 20; ++i) {
    const ByteVector r = img.sample(dwarf_sample(400 + i));
    records.insert(records.end(), r.begin(), r.end());
  }
  img.add_record(PerfDataImage::compressed(records, 3));
  const ByteVector good = img.build();
  size_t refused = 0, cut_short = 0;
  for (size_t size = 0; size < good.size(); size += exhaustive_step()) {
    try {
      PerfDataReader reader(Bytes(good.data(), size), "cut.data");
      read_all(reader);
      CHECK(reader.status().state != ReadStatus::State::kReading);
      CHECK(reader.status().good_bytes <= size);
      cut_short += reader.status().state != ReadStatus::State::kComplete;
    } catch (const Error&) {
      ++refused;
    }
  }
  CHECK(refused > 0);
  CHECK(cut_short > 0);
  std::mt19937 rng(14);
  for (size_t round = 0; round < rounds(2000); ++round) {
    ByteVector bad = good;
    for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    try {
      PerfDataReader reader(Bytes(bad.data(), bad.size()), "bad.data");
      read_all(reader);
      CHECK(reader.status().state != ReadStatus::State::kReading);
    } catch (const Error&) {
    }
  }
}

TEST_CASE("recording: perf.data: the running vDSO serves when perf recorded its build-id", "[recording][perf_data]") {
  const std::vector<uint8_t> vdso = read_own_vdso();
  REQUIRE_FALSE(vdso.empty());
  const auto id = read_build_id(Bytes(vdso.data(), vdso.size()));
  REQUIRE(id);
  PerfDataImage img = dwarf_image();
  img.add_build_id("[vdso]", *id);
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "vdso.data");
  auto first = reader.next();
  REQUIRE(first);
  REQUIRE(std::holds_alternative<ImageRecord>(*first));
  CHECK(std::get<ImageRecord>(*first).name == "[vdso]");
  CHECK(std::get<ImageRecord>(*first).bytes.size() == vdso.size());

  PerfDataImage other = dwarf_image();
  other.add_build_id("[vdso]", ByteVector(20, 0x77));  // another kernel's
  const ByteVector other_file = other.build();
  PerfDataReader other_reader(Bytes(other_file.data(), other_file.size()), "other.data");
  auto rec = other_reader.next();
  REQUIRE(rec);
  CHECK(std::holds_alternative<CommRecord>(*rec));
}

namespace {

// 120 samples with 32 KiB stacks (about 4 MB: several of the reader's 1 MiB
// windows, records cut by their boundaries), sample i's stack filled with
// byte i and dyn_size varying; after sample 60 an AUX area record whose
// 3 MB payload is skipped (past the window).
struct BigImage {
  ByteVector file;
  std::vector<size_t> sample_ends;  // file offset after each sample
};

BigImage big_image() {
  PerfDataImage img;
  PerfImageEvent e = dwarf_event();
  e.stack_size = 32768;
  img.add_event(e);
  std::vector<size_t> ends;  // within the data section
  size_t data = 0;
  auto add = [&](const ByteVector& r) {
    img.add_record(r);
    data += r.size();
  };
  add(img.comm(42, 42, "app", 100));
  for (int i = 0; i < 120; ++i) {
    PerfImageSample s = dwarf_sample(1000 + static_cast<uint64_t>(i));
    s.stack = ByteVector(32768, static_cast<uint8_t>(i));
    s.dyn_size = 32768 - static_cast<uint64_t>(i) * 200;
    add(img.sample(s));
    ends.push_back(data);
    if (i == 60) {
      ByteVector aux(40, 0);
      const uint64_t payload = 3u << 20;
      std::memcpy(aux.data(), &payload, 8);
      add(PerfDataImage::record(71, 0, aux));  // PERF_RECORD_AUXTRACE
      add(ByteVector(payload, 0xee));
    }
  }
  BigImage out{img.build(), {}};
  // The data section starts where the first comm record sits.
  const ByteVector first = img.comm(42, 42, "app", 100);
  const auto at = std::search(out.file.begin(), out.file.end(), first.begin(), first.end()) - out.file.begin();
  for (size_t end : ends) out.sample_ends.push_back(static_cast<size_t>(at) + end);
  return out;
}

// The samples' (time, first stack byte, stack size), in order.
std::vector<std::tuple<uint64_t, uint8_t, size_t>> samples_of(PerfDataReader& reader) {
  std::vector<std::tuple<uint64_t, uint8_t, size_t>> out;
  while (auto r = reader.next())
    if (auto* s = std::get_if<SampleView>(&*r))
      out.emplace_back(s->time, s->stack.empty() ? 0 : s->stack.front(), s->stack.size());
  return out;
}

}  // namespace

TEST_CASE("recording: perf.data: a data section of many windows gives every record, cut, those before the cut",
          "[recording][perf_data]") {
  const BigImage big = big_image();
  REQUIRE(big.file.size() > (6u << 20));
  {
    PerfDataReader reader(Bytes(big.file.data(), big.file.size()), "big.data");
    const auto samples = samples_of(reader);
    CHECK(reader.status().state == ReadStatus::State::kComplete);
    CHECK(reader.status().skipped.at("AUX area trace data") == 1);
    REQUIRE(samples.size() == 120);
    for (size_t i = 0; i < samples.size(); ++i) {
      INFO("sample " << i);
      CHECK(std::get<0>(samples[i]) == 1000 + i);
      CHECK(std::get<1>(samples[i]) == static_cast<uint8_t>(i));
      CHECK(std::get<2>(samples[i]) == 32768 - i * 200);
    }
  }
  // Cut inside sample 30, inside the AUX payload, inside sample 100, and
  // one byte short of the end.
  for (size_t cut : {big.sample_ends[30] - 5000, big.sample_ends[60] + 1'000'000, big.sample_ends[100] - 1,
                     big.sample_ends[119] - 1}) {
    INFO("cut at " << cut);
    PerfDataReader reader(Bytes(big.file.data(), cut), "cut.data");
    const auto samples = samples_of(reader);
    const size_t before = static_cast<size_t>(
        std::upper_bound(big.sample_ends.begin(), big.sample_ends.end(), cut) - big.sample_ends.begin());
    CHECK(samples.size() == before);
    CHECK(reader.status().state == ReadStatus::State::kTruncated);
    CHECK(reader.status().good_bytes <= cut);
  }
}

TEST_CASE("recording: perf.data: kernel and module mappings are skipped but tell where the recorded kernel was",
          "[recording][perf_data]") {
  PerfDataImage img = callchain_image();
  img.add_build_id("[kernel.kallsyms]", ByteVector(20, 0x4d));
  constexpr uint32_t kKernelPid = 0xffffffffu;
  const std::string modules = "/lib/modules/6.1.0/kernel/fs/";
  img.add_record(img.mmap(kKernelPid, 0xffffffff9a000000ull, 0x1200000, 0xffffffff9a000000ull, "[kernel.kallsyms]_text", 1));
  img.add_record(img.mmap(kKernelPid, 0xffffffffc0a00000ull, 0x10000, 0, modules + "ext4/ext4.ko", 1));
  img.add_record(img.mmap2(kKernelPid, 0xffffffffc0b00000ull, 0x2000, 0, modules + "xfs/xfs.ko", 1));
  img.add_record(img.mmap(7, 0x10000, 0x1000, 0, "/bin/x", 1));
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "k.data");
  REQUIRE(reader.recorded_kernel());
  CHECK(reader.recorded_kernel()->build_id == BuildId(20, 0x4d));
  // Known before any record is read: perf writes them first.
  CHECK(reader.recorded_kernel()->text_address == 0xffffffff9a000000ull);
  CHECK(reader.recorded_kernel()->modules.size() == 2);
  auto map = reader.next();
  REQUIRE(map);
  CHECK(std::get<MappingRecord>(*map).path == "/bin/x");  // the kernel's are no process's mappings
  CHECK_FALSE(reader.next());
  CHECK(reader.status().skipped.at("kernel and module mappings") == 3);
  const RecordedKernel& k = *reader.recorded_kernel();
  CHECK(k.text_symbol == "_text");
  CHECK(k.text_address == 0xffffffff9a000000ull);
  REQUIRE(k.modules.size() == 2);  // each once, though read at the start and again in turn
  CHECK(k.modules[0].name == "[ext4]");
  CHECK(k.modules[1].name == "[xfs]");
  CHECK(k.modules[1].end == 0xffffffffc0b02000ull);
}

TEST_CASE("recording: perf.data: kernel mappings after a process's record or in compressed data are noted once read",
          "[recording][perf_data]") {
  PerfDataImage img = callchain_image();
  constexpr uint32_t kKernelPid = 0xffffffffu;
  const ByteVector ext4 = img.mmap(kKernelPid, 0xffffffffc0a00000ull, 0x10000, 0, "/lib/modules/6.1/kernel/fs/ext4/ext4.ko", 1);
  const ByteVector process = img.mmap(7, 0x10000, 0x1000, 0, "/bin/x", 1);
  const ByteVector kernel =
      img.mmap(kKernelPid, 0xffffffff9a000000ull, 0x1200000, 0xffffffff9a000000ull, "[kernel.kallsyms]_text", 1);
  const ByteVector xfs = img.mmap2(kKernelPid, 0xffffffffc0b00000ull, 0x2000, 0, "/lib/modules/6.1/kernel/fs/xfs/xfs.ko", 1);
  size_t known_at_open = 0;
  SECTION("after a process's record") {
    for (const ByteVector* r : {&ext4, &process, &kernel, &xfs}) img.add_record(*r);
    known_at_open = 1;  // ext4 came before it
  }
  SECTION("in compressed data (perf record -z)") {
    ByteVector records;
    for (const ByteVector* r : {&ext4, &kernel, &xfs, &process}) records.insert(records.end(), r->begin(), r->end());
    img.add_record(PerfDataImage::compressed(records, 2));
  }
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "late.data");
  REQUIRE(reader.recorded_kernel());
  CHECK(reader.recorded_kernel()->text_symbol.empty());  // not known before it is read
  CHECK(reader.recorded_kernel()->modules.size() == known_at_open);
  while (reader.next()) {
  }
  const RecordedKernel& k = *reader.recorded_kernel();
  CHECK(k.text_symbol == "_text");
  CHECK(k.text_address == 0xffffffff9a000000ull);
  REQUIRE(k.modules.size() == 2);
  CHECK(k.modules[0].name == "[ext4]");
  CHECK(k.modules[1].name == "[xfs]");
}

namespace {

// Samples with 32 KB stack copies (what `perf record --call-graph dwarf,32768`
// writes), of which `dyn[i]` bytes are stack, among smaller records.
ByteVector large_stack_file(const std::vector<uint64_t>& dyn, uint64_t sample_type) {
  PerfDataImage img;
  PerfImageEvent e = dwarf_event();
  e.sample_type = sample_type;
  e.stack_size = 32768;
  img.add_event(e);
  img.add_record(img.comm(42, 42, "app", 1));
  for (size_t i = 0; i < dyn.size(); ++i) {
    PerfImageSample s = dwarf_sample(10 + i);
    s.id = 11;
    s.stack.resize(static_cast<size_t>(std::min<uint64_t>(dyn[i], 32768)));
    for (size_t b = 0; b < s.stack.size(); ++b) s.stack[b] = static_cast<uint8_t>(b * 7 + i);
    s.dyn_size = dyn[i];
    s.weight = 1000 + i;
    img.add_record(img.sample(s));
    if (i % 5 == 4) img.add_record(img.comm(42, 42, "app" + std::to_string(i), 10 + i));
  }
  return img.build();
}

}  // namespace

// 40 samples of 1,000 stack bytes (past the reader's first 1 MiB read: from
// then on, samples are read as they come), then each of `tests` after one
// of 1,000 bytes (so that it is large against the last one's need).
std::vector<uint64_t> after_warm_up(const std::vector<uint64_t>& tests) {
  std::vector<uint64_t> dyn(40, 1000);
  for (uint64_t t : tests) dyn.push_back(1000), dyn.push_back(t);
  return dyn;
}

TEST_CASE("recording: perf.data: large stack copies read without their unused end give the same samples",
          "[recording][perf_data]") {
  // Stacks of 0 to 32768 bytes: none, a few bytes, most of the copy, all of
  // it but 8 or 16 bytes, all of it (full: truncated), and more than the
  // copy holds (damaged); then sizes at random.
  std::vector<uint64_t> tests = {0, 8, 100, 5000, 20000, 32752, 32760, 32768, 32776};
  for (uint64_t i = 0; i < 60; ++i) tests.push_back((i * 2654435761u) % 32769);
  const std::vector<uint64_t> dyn = after_warm_up(tests);
  uint64_t st = kDwarfSampleType;
  SECTION("nothing after the copy") {}
  SECTION("a field after the copy") { st |= PERF_SAMPLE_WEIGHT; }
  const ByteVector file = large_stack_file(dyn, st);
  TempDir dir;
  const std::string path = dir.file("large.data");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  PerfDataReader reader(path);
  size_t i = 0;  // into dyn
  std::string comm;
  while (auto r = reader.next()) {
    if (auto* c = std::get_if<CommRecord>(&*r)) comm = c->comm;
    auto* s = std::get_if<SampleView>(&*r);
    if (!s) continue;
    if (dyn[i] > 32768) ++i;  // damaged: skipped
    REQUIRE(i < dyn.size());
    INFO("sample " << i << ", dyn_size " << dyn[i]);
    CHECK(s->time == 10 + i);
    CHECK(s->ip == 0x401000);
    CHECK(s->regs[7] == 0x7ffd0000);
    CHECK(s->kernel_chain.size() == 16);  // two addresses
    CHECK(s->stack.size() == dyn[i]);
    CHECK(s->stack_truncated == (dyn[i] == 32768));
    bool same = true;
    for (size_t b = 0; b < s->stack.size(); ++b) same &= s->stack[b] == static_cast<uint8_t>(b * 7 + i);
    CHECK(same);
    ++i;
  }
  CHECK(i == dyn.size());
  size_t last_comm = 0;
  for (size_t k = 0; k < dyn.size(); ++k)
    if (k % 5 == 4) last_comm = k;
  CHECK(comm == "app" + std::to_string(last_comm));
  CHECK(reader.status().state == ReadStatus::State::kComplete);
  REQUIRE(reader.status().skipped.size() == 1);
  CHECK(reader.status().skipped.at("damaged samples") == 1);
  // The tests but the full and the damaged one, at least, were read in parts.
  CHECK(reader.sparse_samples() >= tests.size() - 2);
}

TEST_CASE("recording: perf.data: a file cut inside a large stack copy while it is read ends at the cut",
          "[recording][perf_data]") {
  const std::vector<uint64_t> dyn = after_warm_up({7000});  // the last is read in parts
  const ByteVector file = large_stack_file(dyn, kDwarfSampleType);
  const size_t record = file.size() - large_stack_file(std::vector<uint64_t>(dyn.begin(), dyn.end() - 1), kDwarfSampleType).size();
  uint64_t data_at = 0, data_size = 0;  // perf_file_header.data
  std::memcpy(&data_at, file.data() + 40, 8);
  std::memcpy(&data_size, file.data() + 48, 8);
  const size_t data_end = static_cast<size_t>(data_at + data_size);
  TempDir dir;
  const std::string path = dir.file("cut.data");
  // In its start, in the stack, in the unused copy, in dyn_size.
  for (size_t cut : {size_t{100}, size_t{5000}, size_t{20000}, record - 4}) {
    INFO("cut " << cut << " bytes into the last sample");
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    PerfDataReader reader(path);  // sizes taken from the whole file
    REQUIRE(::truncate(path.c_str(), static_cast<off_t>(data_end - record + cut)) == 0);
    size_t samples = 0;
    while (auto r = reader.next()) samples += std::holds_alternative<SampleView>(*r);
    CHECK(samples == dyn.size() - 1);
    CHECK(reader.status().state == ReadStatus::State::kTruncated);
    CHECK(reader.status().problem == "file ends inside a record at byte " + std::to_string(data_end - record));
  }
  SECTION("whole: the last one is read in parts") {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    PerfDataReader reader(path);
    size_t samples = 0;
    while (auto r = reader.next()) samples += std::holds_alternative<SampleView>(*r);
    CHECK(samples == dyn.size());
    CHECK(reader.sparse_samples() >= 1);
  }
}

TEST_CASE("recording: perf.data: more kernel mappings than the first look reaches are all noted, once read",
          "[recording][perf_data]") {
  PerfDataImage img = callchain_image();
  constexpr uint32_t kKernelPid = 0xffffffffu;
  img.add_record(img.mmap(kKernelPid, 0xffffffff9a000000ull, 0x1200000, 0xffffffff9a000000ull, "[kernel.kallsyms]_text", 1));
  constexpr size_t kModules = 3000;  // about 400 KiB of mappings
  for (size_t m = 0; m < kModules; ++m)
    img.add_record(img.mmap(kKernelPid, 0xffffffffc0000000ull + 0x10000 * m, 0x10000, 0,
                            "/lib/modules/6.1/kernel/drivers/misc/module" + std::to_string(m) + ".ko", 1));
  img.add_record(img.mmap(7, 0x10000, 0x1000, 0, "/bin/x", 1));
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "many.data");
  REQUIRE(reader.recorded_kernel());
  // Not known at the start: a kernel whose modules are not all known yet is not handed out.
  CHECK(reader.recorded_kernel()->text_symbol.empty());
  CHECK(reader.recorded_kernel()->modules.empty());
  while (reader.next()) {
  }
  CHECK(reader.recorded_kernel()->text_symbol == "_text");
  CHECK(reader.recorded_kernel()->modules.size() == kModules);
}

TEST_CASE("recording: perf.data: FINISHED_ROUND lets go of what is older than the round before it, as perf does",
          "[recording][perf_data]") {
  PerfDataImage img = dwarf_image();  // comm at 100, mmap at 200, a sample at 300
  const ByteVector round = PerfDataImage::record(68, 0, {});
  img.add_record(round);  // the first round: nothing before it to let go of
  img.add_record(img.sample(dwarf_sample(250)));  // older than the round's newest: perf allows it
  img.add_record(img.sample(dwarf_sample(400)));
  img.add_record(round);  // everything after it is at 300 or later
  img.add_record(img.sample(dwarf_sample(500)));
  img.add_record(round);
  img.add_record(round);  // nothing new since: the same time again
  const ByteVector file = img.build();
  PerfDataReader reader(Bytes(file.data(), file.size()), "rounds.data");
  std::vector<std::string> seen;
  for (const Record& r : read_all(reader)) {
    if (const auto* f = std::get_if<FlushRecord>(&r)) seen.push_back("flush " + std::to_string(f->time));
    else if (const auto* s = std::get_if<SampleView>(&r)) seen.push_back("sample " + std::to_string(s->time));
  }
  CHECK(seen == std::vector<std::string>{"sample 300", "sample 250", "sample 400", "flush 300", "sample 500",
                                         "flush 400", "flush 500"});
}

TEST_CASE("recording: perf.data: events that share one id list read it once, in bounded memory",
          "[recording][perf_data]") {
  // 128 events naming one list of 131,072 ids (1 MiB): each copied and
  // indexed, 128 MiB and 16 M insertions.
  constexpr size_t kEvents = 128, kIds = 1u << 17;
  PerfDataImage img;
  PerfImageEvent e = dwarf_event();
  e.sample_type |= PERF_SAMPLE_IDENTIFIER;
  e.ids.clear();
  for (uint64_t id = 1; id <= kIds; ++id) e.ids.push_back(id);
  img.add_event(e);
  e.ids.clear();
  for (size_t i = 1; i < kEvents; ++i) img.add_event(e);
  PerfImageSample s = dwarf_sample(300);
  s.id = kIds;  // the last id of the shared list: the first event's
  img.add_record(img.sample(s));
  const ByteVector file = sharing_first_id_list(img.build(), kEvents);
  reset_peak_rss();
  const size_t before = rss_kb();
  PerfDataReader reader(Bytes(file.data(), file.size()), "shared.data");
  const std::vector<Record> got = read_all(reader);
  CHECK(peak_rss_kb() < before + 32 * 1024);  // KB
  REQUIRE(got.size() == 1);
  CHECK(std::get<SampleView>(got[0]).time == 300);
  CHECK(reader.status().skipped.empty());
}

TEST_CASE("recording: perf.data: more sample ids than the bound over all events is one clear error",
          "[recording][perf_data]") {
  // Two events of 600,000 ids each: either alone is within the bound.
  PerfDataImage img;
  PerfImageEvent e = dwarf_event();
  e.sample_type |= PERF_SAMPLE_IDENTIFIER;
  e.ids.assign(600'000, 7);
  img.add_event(e);
  img.add_event(e);
  img.add_record(img.sample(dwarf_sample(300)));
  const ByteVector file = img.build();
  CHECK_THROWS_WITH(PerfDataReader(Bytes(file.data(), file.size()), "ids.data"),
                    Catch::Contains("damaged attribute section") && Catch::Contains("sample ids"));
}
