// Bad input: one clear line on stderr, exit code 2, and nothing written but
// what was asked.

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sampler/perf_event.h"
#include "support/cli_harness.h"
#include "support/recording_layout.h"
#include "support/perf_data_image.h"
#include "support/read_file.h"
#include "support/temp_dir.h"
#include "support/thread_recording.h"

using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

void check_clean_failure(const ProcessResult& r, const std::string& expected_text) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find(expected_text) != std::string::npos);
}


}  // namespace

TEST_CASE("bad input: record without a command", "[integration]") {
  TempDir dir;
  check_clean_failure(run({swprof_bin(), "record"}, dir.path()), "no command given");
  check_clean_failure(run({swprof_bin(), "record", "-F", "99", "--"}, dir.path()), "no command given");
  CHECK_FALSE(fs::exists(dir.file("swprof.data")));
}

TEST_CASE("bad input: command not found or not executable keeps an existing output", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("keep.swprof");
  { std::ofstream(out) << "precious"; }
  check_clean_failure(run({swprof_bin(), "record", "-o", out, "no-such-command-xyz"}, dir.path()), "command not found");
  const std::string text_file = dir.file("notes.txt");
  { std::ofstream(text_file) << "not a program"; }
  chmod(text_file.c_str(), 0644);
  check_clean_failure(run({swprof_bin(), "record", "-o", out, text_file}, dir.path()), "not executable");
  check_clean_failure(run({swprof_bin(), "record", "-o", out, "/tmp"}, dir.path()), "directory");
  CHECK(read_file(out) == "precious");
}

TEST_CASE("bad input: invalid sampling options", "[integration]") {
  TempDir dir;
  const std::string w = workload_bin();
  check_clean_failure(run({swprof_bin(), "record", "-F", "0", w, "spin", "0"}, dir.path()), "-F 0");
  check_clean_failure(run({swprof_bin(), "record", "-F", "fast", w, "spin", "0"}, dir.path()), "-F 'fast'");
  check_clean_failure(run({swprof_bin(), "record", "-c", "0", w, "spin", "0"}, dir.path()), "-c 0");
  check_clean_failure(run({swprof_bin(), "record", "-F", "10", "-c", "10", w, "spin", "0"}, dir.path()), "together");
  check_clean_failure(run({swprof_bin(), "record", "--stack-size", "65536", w, "spin", "0"}, dir.path()), "65528");
  check_clean_failure(run({swprof_bin(), "record", "--stack-size", "-8", w, "spin", "0"}, dir.path()), "--stack-size");
  check_clean_failure(run({swprof_bin(), "record", "-e", "nonsense", w, "spin", "0"}, dir.path()), "unknown event");
  check_clean_failure(run({swprof_bin(), "attach", "123", "--duration", "-1"}, dir.path()), "");
  CHECK_FALSE(fs::exists(dir.file("swprof.data")));
}

TEST_CASE("bad input: a hardware event without a PMU fails clearly", "[integration]") {
  TempDir dir;
  auto r = run({swprof_bin(), "record", "-e", "cycles", "-o", dir.file("hw.swprof"), workload_bin(), "spin", "0.05"},
               dir.path());
  if (r.exit_code == 0) {
    SUCCEED("this machine has a hardware PMU; cycles sampling worked");
  } else {
    check_clean_failure(r, "cpu-clock");
    CHECK_FALSE(fs::exists(dir.file("hw.swprof")));
  }
}

TEST_CASE("bad input: output path not writable", "[integration]") {
  TempDir dir;
  check_clean_failure(run({swprof_bin(), "record", "-o", "/nonexistent-dir/out.swprof", workload_bin(), "spin", "0"}, dir.path()),
                      "cannot write output file");
  check_clean_failure(run({swprof_bin(), "record", "-o", dir.path(), workload_bin(), "spin", "0"}, dir.path()),
                      "is a directory");
}

TEST_CASE("bad input: attach to a PID that does not exist or has exited", "[integration]") {
  TempDir dir;
  check_clean_failure(run({swprof_bin(), "attach", "99999999"}, dir.path()), "");
  check_clean_failure(run({swprof_bin(), "attach", "4000000"}, dir.path()), "no process with PID 4000000");
  check_clean_failure(run({swprof_bin(), "attach", "abc"}, dir.path()), "invalid PID");
  // A zombie: exited but not yet reaped by its parent (this test).
  pid_t zombie = fork();
  if (zombie == 0) _exit(0);
  usleep(100000);
  check_clean_failure(run({swprof_bin(), "attach", std::to_string(zombie)}, dir.path()), "already exited");
  waitpid(zombie, nullptr, 0);
  CHECK_FALSE(fs::exists(dir.file("swprof.data")));
}

TEST_CASE("bad input: permission denied names perf_event_paranoid", "[integration]") {
  if (const std::string reason = nobody_skip_reason(); !reason.empty()) {
    WARN(reason << "; skipped");
    return;
  }
  TempDir dir;
  chmod(dir.path().c_str(), 0777);
  // As nobody, attaching to init is refused by the kernel.
  auto r = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", swprof_bin(), "attach", "1",
                "-o", dir.file("denied.swprof")},
               dir.path());
  check_clean_failure(r, "perf_event_paranoid");
  CHECK(r.err.find("CAP_PERFMON") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.file("denied.swprof")));

  // Recording one's own program works; kernel samples follow the paranoid setting.
  auto own = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", swprof_bin(), "record",
                  "-o", dir.file("own.swprof"), workload_bin(), "spin", "0.2"},
                 dir.path());
  auto paranoid = swprof::perf_event_paranoid();
  if (paranoid && *paranoid >= 3) {
    check_clean_failure(own, "perf_event_paranoid");
  } else {
    INFO(own.err);
    CHECK(own.exit_code == 0);
    const bool kernel_note = own.err.find("kernel samples not permitted") != std::string::npos;
    CHECK(kernel_note == (paranoid && *paranoid >= 2));
    CHECK(summarize(dir.file("own.swprof")).samples > 100);
  }
}

TEST_CASE("bad input: info on a truncated or foreign file", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("full.swprof");
  // 2.5 s so the recording has several chunks (one is flushed at least every second).
  auto rec = run({swprof_bin(), "record", "-o", out, workload_bin(), "spin", "2.5"}, dir.path());
  REQUIRE(rec.exit_code == 0);
  auto ok = run({swprof_bin(), "info", out}, dir.path());
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("status:       complete") != std::string::npos);
  CHECK(ok.out.find("suggestion") != std::string::npos);

  fs::copy_file(out, dir.file("cut.swprof"));
  fs::resize_file(dir.file("cut.swprof"), chunks_end(out) - 100);  // inside the last chunk
  auto cut = run({swprof_bin(), "info", dir.file("cut.swprof")}, dir.path());
  check_clean_failure(cut, "truncated");
  CHECK(cut.err.find("whole chunks") != std::string::npos);
  CHECK(cut.out.find("TRUNCATED") != std::string::npos);  // what could be read is still shown

  check_clean_failure(run({swprof_bin(), "info", "/etc/hostname"}, dir.path()), "not a swprof recording");
  check_clean_failure(run({swprof_bin(), "info", dir.file("missing.swprof")}, dir.path()), "cannot open recording");
}

TEST_CASE("bad input: samples all damaged: one line for every command that reads them, none at all: no error",
          "[cli][bad_input]") {
  TempDir dir;
  auto write = [&](const std::string& name, const ByteVector& bytes) {
    std::ofstream(dir.file(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return dir.file(name);
  };
  const std::string damaged = write("damaged.data", perf_data_with_damaged_samples(50, 0));
  const std::string expected = "perf.data file '" + damaged + "': none of its 50 samples could be read (damaged records)";
  const std::vector<std::vector<std::string>> commands = {
      {"report", damaged},
      {"report", damaged, "-f", "folded", "-o", dir.file("out.folded")},
      {"flamegraph", damaged, "-o", dir.file("out.html")},
      {"script", damaged},
      {"merge", damaged, "-o", dir.file("merged.json")},
  };
  for (std::vector<std::string> argv : commands) {
    argv.insert(argv.begin(), swprof_bin());
    const ProcessResult r = run(argv, dir.path());
    INFO(argv[1]);
    check_clean_failure(r, expected);
    CHECK(r.out.empty());
  }
  for (const char* out : {"out.folded", "out.html", "merged.json"}) CHECK_FALSE(fs::exists(dir.file(out)));

  const std::string own = dir.file("damaged.swprof");
  write_thread_recording(own);
  damage_first_chunk(own);
  check_clean_failure(run({swprof_bin(), "report", own}, dir.path()),
                      "recording '" + own + "': damaged before its first sample");

  const ProcessResult none = run({swprof_bin(), "report", write("none.data", perf_data_with_damaged_samples(0, 0))},
                                 dir.path());
  CHECK(none.exit_code == 0);
  CHECK(none.out.find("No samples in this recording.") != std::string::npos);
}

TEST_CASE("a mapped file cut short while it is read gives one line and exit status 2, not a bus error",
          "[cli][bad_input]") {
  TempDir dir;
  const std::string probe = std::string(KNOWN_STACK_DIR) + "/bus_error_probe";
  const ProcessResult cut = run({probe, dir.file("mapped.bin")}, dir.path());
  CHECK(cut.exit_code == 2);
  CHECK(line_count(cut.err) == 1);
  CHECK(cut.err.find("swprof: error: a file being read (a binary, its debuginfo) was cut short meanwhile") == 0);
  // Any other SIGBUS is left as it is.
  const ProcessResult raised = run({probe, dir.file("unused.bin"), "raise"}, dir.path());
  CHECK(raised.exit_code == 128 + SIGBUS);
  CHECK(raised.err.empty());
}
