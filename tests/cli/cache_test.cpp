// The build-id cache (docs/build-id-cache.md): record keeps the binaries its
// samples hit, reports those they unwind through, and a report after a
// rebuild or a deletion names the recorded frames from it. Each test keeps
// its cache in its own folder (XDG_CACHE_HOME).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "binary/build_id_cache.h"
#include "recording/build_id.h"
#include "support/built_program.h"
#include "support/perf_runner.h"
#include "support/read_file.h"
#include "support/scoped_env.h"

using namespace swprof;
using namespace swprof::testing;
namespace fs = std::filesystem;

namespace {

// A built program whose swprof commands keep their cache in its folder.
struct CachedProgram : BuiltProgram {
  std::string cache_home = dir.file("xdg-cache");
  ScopedEnv env{"XDG_CACHE_HOME", cache_home};
  BuildIdCache cache{cache_home + "/swprof"};

  BuildId build_id() const { return read_build_id(app).value_or(BuildId{}); }
  // Built (-O1) and recorded, the cache filled: the recorded build-id.
  BuildId built_and_recorded() {
    build(false, "-O1");
    const BuildId id = build_id();
    record();
    return id;
  }
  std::string kept_binary(const BuildId& id) const { return cache.path_of(CachedFile::kBinary, id); }
  // The report's summary line's share of complete stacks ("100.0% complete stacks").
  static std::string complete_share(const std::string& err) {
    std::smatch m;
    return std::regex_search(err, m, std::regex(R"(([0-9.]+)% complete stacks)")) ? m[1].str() : "none";
  }
};

size_t count_lines_with(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("cache: a program rebuilt with a change is reported with its recorded names and complete stacks",
          "[integration][build_id_cache]") {
  CachedProgram t;
  const BuildId recorded = t.built_and_recorded();
  REQUIRE(t.cache.open(CachedFile::kBinary, recorded));
  const std::string before = t.script();
  REQUIRE(before.find("leaf_work+0x") != std::string::npos);
  const auto folded_before = t.swprof({"report", "-f", "folded", t.recording});
  REQUIRE(folded_before.out.find("main;middle_call;leaf_work") != std::string::npos);

  t.build(true, "-O0");  // another build-id, every function elsewhere
  REQUIRE(t.build_id() != recorded);
  CHECK(t.script() == before);
  const auto folded = t.swprof({"report", "-f", "folded", t.recording});
  INFO(folded.err);
  CHECK(folded.out == folded_before.out);
  CHECK(folded.err.find("warning") == std::string::npos);
  CHECK(CachedProgram::complete_share(folded.err) == CachedProgram::complete_share(folded_before.err));
  auto info = t.swprof({"info", t.recording});
  CHECK(info.out.find("build-id cache: supplied 1 missing or changed binaries") != std::string::npos);

  // Without the cache: the rebuilt file is not the recorded one.
  const auto without = t.swprof({"report", "--no-cache", "-f", "folded", t.recording});
  CHECK(without.err.find(t.app + " changed since it was recorded") != std::string::npos);
  CHECK(without.out.find("main;middle_call;leaf_work") == std::string::npos);
}

TEST_CASE("cache: a recorded program deleted since is reported from the cache", "[integration][build_id_cache]") {
  CachedProgram t;
  t.built_and_recorded();
  const std::string before = t.script();
  fs::remove(t.app);
  CHECK(t.script() == before);
  const auto report = t.swprof({"report", t.recording});
  CHECK(report.err.find("is missing") == std::string::npos);
  CHECK(report.out.find("leaf_work") != std::string::npos);
  CHECK(t.script({"--no-cache"}) != before);
}

TEST_CASE("cache: separate debuginfo is kept beside its binary, and gives reports their source lines once both are "
          "gone",
          "[integration][build_id_cache]") {
  CachedProgram t;
  t.build(false, "-O1");
  const std::string debug = t.dir.file("app.debug");
  for (const std::vector<std::string>& objcopy :
       {std::vector<std::string>{"/usr/bin/objcopy", "--only-keep-debug", t.app, debug},
        std::vector<std::string>{"/usr/bin/objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug, t.app}}) {
    auto r = run(objcopy, t.dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  t.record();
  const std::string before = t.script();
  REQUIRE(before.find("app.c:") != std::string::npos);
  REQUIRE(t.cache.open(CachedFile::kDebuginfo, t.build_id()));
  const auto list = t.swprof({"cache", "list"});
  CHECK(list.out.find(t.app + " + debuginfo") != std::string::npos);

  fs::remove(t.app);
  fs::remove(debug);
  CHECK(t.script() == before);
  CHECK(t.script({"--no-cache"}).find("app.c:") == std::string::npos);
}

TEST_CASE("cache: two reports at once fill the cache of a recording made without it, and both succeed",
          "[integration][build_id_cache]") {
  CachedProgram t;
  t.build(false, "-O1");
  t.record({"--no-cache"});
  REQUIRE_FALSE(fs::exists(t.cache.root()));
  std::vector<Spawned> reports;
  for (int i = 0; i < 2; ++i)
    reports.push_back(spawn({swprof_bin(), "report", "-o", t.dir.file("r" + std::to_string(i) + ".txt"), t.recording},
                            t.dir.path()));
  for (const Spawned& s : reports) {
    const ProcessResult r = wait_for(s);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("warning") == std::string::npos);
  }
  CHECK(read_file(t.dir.file("r0.txt")) == read_file(t.dir.file("r1.txt")));
  // Every file kept is whole and of its build-id, no temporary file is left.
  const std::vector<CacheEntry> entries = t.cache.list();
  REQUIRE_FALSE(entries.empty());
  bool program = false;
  for (const CacheEntry& e : entries) {
    INFO(e.path);
    CHECK(t.cache.open(CachedFile::kBinary, e.build_id));
    program |= e.path == t.app;
  }
  CHECK(program);
  for (const auto& e : fs::recursive_directory_iterator(t.cache.root()))
    CHECK(e.path().filename().string().rfind(".tmp.", 0) != 0);
  fs::remove(t.app);
  CHECK(t.swprof({"report", t.recording}).out == read_file(t.dir.file("r0.txt")));
}

TEST_CASE("cache: a damaged entry is ignored with one warning and the report goes on as without it",
          "[integration][build_id_cache]") {
  CachedProgram t;
  const BuildId recorded = t.built_and_recorded();
  t.build(true, "-O0");  // the recorded build now lives only in the cache
  const std::string file = t.kept_binary(recorded);
  const std::string good = read_file(file);
  const size_t note = good.find(std::string(recorded.begin(), recorded.end()));
  REQUIRE(note != std::string::npos);

  const auto check_ignored = [&](const std::string& why) {
    const auto r = t.swprof({"report", "-f", "folded", t.recording});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(count_lines_with(r.err, "ignored the build-id cache's copy of " + t.app + " (" + file + "): " + why) == 1);
    CHECK(r.err.find(t.app + " changed since it was recorded") != std::string::npos);
    CHECK(r.out.find("main;middle_call;leaf_work") == std::string::npos);
  };
  const auto put_back = [&] {
    fs::remove(file);
    std::ofstream(file, std::ios::binary) << good;
  };
  SECTION("bytes of its build-id flipped") {
    std::string bad = good;
    bad[note + 3] = static_cast<char>(~bad[note + 3]);
    fs::remove(file);
    std::ofstream(file, std::ios::binary) << bad;
    check_ignored("its build-id is ");
  }
  SECTION("cut short") {
    fs::resize_file(file, 40);
    check_ignored("it is not an ELF file with a build-id");
  }
  SECTION("another build-id: the rebuilt program put in its place") {
    fs::remove(file);
    fs::copy_file(t.app, file);
    check_ignored("its build-id is " + to_hex(t.build_id()) + ", not " + to_hex(recorded));
  }
  SECTION("a symbolic link planted to a good copy") {
    fs::copy_file(file, t.dir.file("good-copy"));
    fs::remove(file);
    fs::create_symlink(t.dir.file("good-copy"), file);
    check_ignored("is a symbolic link, not a regular file");
  }
  put_back();
  CHECK(t.swprof({"report", "-f", "folded", t.recording}).out.find("main;middle_call;leaf_work") != std::string::npos);
}

TEST_CASE("cache: whatever the umask, its folders are 0700 and the files swprof writes there 0600",
          "[integration][build_id_cache]") {
  for (const char* mask : {"000", "777"}) {
    INFO("umask " << mask);
    CachedProgram t;
    t.build(false, "-O1");
    const std::string script = std::string("umask ") + mask + " && exec \"$0\" record -o \"$1\" \"$2\" 0.2";
    auto r = run({"/bin/sh", "-c", script, swprof_bin(), t.recording, t.app}, t.dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(fs::exists(t.cache.root()));
    size_t folders = 0, files = 0;
    const auto mode = [](const fs::path& p) {
      struct stat st {};
      ::lstat(p.c_str(), &st);
      return st.st_mode & 07777;
    };
    CHECK(mode(t.cache_home) == 0700);
    for (const auto& e : fs::recursive_directory_iterator(t.cache_home)) {
      INFO(e.path());
      const std::string name = e.path().filename();
      if (e.is_directory()) {
        ++folders;
        CHECK(mode(e.path()) == 0700);
      } else if (name == "path" || name == "used" || name == "CACHEDIR.TAG") {
        ++files;
        CHECK(mode(e.path()) == 0600);
      }
    }
    CHECK(folders >= 3);  // swprof, ab, cdef...
    CHECK(files >= 3);
  }
}

TEST_CASE("cache: --no-cache leaves nothing behind: record, reports, info and archive", "[integration][build_id_cache]") {
  CachedProgram t;
  t.build(false, "-O1");
  t.common_options = {"--no-cache"};
  t.record();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", t.recording}, {"report", "-f", "folded", t.recording},
        {"script", t.recording}, {"flamegraph", "-o", t.dir.file("f.html"), t.recording},
        {"annotate", "leaf_work", t.recording}, {"info", t.recording}, {"archive", t.recording}}) {
    INFO(args[0]);
    CHECK(t.swprof(args).exit_code == 0);
  }
  CHECK_FALSE(fs::exists(t.cache_home));
  t.common_options = {};
  t.swprof({"report", t.recording});
  CHECK(fs::exists(t.cache.root()));  // without it, the first report fills the cache
}

TEST_CASE("cache: list, prune and clear", "[integration][build_id_cache]") {
  CachedProgram t;
  auto empty = t.swprof({"cache", "list"});
  CHECK(empty.exit_code == 0);
  CHECK(empty.out == "the build-id cache " + t.cache.root() + " is empty\n");

  const BuildId recorded = t.built_and_recorded();
  auto list = t.swprof({"cache", "list"});
  INFO(list.out << list.err);
  CHECK(list.exit_code == 0);
  CHECK(list.out.rfind("build-id ", 0) == 0);
  CHECK(list.out.find(to_hex(recorded)) != std::string::npos);
  CHECK(list.out.find(t.app) != std::string::npos);
  CHECK(list.out.find(" in " + t.cache.root() + "\n") != std::string::npos);

  // The program rebuilt: its recorded build is the cache's alone, and the
  // least recently used; a bound below it prunes it first.
  t.build(true, "-O1");
  const auto entries = t.cache.list();
  uint64_t program_bytes = 0, others = 0;
  for (const CacheEntry& e : entries) (e.build_id == recorded ? program_bytes : others) += e.own_bytes;
  REQUIRE(program_bytes > fs::file_size(t.app) / 2);
  const struct timespec long_ago[2] = {{time(nullptr) - 600, 0}, {time(nullptr) - 600, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (fs::path(t.kept_binary(recorded)).parent_path() / "used").c_str(), long_ago, 0) == 0);
  auto prune = t.swprof({"cache", "prune", "--max-size", std::to_string(others + program_bytes - 1)});
  INFO(prune.err);
  CHECK(prune.exit_code == 0);
  CHECK(prune.out.find("removed 1 entries") == 0);
  CHECK_FALSE(t.cache.open(CachedFile::kBinary, recorded));
  CHECK(t.cache.list().size() == entries.size() - 1);

  auto clear = t.swprof({"cache", "clear"});
  CHECK(clear.exit_code == 0);
  CHECK(clear.out.find("removed " + std::to_string(entries.size() - 1) + " entries") == 0);
  CHECK(t.cache.list().empty());

  auto misuse = t.swprof({"cache", "list", "--max-size", "1G"});
  CHECK(misuse.exit_code == 2);
  CHECK(misuse.err == "swprof: error: --max-size goes with 'swprof cache prune'\n");
  auto bad = t.swprof({"cache", "prune", "--max-size", "-1"});
  CHECK(bad.exit_code == 2);
  CHECK(line_count(bad.err) == 1);
}

TEST_CASE("cache: SWPROF_CACHE_MAX_SIZE bounds what record keeps, the least recently used entries leaving first",
          "[integration][build_id_cache]") {
  CachedProgram t;
  const BuildId first = t.built_and_recorded();
  // Rebuilt without DWARF: smaller. The first build is now the cache's alone,
  // and the least recently used; a bound between the two sizes holds the
  // new build (a hard link to it costs nothing) but not both.
  t.build(true, "-O1", {"-g0"});
  const uint64_t first_bytes = fs::file_size(t.kept_binary(first));
  const uint64_t second_bytes = fs::file_size(t.app);
  REQUIRE(first_bytes > second_bytes + 2000);
  {
    ScopedEnv bound("SWPROF_CACHE_MAX_SIZE", std::to_string((first_bytes + second_bytes) / 2));
    t.record();
  }
  CHECK_FALSE(t.cache.open(CachedFile::kBinary, first));
  CHECK(t.cache.open(CachedFile::kBinary, t.build_id()));
  ScopedEnv bad("SWPROF_CACHE_MAX_SIZE", "lots");
  const std::string refused = "swprof: error: invalid SWPROF_CACHE_MAX_SIZE 'lots': expected a size such as 0, 500M or 2G\n";
  auto r = t.swprof({"report", t.recording});
  CHECK(r.exit_code == 2);
  CHECK(r.err == refused);
  fs::remove(t.recording);
  r = t.swprof({"record", "-o", t.recording, t.app, "0.1"});  // refused before it records
  CHECK(r.exit_code == 2);
  CHECK(r.err == refused);
  CHECK_FALSE(fs::exists(t.recording));
}

TEST_CASE("cache: archive takes a binary gone from disk from the cache", "[integration][build_id_cache]") {
  CachedProgram t;
  t.built_and_recorded();
  const std::string before = t.script();
  fs::remove(t.app);
  auto a = t.swprof({"archive", t.recording});
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  CHECK(a.out.find("binary    " + t.app + " (from the build-id cache, ") != std::string::npos);
  CHECK(a.err.find("missing") == std::string::npos);
  REQUIRE(t.swprof({"cache", "clear"}).exit_code == 0);
  CHECK(t.script({"--no-cache"}) == before);  // from the archive alone
}

TEST_CASE("cache: the first report of a perf.data keeps the binaries its samples hit", "[integration][build_id_cache]") {
  TempDir dir;
  const std::string cache_home = dir.file("xdg-cache");
  ScopedEnv env("XDG_CACHE_HOME", cache_home);
  const std::string program = std::string(KNOWN_STACK_DIR) + "/known_stack_O2_nofp";
  const std::string data = perf_record(dir, "perf.data", {"--call-graph", "dwarf"}, {program, "leaf", "0.3"});
  const BuildIdCache cache(cache_home + "/swprof");
  const BuildId id = read_build_id(program).value_or(BuildId{});
  REQUIRE_FALSE(cache.open(CachedFile::kBinary, id));
  auto report = run({swprof_bin(), "report", "-f", "folded", data}, dir.path());
  INFO(report.err);
  CHECK(report.exit_code == 0);
  CHECK(cache.open(CachedFile::kBinary, id));
  const std::vector<CacheEntry> entries = cache.list();
  CHECK(std::any_of(entries.begin(), entries.end(), [&](const CacheEntry& e) { return e.path == program; }));
}
