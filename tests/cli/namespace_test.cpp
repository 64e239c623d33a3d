// `record` and `attach` of a process in another mount namespace (as in a
// container): its program exists only on a tmpfs mounted inside that
// namespace, so the host sees an empty folder. The recorder finds the binary
// through /proc/PID/root (or /proc/PID/map_files) and embeds it; reports run
// after the namespace is gone. Needs root and util-linux's unshare. The tmpfs
// lives only in the private namespace, inside the test's own temp dir.

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "recording/recording_reader.h"
#include "support/cli_harness.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof::testing;

namespace {

const char* const kUnshare = "/usr/bin/unshare";

// Why these tests cannot run here; empty when they can.
std::string skip_reason() {
  if (geteuid() != 0) return "needs root (mounting inside a new mount namespace)";
  if (access(kUnshare, X_OK) != 0) return std::string("needs ") + kUnshare + " (util-linux)";
  TempDir dir;
  auto r = run({kUnshare, "--mount", "--pid", "--fork", "--propagation", "private", "true"}, dir.path(), 30);
  if (r.exit_code != 0) return "unshare --mount --pid --fork fails here: " + r.err;
  return {};
}

#define SKIP_WITHOUT_NAMESPACES()                              \
  do {                                                         \
    static const std::string reason = skip_reason();           \
    if (!reason.empty()) {                                     \
      WARN("skipped: " << reason);                             \
      return;                                                  \
    }                                                          \
  } while (0)

// unshare ... sh: a tmpfs on `root` (only the new namespace sees it), the
// test program copied there as `app`, exec'd with `args`.
std::vector<std::string> in_namespace(const std::string& root, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kUnshare, "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c",
                                   "mount -t tmpfs none \"$0\" && cp \"$1\" \"$0/app\" && shift && exec \"$0/app\" \"$@\"",
                                   root, KNOWN_NAMESPACE_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// The same with a private /tmp (a folder of the tmpfs bound over /tmp), so
// the program's /tmp/perf-1.map never reaches the host's /tmp. The tmpfs is
// then hidden under that /tmp (the test's temp dir is in /tmp, so is all of
// it): the program runs from its folder as ./app. `setup` runs in the
// namespace first, with /tmp private and $0 the root.
std::vector<std::string> in_namespace_with_private_tmp(const std::string& root, const std::vector<std::string>& args,
                                                       const std::string& setup = "true") {
  std::vector<std::string> argv = {
      kUnshare, "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c",
      "mount -t tmpfs none \"$0\" && cp \"$1\" \"$0/app\" && mkdir \"$0/tmp\" && cd \"$0\" && "
      "mount --bind \"$0/tmp\" /tmp && " + setup + " && shift && exec ./app \"$@\"",
      root, KNOWN_NAMESPACE_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

bool mounted(const std::string& path) {
  const std::string mounts = read_file("/proc/self/mounts");
  return mounts.find(" " + path + " ") != std::string::npos;
}

std::map<std::string, uint64_t> folded(const std::string& recording, const std::string& dir) {
  auto r = run({swprof_bin(), "report", "-f", "folded", recording}, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, uint64_t> stacks;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.rfind(' ');
    REQUIRE(sp != std::string::npos);
    stacks[line.substr(0, sp)] += std::stoull(line.substr(sp + 1));
  }
  return stacks;
}

// Samples whose stack holds `frame`, and of those, the ones holding `chain`.
std::pair<uint64_t, uint64_t> count(const std::map<std::string, uint64_t>& stacks, const std::string& frame,
                                    const std::string& chain) {
  uint64_t with_frame = 0, with_chain = 0;
  for (const auto& [stack, n] : stacks) {
    const std::string s = ";" + stack + ";";
    if (s.find(";" + frame + ";") == std::string::npos) continue;
    with_frame += n;
    if (s.find(";" + chain + ";") != std::string::npos) with_chain += n;
  }
  return {with_frame, with_chain};
}

void check_known_chain(const std::string& recording, const std::string& dir) {
  const auto stacks = folded(recording, dir);
  const auto [inside, whole] = count(stacks, "inside_only", "main;outer_call;inside_only");
  INFO("samples in inside_only: " << inside << ", with main;outer_call;inside_only: " << whole);
  CHECK(inside >= 30);  // at 999 Hz, whatever share of a CPU a busy machine leaves it
  CHECK(whole * 10 >= inside * 9);
}

std::string info_of(const std::string& recording, const std::string& dir) {
  auto r = run({swprof_bin(), "info", recording}, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// The images (embedded binaries, perf map copies, ...) a recording holds, by name (the bytes of
// images of one name joined).
std::map<std::string, std::string> recorded_images(const std::string& recording) {
  std::map<std::string, std::string> images;
  swprof::RecordingReader reader(recording);
  while (auto rec = reader.next())
    if (const auto* image = std::get_if<swprof::ImageRecord>(&*rec))
      images[image->name].append(reinterpret_cast<const char*>(image->bytes.data()), image->bytes.size());
  return images;
}

// The names of the images that hold `marker`.
std::vector<std::string> images_holding(const std::string& recording, const std::string& marker) {
  std::vector<std::string> names;
  for (const auto& [name, bytes] : recorded_images(recording))
    if (bytes.find(marker) != std::string::npos) names.push_back(name);
  return names;
}

// Kills a spawned process group (unshare and the program) however the test
// ends; once it was reaped, nothing is left to kill.
struct KillGroupOnExit {
  pid_t pid;
  ~KillGroupOnExit() {
    if (waitpid(pid, nullptr, WNOHANG) == 0) {
      kill(-pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// The host pid of the program unshare forked (pid 1 inside), once it runs.
pid_t wait_for_app(const Spawned& unshare) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream children("/proc/" + std::to_string(unshare.pid) + "/task/" + std::to_string(unshare.pid) + "/children");
    pid_t child = 0;
    if (children >> child && read_file("/proc/" + std::to_string(child) + "/comm") == "app\n" &&
        read_file(unshare.out_path).find("ready") != std::string::npos)
      return child;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL("the program did not start in its namespace: " << read_file(unshare.err_path));
  return 0;
}

}  // namespace

TEST_CASE("namespace: record through unshare names the functions of a program seen only inside its namespace",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  const std::string out = dir.file("ns.swprof");
  std::vector<std::string> argv = {swprof_bin(), "record", "-o", out, "--"};
  for (auto& a : in_namespace(root, {"1.0"})) argv.push_back(a);
  auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("embedded 1 binaries found only inside the process's mount namespace") != std::string::npos);
  CHECK_FALSE(mounted(root));
  CHECK(std::filesystem::is_empty(root));  // the host never saw the program

  check_known_chain(out, dir.path());
  const std::string info = info_of(out, dir.path());
  INFO(info);
  CHECK(info.find(root + "/app\n    found at /proc/") != std::string::npos);
  CHECK(info.find("/root" + root + "/app (mount namespace mnt:[") != std::string::npos);
  CHECK(info.find("), embedded ") != std::string::npos);
  CHECK(info.find("missing: ") == std::string::npos);  // its report reads the embedded copy
}

TEST_CASE("namespace: without embedding the program's frames stay unnamed and the summary says why",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  const std::string out = dir.file("ns.swprof");
  std::vector<std::string> argv = {swprof_bin(), "record", "--embed-max", "0", "-o", out, "--"};
  for (auto& a : in_namespace(root, {"0.5"})) argv.push_back(a);
  auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("warning: " + root + "/app (") != std::string::npos);
  CHECK(r.err.find("is not embedded: over --embed-max (0 bytes)") != std::string::npos);
  const auto stacks = folded(out, dir.path());
  CHECK(count(stacks, "inside_only", "inside_only").first == 0);
  CHECK_FALSE(mounted(root));
}

TEST_CASE("namespace: attach to the host pid of a program seen only inside its namespace",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  const std::string out = dir.file("attach.swprof");
  auto unshare = spawn(in_namespace(root, {"forever"}), dir.path());
  KillGroupOnExit guard{unshare.pid};
  const pid_t app = wait_for_app(unshare);
  auto r = run({swprof_bin(), "attach", std::to_string(app), "--duration", "1", "-o", out}, dir.path());
  kill(app, SIGKILL);  // pid 1 of its namespace: the namespace ends with it
  auto ended = wait_for(unshare, 30);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(ended.err.find("(timed out)") == std::string::npos);  // unshare ended with its namespace
  CHECK_FALSE(mounted(root));
  CHECK(std::filesystem::is_empty(root));

  check_known_chain(out, dir.path());
  const std::string info = info_of(out, dir.path());
  INFO(info);
  CHECK(info.find("found at /proc/" + std::to_string(app) + "/root" + root + "/app") != std::string::npos);
  CHECK(info.find("), embedded ") != std::string::npos);
}

TEST_CASE("namespace: dump names the stack of a program seen only inside its namespace", "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  auto unshare = spawn(in_namespace(root, {"forever"}), dir.path());
  KillGroupOnExit guard{unshare.pid};
  const pid_t app = wait_for_app(unshare);
  auto r = run({swprof_bin(), "dump", std::to_string(app)}, dir.path());
  kill(app, SIGKILL);
  wait_for(unshare, 30);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // The running thread is stopped for an instant and read whole: its leaf
  // is in inside_only (or a function it calls), under outer_call and main.
  const size_t inside = r.out.find("inside_only");
  REQUIRE(inside != std::string::npos);
  const size_t outer = r.out.find("outer_call", inside);
  REQUIRE(outer != std::string::npos);
  CHECK(r.out.find("main", outer) != std::string::npos);
  CHECK_FALSE(mounted(root));
}

TEST_CASE("namespace: a JIT's perf map written inside its namespace names the generated code",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  const std::string out = dir.file("jit.swprof");
  const bool host_map_before = std::filesystem::exists("/tmp/perf-1.map");
  std::vector<std::string> argv = {swprof_bin(), "record", "-o", out, "--"};
  for (auto& a : in_namespace_with_private_tmp(root, {"1.0", "jit"})) argv.push_back(a);
  auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(mounted(root));
  CHECK(std::filesystem::exists("/tmp/perf-1.map") == host_map_before);  // written in the private /tmp only

  const auto stacks = folded(out, dir.path());
  CHECK(count(stacks, "jitted_spin", "jitted_spin").first >= 10);
  // The program itself was under the private /tmp: found through map_files.
  const std::string info = info_of(out, dir.path());
  INFO(info);
  CHECK(info.find("/map_files/") != std::string::npos);
  check_known_chain(out, dir.path());
}

// A file of the host that the namespace cannot see (it is under the host's
// /tmp, which the namespace's private /tmp hides): the marker, then `bytes`.
std::string host_only_file(const TempDir& dir, const std::string& name, const std::string& bytes, mode_t mode) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << bytes;
  REQUIRE(chmod(path.c_str(), mode) == 0);
  return path;
}

TEST_CASE("namespace: attach and dump never take a host file for a binary that a link inside the namespace names",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  // Another program, readable by root only, with a marker after its ELF bytes.
  const std::string marker = "HOST-ONLY-ELF-4f1c9e";
  const std::string host_elf = host_only_file(dir, "host-tool", read_file(WORKLOAD_BIN) + marker, 0700);
  // Inside, the program's path (where the mapping says it is) becomes an
  // absolute link to that host file; its own file lives on, hidden.
  const std::string setup = "mkdir -p \"$0\" && ln -s " + host_elf + " \"$0/app\"";
  auto unshare = spawn(in_namespace_with_private_tmp(root, {"forever"}, setup), dir.path());
  KillGroupOnExit guard{unshare.pid};
  const pid_t app = wait_for_app(unshare);
  const std::string attached = dir.file("attach.swprof"), dumped = dir.file("dump.swprof");
  auto a = run({swprof_bin(), "attach", std::to_string(app), "--duration", "1", "-o", attached}, dir.path());
  auto d = run({swprof_bin(), "dump", std::to_string(app), "--samples", "3", "--interval", "20", "-o", dumped},
               dir.path());
  kill(app, SIGKILL);
  wait_for(unshare, 30);
  INFO(a.err << d.err);
  REQUIRE(a.exit_code == 0);
  REQUIRE(d.exit_code == 0);
  CHECK_FALSE(mounted(root));

  for (const std::string& recording : {attached, dumped}) {
    INFO(recording);
    CHECK(images_holding(recording, marker).empty());
    const std::string info = info_of(recording, dir.path());
    INFO(info);
    CHECK(info.find("/root" + root + "/app") == std::string::npos);  // not found through the link
    CHECK(info.find("/map_files/") != std::string::npos);               // but as the mapped file itself
  }
  check_known_chain(attached, dir.path());
}

TEST_CASE("namespace: a perf map that is a link inside the namespace is not followed to a host file",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  const std::string marker = "HOST_SECRET_7d2a";
  const std::string secret = host_only_file(dir, "secret", "7f0000001000 40 " + marker + "\n", 0600);
  const std::string out = dir.file("r.swprof");
  std::vector<std::string> argv = {swprof_bin(), "record", "-o", out, "--"};
  for (auto& a : in_namespace_with_private_tmp(root, {"0.5"}, "ln -s " + secret + " /tmp/perf-1.map")) argv.push_back(a);
  auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(mounted(root));
  CHECK(images_holding(out, marker).empty());
  CHECK(r.err.find("is a symbolic link") != std::string::npos);
}

TEST_CASE("namespace: a perf map that keeps growing (sparse) is copied up to --perf-map-max, and the summary says so",
          "[integration][namespace]") {
  SKIP_WITHOUT_NAMESPACES();
  TempDir dir;
  const std::string root = dir.file("ns");
  std::filesystem::create_directory(root);
  const std::string out = dir.file("sparse.swprof");
  // The map grows by 16 MiB holes: past 4M within a step of the recorder.
  std::vector<std::string> argv = {swprof_bin(), "record", "--perf-map-max", "4M", "-o", out, "--"};
  for (auto& a : in_namespace_with_private_tmp(root, {"1.0", "sparse-jit"})) argv.push_back(a);
  auto r = run(argv, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(mounted(root));
  CHECK(r.err.find("warning: the JIT map of process ") != std::string::npos);
  CHECK(r.err.find("(/tmp/perf-1.map) is over --perf-map-max (4.0 MB)") != std::string::npos);
  uint64_t copied = 0;
  for (const auto& [name, bytes] : recorded_images(out))
    if (name.rfind("perf-map:", 0) == 0) copied += bytes.size();
  CHECK(copied > 0);
  CHECK(copied <= (uint64_t{4} << 20));
  CHECK(count(folded(out, dir.path()), "jitted_spin", "jitted_spin").first > 0);  // its first line was copied
}

TEST_CASE("namespace: --embed-max takes a size and refuses a negative or malformed one in one line",
          "[integration]") {
  TempDir dir;
  for (const char* bad : {"-1", "abc", "12Q"}) {
    auto r = run({swprof_bin(), "record", "--embed-max", bad, "-o", dir.file("r.swprof"), "true"}, dir.path());
    INFO("--embed-max " << bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(std::string("invalid --embed-max '") + bad + "'") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.file("r.swprof")));
  }
  auto ok = run({swprof_bin(), "record", "--embed-max", "64M", "-o", dir.file("r.swprof"), "true"}, dir.path());
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}
