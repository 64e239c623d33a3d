// Files a recording names or that are derived from it (mapped binaries,
// debuginfo, perf maps in the world-writable /tmp, kallsyms) may be FIFOs,
// endless devices or planted by another user: the symbolizer and the binary
// cache never block on them, never read them without bound, and say why they
// were skipped.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "common/hex.h"
#include "support/compressed_dwarf.h"
#include "support/elf_image.h"
#include "support/peak_rss.h"
#include "support/sym_fixtures.h"
#include "support/temp_dir.h"
#include "symbolize/symbolizer.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

constexpr uint64_t kBase = 0x555555550000;
constexpr uint32_t kPid = 987654321;  // no such process: only the files matter

// Should the code under test open `fifo` and wait for a writer, this opens
// it for writing after a while so that the test ends (and fails) instead of
// hanging. A passing test never waits for it.
class FifoWatchdog {
 public:
  explicit FifoWatchdog(std::string fifo) : fifo_(std::move(fifo)), thread_([this] { watch(); }) {}
  ~FifoWatchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  bool fired() const { return fired_; }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_for(lock, std::chrono::seconds(30), [this] { return done_; })) return;
    fired_ = true;
    const int fd = ::open(fifo_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
  }

  std::string fifo_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

std::string warnings_text(const Symbolizer& s) {
  std::string out;
  for (const auto& w : s.warnings()) out += w + "\n";
  return out;
}

Frame jit_frame() {
  Frame f;
  f.pc = 0x7f1000000011;
  f.stepper = StepperKind::kCfi;
  return f;
}

SymbolizerOptions options_in(const TempDir& dir) {
  SymbolizerOptions o;
  o.perf_map_dir = dir.path();
  o.debug_roots = {dir.file("debug")};
  o.kallsyms_path = dir.file("kallsyms");
  return o;
}

// The JIT frame's name with the perf map as the test left it, and the warnings.
std::pair<std::string, std::string> name_jit_frame(const TempDir& dir) {
  Symbolizer symbolizer(options_in(dir));
  ProcessMaps none;
  const std::string name = symbolizer.symbolize(none, kPid, jit_frame()).frames[0].function;
  return {name, warnings_text(symbolizer)};
}

const std::string kMapText = "7f1000000000 80 jit_add\n";

// `app` loaded at kBase, and its inline probe symbolized with `options`.
struct InlineProbe {
  BinaryCache binaries;
  ProcessMaps maps;
  Symbolizer symbolizer;
  const SymbolizedAddress& frames;

  InlineProbe(const std::string& app, const SymbolizerOptions& options)
      : maps(load_like_loader(binaries, app, kBase)),
        symbolizer(options),
        frames(symbolizer.symbolize(maps, 1, frame())) {}
  static Frame frame() {
    Frame f;
    f.pc = kBase + probe_addresses().at("inline");
    f.stepper = StepperKind::kCfi;
    return f;
  }
  std::string warnings() const { return warnings_text(symbolizer); }
};

}  // namespace

TEST_CASE("perf map: a regular file of this user is read", "[symbolize][untrusted]") {
  TempDir dir;
  write_file(dir.file("perf-987654321.map"), kMapText);
  const auto [name, warnings] = name_jit_frame(dir);
  CHECK(name == "jit_add");
  CHECK(warnings.empty());
}

TEST_CASE("perf map: a FIFO is skipped without blocking", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string map = dir.file("perf-987654321.map");
  REQUIRE(::mkfifo(map.c_str(), 0600) == 0);
  FifoWatchdog watchdog(map);
  const auto [name, warnings] = name_jit_frame(dir);
  CHECK_FALSE(watchdog.fired());
  CHECK(name.empty());
  CHECK(warnings == "skipped the JIT map " + map + ": is a FIFO, not a regular file\n");
}

TEST_CASE("perf map: a link to /dev/zero is skipped, not read without end", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string map = dir.file("perf-987654321.map");
  REQUIRE(::symlink("/dev/zero", map.c_str()) == 0);
  const auto [name, warnings] = name_jit_frame(dir);
  CHECK(name.empty());
  CHECK(warnings == "skipped the JIT map " + map + ": is a symbolic link, not a regular file\n");
}

TEST_CASE("perf map: a link is not followed, even to a file of root", "[symbolize][untrusted]") {
  // With fs.protected_symlinks=0 anyone can plant /tmp/perf-PID.map -> a
  // file of root's (/etc/shadow); the owner checked is the link's.
  TempDir dir;
  const std::string secret = dir.file("secret");
  write_file(secret, kMapText);
  REQUIRE(::chown(secret.c_str(), 0, static_cast<gid_t>(-1)) == 0);
  const std::string map = dir.file("perf-987654321.map");
  REQUIRE(::symlink(secret.c_str(), map.c_str()) == 0);
  const auto [name, warnings] = name_jit_frame(dir);
  CHECK(name.empty());
  CHECK(warnings == "skipped the JIT map " + map + ": is a symbolic link, not a regular file\n");
}

TEST_CASE("perf map: a second name of another file (a hard link) is skipped", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string secret = dir.file("secret");
  write_file(secret, kMapText);
  const std::string map = dir.file("perf-987654321.map");
  REQUIRE(::link(secret.c_str(), map.c_str()) == 0);  // fs.protected_hardlinks=0 lets anyone make one
  const auto [name, warnings] = name_jit_frame(dir);
  CHECK(name.empty());
  CHECK(warnings == "skipped the JIT map " + map + ": it has 2 names (hard links), so its owner need not be who put it there\n");
}

TEST_CASE("perf map: one owned by another user is skipped", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string map = dir.file("perf-987654321.map");
  write_file(map, kMapText);
  const uid_t other = geteuid() == 65534 ? 65533 : 65534;  // nobody, unless that is us
  REQUIRE(::chown(map.c_str(), other, static_cast<gid_t>(-1)) == 0);  // the suite runs as root
  const auto [name, warnings] = name_jit_frame(dir);
  CHECK(name.empty());
  CHECK(warnings.find("skipped the JIT map " + map + ": owned by uid " + std::to_string(other) +
                      ", not by this user or root") != std::string::npos);
  // Owned by root it is trusted again, as perf does.
  REQUIRE(::chown(map.c_str(), 0, static_cast<gid_t>(-1)) == 0);
  CHECK(name_jit_frame(dir).first == "jit_add");
}

TEST_CASE("kallsyms: a FIFO is skipped without blocking", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string kallsyms = dir.file("kallsyms");
  REQUIRE(::mkfifo(kallsyms.c_str(), 0600) == 0);
  FifoWatchdog watchdog(kallsyms);
  Symbolizer symbolizer(options_in(dir));
  CHECK(symbolizer.symbolize_kernel(0xffffffff81000010).frames[0].function.empty());
  CHECK_FALSE(watchdog.fired());
  CHECK(warnings_text(symbolizer) ==
        "cannot read " + kallsyms + " (is a FIFO, not a regular file): kernel frames are shown as addresses\n");
}

TEST_CASE("kallsyms: perf's build-id cache copy that is a FIFO is skipped without blocking", "[symbolize][untrusted]") {
  TempDir dir;
  RecordedKernel kernel;
  kernel.build_id = BuildId(20, 0x77);  // not the running kernel's
  kernel.text_symbol = "_text";
  kernel.text_address = 0xffffffff81000000;
  SymbolizerOptions options = options_in(dir);
  options.perf_buildid_dir = dir.file("debug");
  const std::string cached = perf_kallsyms_cache_path(options.perf_buildid_dir, kernel.build_id);
  std::filesystem::create_directories(std::filesystem::path(cached).parent_path());
  REQUIRE(::mkfifo(cached.c_str(), 0600) == 0);
  FifoWatchdog watchdog(cached);
  Symbolizer symbolizer(options);
  symbolizer.use_recorded_kernel(kernel);
  symbolizer.prepare_kernel_symbols();
  CHECK(symbolizer.symbolize_kernel(0xffffffff81000010).frames[0].function.empty());
  CHECK_FALSE(watchdog.fired());
  const std::string refused = cached + " cannot be read (is a FIFO, not a regular file)";
  CHECK(warnings_text(symbolizer).find(refused) != std::string::npos);
  CHECK(symbolizer.kallsyms_reads() == 0);
}

TEST_CASE("a mapped path that is a FIFO is not opened", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string fifo = dir.file("app");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  FifoWatchdog watchdog(fifo);
  BinaryCache binaries;
  const Mapping m = resolve_mapping(binaries, kBase, kBase + 0x1000, 0, fifo, true, {});
  CHECK_FALSE(watchdog.fired());
  CHECK_FALSE(m.binary);
  REQUIRE(binaries.warnings().size() == 1);
  CHECK(binaries.warnings()[0] ==
        "cannot open " + fifo + " (is a FIFO, not a regular file): its frames are unwound without its unwind info");
}

TEST_CASE("debuginfo: a FIFO where it is looked for is skipped without blocking", "[symbolize][untrusted]") {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  std::string fifo;
  SECTION("at the build-id path") {
    copy_file(program_file("sym_target.stripped"), app);
    auto b = ElfBinary::open(app);
    REQUIRE(b);
    const std::string hex = to_hex(Bytes(b->build_id().data(), b->build_id().size()));
    REQUIRE(::mkdir(dir.file("debug").c_str(), 0755) == 0);
    REQUIRE(::mkdir(dir.file("debug/.build-id").c_str(), 0755) == 0);
    REQUIRE(::mkdir(dir.file("debug/.build-id/" + hex.substr(0, 2)).c_str(), 0755) == 0);
    fifo = dir.file("debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  }
  SECTION("at the .gnu_debuglink name beside the binary") {
    copy_file(program_file("sym_target.linked"), app);
    fifo = dir.file("bin/sym_target.debug");
  }
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  FifoWatchdog watchdog(fifo);
  const InlineProbe probe(app, options_in(dir));
  const auto& a = probe.frames;
  CHECK_FALSE(watchdog.fired());
  CHECK(a.frames.back().file.empty());  // no lines without the debuginfo
  CHECK(probe.warnings().find("ignored " + fifo + " as debuginfo of " + app +
                                       " (it is a FIFO, not a regular file)") != std::string::npos);
}

namespace {

// sym_target.stripped as <dir>/bin/app, its debuginfo under <dir>/debug by
// build-id rewritten by dwz with a twin into a supplementary file that
// .gnu_debugaltlink names <dir>/elsewhere/common.debug, where it is not:
// `supplementary_id_path` is where its build-id would find it.
struct DwzApp {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  std::string debug, named = dir.file("elsewhere/common.debug"), supplementary_id_path;

  explicit DwzApp(const std::string& method) {
    copy_file(program_file("sym_target.stripped"), app);
    debug = build_id_path(dir.file("debug"), app);
    copy_file(program_file("sym_target.debug"), debug);
    const std::string twin = dir.file("twin.debug"), common = dir.file("common.debug");
    copy_file(debug, twin);
    command_output("dwz -m " + common + " -M " + named + " " + debug + " " + twin);
    supplementary_id_path = build_id_path(dir.file("debug"), common);
    REQUIRE(std::filesystem::remove(common));
    if (!method.empty()) command_output("objcopy --compress-debug-sections=" + method + " " + debug);
  }
};

}  // namespace

TEST_CASE("debuginfo: a dwz supplementary file found nowhere is said, a FIFO where it is looked for is not waited for",
          "[symbolize][untrusted]") {
  const std::string method = GENERATE(std::string(""), std::string("zlib"));
  DwzApp s(method);
  std::string fifo;
  SECTION("found nowhere") {}
  SECTION("a FIFO where .gnu_debugaltlink names it") { fifo = s.named; }
  SECTION("a FIFO at its build-id path under the debug root") { fifo = s.supplementary_id_path; }
  std::unique_ptr<FifoWatchdog> watchdog;
  if (!fifo.empty()) {
    std::filesystem::create_directories(std::filesystem::path(fifo).parent_path());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    watchdog = std::make_unique<FifoWatchdog>(fifo);
  }
  const InlineProbe probe(s.app, options_in(s.dir));
  const auto& a = probe.frames;
  INFO(method << ": " << probe.warnings());
  if (watchdog) CHECK_FALSE(watchdog->fired());
  REQUIRE(!a.frames.empty());
  CHECK(a.frames.back().function == "run_inline");  // its own DIE, or the symbol table
  REQUIRE(probe.symbolizer.warnings().size() == 1);
  if (fifo.empty()) {
    CHECK(a.frames.size() == 3);  // the inlined frames, unnamed
    CHECK(probe.warnings().find("cannot find " + s.named + ", the dwz supplementary file of the DWARF of " +
                                         s.app + ": some inlined functions are unnamed") != std::string::npos);
  } else {
    CHECK(probe.warnings().find("ignored " + fifo + " as debuginfo of " + s.app +
                                         " (it is a FIFO, not a regular file)") != std::string::npos);
  }
}

TEST_CASE("debuginfo: with --debuginfod, libdwfl's own search looks at no place on disk", "[symbolize][untrusted]") {
  // libdwfl's standard lookup tries more places than the build-id and
  // debuglink ones (<root>/<debuglink>, each shorter tail of the binary's
  // folder under the root), opening what is there without a look.
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.linked"), app);
  const std::string fifo = dir.file("debug/sym_target.debug");
  std::filesystem::create_directories(dir.file("debug"));
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  FifoWatchdog watchdog(fifo);
  SymbolizerOptions options = options_in(dir);
  options.debuginfod = true;  // with no DEBUGINFOD_URLS: no server is asked
  const InlineProbe probe(app, options);
  const auto& a = probe.frames;
  CHECK_FALSE(watchdog.fired());
  CHECK(a.frames.back().file.empty());
}

TEST_CASE("debuginfo: a compressed file where it is looked for is not decompressed", "[symbolize][untrusted]") {
  // libdwfl would inflate a gzip, xz or zstd file found there whole, without
  // a bound: a few MB of zeros make gigabytes.
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.stripped"), app);
  const std::string debug = build_id_path(dir.file("debug"), app);
  copy_file(program_file("sym_target.debug"), debug);
  command_output("gzip -n " + debug + " && mv " + debug + ".gz " + debug);
  const InlineProbe probe(app, options_in(dir));
  const auto& a = probe.frames;
  CHECK(a.frames.size() == 1);
  CHECK(a.frames.back().file.empty());
  INFO(probe.warnings());
  CHECK(probe.warnings().find("ignored " + debug + " as debuginfo of " + app + " (not a 64-bit ELF file)") !=
        std::string::npos);
}

TEST_CASE("a minidebuginfo that inflates without measure is not inflated", "[symbolize][untrusted]") {
  // libdwfl inflates .gnu_debugdata whole: 300 MB of zeros are 44 KB of xz.
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.stripped"), app);
  const std::string bomb = dir.file("bomb.xz");
  command_output("head -c 300000000 /dev/zero | xz -1 -c > " + bomb);
  command_output("objcopy --add-section .gnu_debugdata=" + bomb + " " + app);
  reset_peak_rss();
  const size_t before = rss_kb();
  const InlineProbe probe(app, options_in(dir));
  const auto& a = probe.frames;
  const size_t peak = peak_rss_kb();
  // Named as the binary without it names it.
  TempDir plain_dir;
  const std::string plain = plain_dir.file("bin/app");
  copy_file(program_file("sym_target.stripped"), plain);
  const InlineProbe want(plain, options_in(plain_dir));
  REQUIRE(a.frames.size() == want.frames.frames.size());
  CHECK(a.frames.back().function == want.frames.frames.back().function);
  CHECK(peak < before + 100 * 1024);  // KB: far less than the 300 MB
  INFO(probe.warnings());
  CHECK(probe.warnings().find("ignored the minidebuginfo (.gnu_debugdata) of " + app +
                                       " (it inflates to more than 64 MiB, or is damaged)") != std::string::npos);
}

TEST_CASE("a minidebuginfo whose symbol table claims to inflate beyond measure is not read", "[symbolize][untrusted]") {
  // libdwfl inflates the minidebuginfo, then libelf its compressed .symtab:
  // 200 MB of zeros, in 200 KB inside and a few hundred bytes of xz.
  TempDir dir;
  const std::string app = dir.file("bin/app");
  copy_file(program_file("sym_target.stripped"), app);
  std::vector<uint8_t> inner = make_elf_image({
      {".symtab", SHT_SYMTAB, SHF_COMPRESSED, 0, zlib_zeros_section(std::string(24, '\0'), 200'000'000)},
      {".strtab", SHT_STRTAB, 0, 0, {0, 'f', 0}},
  });
  Elf64_Ehdr eh;
  std::memcpy(&eh, inner.data(), sizeof eh);
  auto* symtab = reinterpret_cast<Elf64_Shdr*>(inner.data() + eh.e_shoff + sizeof(Elf64_Shdr));
  symtab->sh_link = 2;
  symtab->sh_entsize = sizeof(Elf64_Sym);
  const std::string mini = dir.file("mini.elf");
  write_file(mini, std::string(inner.begin(), inner.end()));
  command_output("xz -f " + mini + " && objcopy --add-section .gnu_debugdata=" + mini + ".xz " + app);
  reset_peak_rss();
  const size_t before = rss_kb();
  const InlineProbe probe(app, options_in(dir));
  const size_t peak = peak_rss_kb();
  TempDir plain_dir;
  const std::string plain = plain_dir.file("bin/app");
  copy_file(program_file("sym_target.stripped"), plain);
  const InlineProbe want(plain, options_in(plain_dir));
  REQUIRE(probe.frames.frames.size() == want.frames.frames.size());
  CHECK(probe.frames.frames.back().function == want.frames.frames.back().function);
  CHECK(peak < before + 100 * 1024);  // KB: far less than the 200 MB
  INFO(probe.warnings());
  CHECK(probe.warnings().find("ignored the minidebuginfo (.gnu_debugdata) of " + app +
                              " (its compressed .symtab claims 200000000 bytes uncompressed from ") != std::string::npos);
}

namespace {

// `file` with 200 MB of zeros added to its .debug_info, then its DWARF
// compressed (zlib): about 200 KB in the file, which libelf alone would
// inflate to 200 MB (it refuses only claims over 1000 times the bytes).
void add_debug_info_bomb(const std::string& file, const TempDir& dir) {
  const std::string info = dir.file("debug_info.bin");
  command_output("objcopy --dump-section .debug_info=" + info + " " + file + " && head -c 200000000 /dev/zero >> " +
                 info + " && objcopy --update-section .debug_info=" + info + " " + file +
                 " && objcopy --compress-debug-sections=zlib " + file + " && rm " + info);
}

// Where the bombed .debug_info lies.
enum class BombIn { kBinary, kDebuglinkFile, kBuildIdFile };

void check_bomb_not_inflated(BombIn where) {
  TempDir dir;
  const std::string app = dir.file("bin/app");
  std::string bombed;  // the file whose .debug_info claims 200 MB
  switch (where) {
    case BombIn::kBinary:
      copy_file(program_file("sym_target"), app);
      bombed = app;
      break;
    case BombIn::kDebuglinkFile:  // read by libdwfl as it is
      copy_file(program_file("sym_target.linked"), app);
      command_output("objcopy --remove-section=.note.gnu.build-id " + app);
      bombed = dir.file("bin/sym_target.debug");
      copy_file(program_file("sym_target.debug"), bombed);
      break;
    case BombIn::kBuildIdFile:  // rebuilt in memory (DwarfImage)
      copy_file(program_file("sym_target.stripped"), app);
      bombed = build_id_path(dir.file("debug"), app);
      copy_file(program_file("sym_target.debug"), bombed);
      break;
  }
  add_debug_info_bomb(bombed, dir);
  REQUIRE(std::filesystem::file_size(bombed) < 20'000'000);
  if (where == BombIn::kDebuglinkFile)  // of the bombed file's CRC
    command_output("objcopy --remove-section=.gnu_debuglink --add-gnu-debuglink=" + bombed + " " + app);

  reset_peak_rss();
  const size_t before = rss_kb();
  const InlineProbe probe(app, options_in(dir));
  CHECK(peak_rss_kb() < before + 100 * 1024);  // KB: far less than the 200 MB

  // Named from the symbol table, as without DWARF; no source line.
  TempDir plain_dir;
  const std::string plain = plain_dir.file("bin/app");
  copy_file(program_file("sym_target.nodebug"), plain);
  const InlineProbe want(plain, options_in(plain_dir));
  const auto& a = probe.frames;
  REQUIRE(a.frames.size() == 1);
  CHECK(a.frames.back().function == want.frames.frames.back().function);
  CHECK(a.frames.back().file.empty());
  INFO(probe.warnings());
  CHECK(probe.warnings().find("ignored the compressed .debug_info section of " + bombed + ": it claims ") !=
        std::string::npos);
  CHECK(probe.warnings().find("(more than 64 times as many, or over 1 GiB)") != std::string::npos);
}

}  // namespace

TEST_CASE("a binary's own DWARF section that claims to inflate beyond measure is not inflated",
          "[symbolize][untrusted]") {
  check_bomb_not_inflated(BombIn::kBinary);
}

TEST_CASE("a debuglink file's DWARF section that claims to inflate beyond measure is not inflated",
          "[symbolize][untrusted]") {
  check_bomb_not_inflated(BombIn::kDebuglinkFile);
}

TEST_CASE("a build-id debuginfo's DWARF section that claims to inflate beyond measure is not inflated",
          "[symbolize][untrusted]") {
  check_bomb_not_inflated(BombIn::kBuildIdFile);
}
