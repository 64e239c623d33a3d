// `swprof info`'s view of a recording (profile/info.h): what it holds, and
// how well it unwinds.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "profile/info.h"
#include "recording/recording_writer.h"
#include "support/record_fixtures.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"
#include "support/thread_recording.h"

using namespace swprof;

TEST_CASE("run_info: the recording's contents, and its unwinding only when asked and there are samples",
          "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("threads.swprof");
  testing::write_thread_recording(recording);
  InfoOptions options;
  options.unwind.threads = 1;
  InfoResult with = run_info(recording, options);
  CHECK(with.recording.samples == 4);
  CHECK(with.recording.lost == 5);
  CHECK(with.recording.threads.at(101).comm == "worker");
  REQUIRE(with.unwinding);
  CHECK(with.unwinding->stats.samples == 4);
  CHECK(with.unwinding->unwinder == UnwinderChoice::kChain);

  options.unwind_quality = false;
  CHECK_FALSE(run_info(recording, options).unwinding);

  const std::string empty = dir.file("empty.swprof");
  {
    RecordingWriter w(empty, RecordingHeader{});
    w.finish(EndRecord{"{}"});
  }
  options.unwind_quality = true;
  const InfoResult none = run_info(empty, options);
  CHECK(none.recording.samples == 0);
  CHECK_FALSE(none.unwinding);
}

TEST_CASE("run_info: the contents and the unwinding from one pass over the file", "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("noise.swprof");
  testing::write_noise_recording(recording);
  REQUIRE(std::filesystem::file_size(recording) > 100'000);
  InfoOptions options;
  options.unwind.threads = 1;
  const auto file = RecordingBytes::open(recording, "recording");
  const InfoResult result = run_info(file, options);
  REQUIRE(result.unwinding);
  CHECK(result.unwinding->stats.samples == result.recording.samples);
  CHECK(result.recording.status.ok());
  // Every chunk once, up to the chunk index (which info does not need).
  CHECK(file->bytes_read() <= std::filesystem::file_size(recording));
  const InfoResult alone = run_info(recording, [&] {
    InfoOptions o = options;
    o.unwind_quality = false;
    return o;
  }());
  CHECK(alone.recording.record_counts == result.recording.record_counts);
  CHECK(alone.recording.threads.size() == result.recording.threads.size());
  CHECK(alone.recording.status.chunks == result.recording.status.chunks);
}

TEST_CASE("measure_unwinding: every sample unwound with the chosen unwinder", "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("threads.swprof");
  testing::write_thread_recording(recording);
  UnwindOptions options;
  options.threads = 1;
  options.unwinder = UnwinderChoice::kLibunwind;
  const UnwindQuality quality = measure_unwinding(recording, options);
  CHECK(quality.stats.samples == 4);
  CHECK(quality.unwinder == UnwinderChoice::kLibunwind);
}

TEST_CASE("run_info: a report, package and advice for each executable binary when asked", "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("maps.swprof");
  const std::string program = testing::program_file("sym_target.stripped");
  {
    RecordingWriter w(recording, RecordingHeader{});
    w.write(testing::make_mapping(1, program, false));
    MappingRecord data = testing::make_mapping(2, dir.file("data.bin"), false);
    data.prot = 1;  // read-only: no code, no report
    w.write(data);
    w.finish(EndRecord{"{}"});
  }
  testing::write_file(dir.file("dpkg/fakepkg:amd64.list"), program + "\n");
  InfoOptions options;
  options.unwind_quality = false;
  options.dpkg_info_dir = dir.file("dpkg");
  options.symbols.debug_roots.clear();
  CHECK_FALSE(run_info(recording, options).recording.binaries.at(program).report);

  options.inspect_binaries = true;
  const InfoResult result = run_info(recording, options);
  const BinaryInfo& b = result.recording.binaries.at(program);
  REQUIRE(b.report);
  CHECK(b.report->status == BinaryStatus::kFound);
  CHECK(b.report->symtab_functions == 0);
  CHECK(b.package == "fakepkg");
  CHECK(b.advice == binary_advice(*b.report, "fakepkg"));
  CHECK(b.advice.front().find("apt install fakepkg-dbgsym") != std::string::npos);
  CHECK_FALSE(result.recording.binaries.at(dir.file("data.bin")).report);
}

TEST_CASE("run_info: every thread seen counts, sampled or not, named or inheriting its name", "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("threads.swprof");
  {
    RecordingWriter w(recording, RecordingHeader{});
    w.write(CommRecord{1, 42, 42, true, "app"});
    w.write(TaskRecord{false, 2, 42, 42, 43, 42});  // a thread never named nor sampled
    w.write(TaskRecord{true, 3, 42, 42, 43, 42});
    w.write(TaskRecord{false, 4, 44, 42, 44, 42});  // a child process, renamed
    w.write(CommRecord{5, 44, 44, false, "helper"});
    w.finish(EndRecord{"{}"});
  }
  InfoOptions options;
  options.unwind_quality = false;
  const RecordingInfo info = run_info(recording, options).recording;
  REQUIRE(info.threads.size() == 3);
  CHECK(info.threads.at(42).comm == "app");
  CHECK(info.threads.at(43).comm == "app");
  CHECK(info.threads.at(43).pid == 42);
  CHECK(info.threads.at(44).comm == "helper");
  CHECK(info.threads.at(44).samples == 0);
}

TEST_CASE("run_info: the stack copy sizes are the kernel's, not the bytes read past the copy", "[recording_info]") {
  testing::TempDir dir;
  const std::string recording = dir.file("beyond.swprof");
  {
    RecordingHeader header;
    header.stack_size = 4096;
    RecordingWriter w(recording, header);
    auto s = testing::make_sample(7, 10, 0x7ffc00000000, std::vector<uint8_t>(4096 + 8192, 1));
    s.view.stack_truncated = true;
    s.view.stack_beyond = 8192;
    w.write(s.view);
    w.finish(EndRecord{"{}"});
  }
  InfoOptions options;
  options.unwind_quality = false;
  const InfoResult got = run_info(recording, options);
  CHECK(got.recording.samples == 1);
  CHECK(got.recording.truncated == 1);
  CHECK(got.recording.stack_sizes == std::vector<uint32_t>{4096});
}
