#include "sampler/namespace_files.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
namespace fs = std::filesystem;

namespace {

// A fake /proc: "self" in mnt:[1], pid 42 in mnt:[2] (pid 1 inside) with its
// root at proc/42/root, pid 43 in mnt:[1].
struct Namespaces {
  testing::TempDir dir;
  std::string proc = dir.file("proc");
  // A small ELF binary with a build-id (the test executable itself can be
  // over the 63 MiB an image may have in a sanitizer build).
  std::string exe = KNOWN_NAMESPACE_BIN;
  std::string app = dir.file("app");  // exists only inside pid 42's root

  Namespaces() {
    for (auto [pid, ns] : {std::pair{"self", "mnt:[1]"}, {"42", "mnt:[2]"}, {"43", "mnt:[1]"}}) {
      fs::create_directories(proc + "/" + pid + "/ns");
      fs::create_symlink(ns, proc + "/" + pid + "/ns/mnt");
    }
    std::ofstream(proc + "/42/status") << "Name:\tapp\nNSpid:\t42\t1\n";
    fs::create_directories(proc + "/42/root" + dir.path());
    fs::create_directories(proc + "/42/root/tmp");
    fs::copy_file(exe, proc + "/42/root" + app);
  }
  // As the kernel reports it: with the device and inode of the file
  // mapped, when there is one inside pid 42's root.
  MappingRecord mapping(uint32_t pid, const std::string& path) const {
    MappingRecord m;
    m.pid = m.tid = pid;
    m.start = 0x400000;
    m.length = 0x1000;
    m.prot = 0x5;
    m.path = path;
    struct stat st {};
    if (pid == 42 && lstat((proc + "/42/root" + path).c_str(), &st) == 0) {
      m.dev_major = major(st.st_dev);
      m.dev_minor = minor(st.st_dev);
      m.inode = st.st_ino;
    }
    return m;
  }
  // Pid 42's perf map, as the host reaches it.
  std::string perf_map() const { return proc + "/42/root/tmp/perf-1.map"; }
};

struct Images {
  std::vector<std::pair<std::string, std::string>> written;  // name, bytes
  NamespaceFiles::ImageSink sink() {
    return [this](const ImageRecord& img) {
      written.emplace_back(img.name, std::string(reinterpret_cast<const char*>(img.bytes.data()), img.bytes.size()));
    };
  }
};

}  // namespace

TEST_CASE("namespace files: a binary found only inside the namespace is embedded once, before its mapping",
          "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc));
  MappingRecord m = ns.mapping(42, ns.app);
  files.resolve(m, images.sink());
  REQUIRE(images.written.size() == 1);
  CHECK(images.written[0].first == "file:" + ns.app);
  CHECK(images.written[0].second == testing::read_file(ns.exe));
  const BuildId id = read_build_id(ns.exe).value_or(BuildId{});
  REQUIRE(m.build_id_size == id.size());
  CHECK(BuildId(m.build_id.begin(), m.build_id.begin() + m.build_id_size) == id);

  MappingRecord again = ns.mapping(42, ns.app);
  again.start = 0x401000;
  files.resolve(again, images.sink());
  CHECK(images.written.size() == 1);
  CHECK(again.build_id_size == id.size());

  REQUIRE(files.notes().size() == 1);
  CHECK(files.notes()[0].path == ns.app);
  CHECK(files.notes()[0].found_at == ns.proc + "/42/root" + ns.app);
  CHECK(files.notes()[0].mount_ns == "mnt:[2]");
  CHECK(files.notes()[0].bytes == images.written[0].second.size());
  CHECK(files.embedded_bytes() == images.written[0].second.size());
  CHECK(files.warnings().empty());
}

TEST_CASE("namespace files: host files and processes of our namespace embed nothing", "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc));
  MappingRecord host = ns.mapping(43, ns.exe);
  files.resolve(host, images.sink());
  CHECK(host.build_id_size > 0);  // read from the file, as before
  MappingRecord shared = ns.mapping(42, ns.exe);  // the same file on the host (equal build-id)
  shared.build_id_size = host.build_id_size;
  shared.build_id = host.build_id;
  files.resolve(shared, images.sink());
  MappingRecord missing = ns.mapping(43, ns.app);  // not on the host: left as the report will find it
  files.resolve(missing, images.sink());
  CHECK(missing.build_id_size == 0);
  CHECK(images.written.empty());
  CHECK(files.notes().empty());
}

TEST_CASE("namespace files: over --embed-max a warning names the file", "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(1000, ProcessRoots(ns.proc));
  MappingRecord m = ns.mapping(42, ns.app);
  files.resolve(m, images.sink());
  CHECK(images.written.empty());
  CHECK(m.build_id_size > 0);  // still known
  REQUIRE(files.warnings().size() == 1);
  CHECK(files.warnings()[0].find(ns.app) != std::string::npos);
  CHECK(files.warnings()[0].find("--embed-max") != std::string::npos);
  REQUIRE(files.notes().size() == 1);
  CHECK(files.notes()[0].bytes == 0);
}

TEST_CASE("namespace files: a file that is no ELF binary is not embedded", "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc));
  const std::string text = ns.dir.file("script");
  std::ofstream(ns.proc + "/42/root" + text) << "#!/bin/sh\n";
  MappingRecord m = ns.mapping(42, text);
  files.resolve(m, images.sink());
  CHECK(images.written.empty());
  REQUIRE(files.notes().size() == 1);
  CHECK(files.notes()[0].found_at == ns.proc + "/42/root" + text);
  CHECK(files.notes()[0].bytes == 0);
  CHECK(files.warnings().empty());
}

TEST_CASE("namespace files: a file found nowhere is noted without a place", "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc));
  MappingRecord m = ns.mapping(42, ns.dir.file("gone"));
  files.resolve(m, images.sink());
  CHECK(images.written.empty());
  REQUIRE(files.notes().size() == 1);
  CHECK(files.notes()[0].found_at.empty());
}

TEST_CASE("namespace files: a perf map inside the namespace is copied as it grows, whole lines only", "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc));
  MappingRecord m = ns.mapping(42, ns.app);
  files.resolve(m, images.sink());
  images.written.clear();
  files.copy_perf_maps(images.sink());
  CHECK(images.written.empty());  // none written yet

  const std::string map = ns.proc + "/42/root/tmp/perf-1.map";
  std::ofstream(map) << "7f0000001000 40 jitted_one\n";
  files.copy_perf_maps(images.sink());
  REQUIRE(images.written.size() == 1);
  CHECK(images.written[0].first == "perf-map:42");
  CHECK(images.written[0].second == "7f0000001000 40 jitted_one\n");
  files.copy_perf_maps(images.sink());
  CHECK(images.written.size() == 1);  // unchanged

  std::ofstream(map, std::ios::app) << "7f0000002000 40 jitted_two\n7f00000030";
  files.copy_perf_maps(images.sink());
  REQUIRE(images.written.size() == 2);
  CHECK(images.written[1].second == "7f0000002000 40 jitted_two\n");  // the lines that follow; not half a line
  std::ofstream(map, std::ios::app) << "00 40 jitted_three\n";
  files.copy_perf_maps(images.sink());
  REQUIRE(images.written.size() == 3);
  CHECK(images.written[2].second == "7f0000003000 40 jitted_three\n");
}

TEST_CASE("namespace files: a host process's perf map is copied too, when its owner could have written it",
          "[namespace_files]") {
  Namespaces ns;
  Images images;
  NamespaceFiles files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc));
  const std::string host_tmp = ns.dir.file("host-tmp");
  fs::create_directories(host_tmp);
  files.set_host_perf_map_dir(host_tmp);
  MappingRecord m = ns.mapping(43, ns.exe);  // pid 43 shares our mount namespace
  files.resolve(m, images.sink());
  CHECK(images.written.empty());  // a host file is not embedded

  std::ofstream(host_tmp + "/perf-43.map") << "7f0000001000 40 jitted_host\n";
  files.copy_perf_maps(images.sink());
  REQUIRE(images.written.size() == 1);
  CHECK(images.written[0].first == "perf-map:43");
  CHECK(images.written[0].second == "7f0000001000 40 jitted_host\n");

  // Owned by a user who is neither root, nor this user, nor the process's
  // (its /proc/43 is this user's): anyone could have written it.
  std::ofstream(host_tmp + "/perf-43.map", std::ios::app) << "7f0000002000 40 planted\n";
  REQUIRE(chown((host_tmp + "/perf-43.map").c_str(), 54321, 54321) == 0);
  files.copy_perf_maps(images.sink());
  CHECK(images.written.size() == 1);
}

namespace {

// The images written, with the warnings, after one copy of the perf maps of
// pid 42 (in its namespace) and pid 43 (on the host, its maps in host_tmp).
struct PerfMapCase {
  Namespaces ns;
  Images images;
  std::string host_tmp = ns.dir.file("host-tmp");
  NamespaceFiles files;

  explicit PerfMapCase(PerfMapLimits limits = {})
      : files(kDefaultEmbedMaxBytes, ProcessRoots(ns.proc), limits) {
    fs::create_directories(host_tmp);
    files.set_host_perf_map_dir(host_tmp);
    for (uint32_t pid : {42u, 43u}) {
      MappingRecord m = ns.mapping(pid, pid == 42 ? ns.app : ns.exe);
      files.resolve(m, images.sink());
    }
    images.written.clear();
  }
  std::string copied(const std::string& name) const {
    std::string all;
    for (const auto& [n, bytes] : images.written)
      if (n == name) all += bytes;
    return all;
  }
  std::string warnings() const {
    std::string all;
    for (const std::string& w : files.warnings()) all += w + "\n";
    return all;
  }
};

const std::string kSecretLine = "7f0000009000 40 host_secret\n";

}  // namespace

TEST_CASE("namespace files: a perf map that is a link inside the namespace is not followed, out of it or within",
          "[namespace_files]") {
  PerfMapCase c;
  const std::string secret = c.ns.dir.file("secret");  // a host file, outside pid 42's root
  std::ofstream(secret) << kSecretLine;
  fs::create_symlink(secret, c.ns.perf_map());
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.images.written.empty());
  CHECK(c.warnings().find("process 42") != std::string::npos);
  CHECK(c.warnings().find("is a symbolic link") != std::string::npos);

  // A link to a file inside the root is not followed either: a map is the file itself.
  fs::remove(c.ns.perf_map());
  std::ofstream(c.ns.proc + "/42/root/tmp/real.map") << kSecretLine;
  fs::create_symlink("real.map", c.ns.perf_map());
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.images.written.empty());
}

TEST_CASE("namespace files: a folder link on the way to a perf map resolves inside the namespace's root",
          "[namespace_files]") {
  PerfMapCase c;
  const std::string host_dir = c.ns.dir.file("host-dir");  // the host's, outside pid 42's root
  fs::create_directories(host_dir);
  std::ofstream(host_dir + "/perf-1.map") << kSecretLine;
  fs::remove_all(c.ns.proc + "/42/root/tmp");
  fs::create_symlink(host_dir, c.ns.proc + "/42/root/tmp");  // /tmp -> an absolute path: inside, nothing is there
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.images.written.empty());

  // An absolute link to a folder inside the root is followed there.
  fs::remove(c.ns.proc + "/42/root/tmp");
  fs::create_symlink("/jit", c.ns.proc + "/42/root/tmp");
  fs::create_directories(c.ns.proc + "/42/root/jit");
  std::ofstream(c.ns.proc + "/42/root/jit/perf-1.map") << "7f0000001000 40 inside\n";
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.copied("perf-map:42") == "7f0000001000 40 inside\n");
}

TEST_CASE("namespace files: a host process's perf map is never a link or a second name of another file",
          "[namespace_files]") {
  PerfMapCase c;
  const std::string secret = c.ns.dir.file("secret");  // root's (the suite runs as root), as /etc/shadow is
  std::ofstream(secret) << kSecretLine;
  const std::string map = c.host_tmp + "/perf-43.map";
  fs::create_symlink(secret, map);  // fs.protected_symlinks=0 would let anyone plant this in /tmp
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.images.written.empty());
  fs::remove(map);
  fs::create_hard_link(secret, map);  // and fs.protected_hardlinks=0 this
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.images.written.empty());
  CHECK(c.warnings().find("process 43") != std::string::npos);
  fs::remove(map);
  std::ofstream(map) << "7f0000001000 40 own\n";
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.copied("perf-map:43") == "7f0000001000 40 own\n");
}

TEST_CASE("namespace files: a perf map is copied up to the bound per process, then no more, and a warning says so",
          "[namespace_files]") {
  PerfMapCase c(PerfMapLimits{100, 1000, 1000});
  const std::string line = "7f0000001000 40 jitted_0123456789\n";  // 35 bytes
  std::ofstream(c.ns.perf_map()) << line << line;
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.copied("perf-map:42") == line + line);
  CHECK(c.warnings().empty());
  std::ofstream(c.ns.perf_map(), std::ios::app) << line << line;  // 140 bytes: over 100
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.copied("perf-map:42") == line + line);  // the third line would end past byte 100
  CHECK(c.warnings() == "the JIT map of process 42 (/tmp/perf-1.map) is over --perf-map-max (100 bytes): its lines after "
                        "the first 100 bytes are not copied, and code they name is unnamed in reports\n");
  std::ofstream(c.ns.perf_map(), std::ios::app) << line;
  c.files.copy_perf_maps(c.images.sink());
  c.files.copy_perf_maps(c.images.sink(), PerfMapRound::kToTheEnd);
  CHECK(c.copied("perf-map:42") == line + line);
  CHECK(c.files.warnings().size() == 1);
  CHECK(c.files.perf_map_bytes() <= 100);
}

TEST_CASE("namespace files: a sparse perf map is read no further than the bound", "[namespace_files]") {
  PerfMapCase c(PerfMapLimits{1 << 20, 4 << 20, 256 << 10});
  std::ofstream(c.ns.perf_map()) << "7f0000001000 40 first\n";
  REQUIRE(truncate(c.ns.perf_map().c_str(), off_t{1} << 40) == 0);  // a hole of a TiB
  for (int i = 0; i < 3; ++i) c.files.copy_perf_maps(c.images.sink());
  CHECK(c.files.perf_map_bytes() <= 3 * (256 << 10));  // a step at a time
  c.files.copy_perf_maps(c.images.sink(), PerfMapRound::kToTheEnd);
  CHECK(c.copied("perf-map:42") == "7f0000001000 40 first\n");
  CHECK(c.files.perf_map_bytes() <= (1 << 20));
  CHECK(c.warnings().find("the JIT map of process 42 (/tmp/perf-1.map) is over --perf-map-max (1.0 MB)") == 0);
}

TEST_CASE("namespace files: the perf maps of all processes together stop at the recording's bound", "[namespace_files]") {
  PerfMapCase c(PerfMapLimits{100, 150, 1000});
  const std::string line = "7f0000001000 40 jitted_0123456789\n";  // 35 bytes
  std::ofstream(c.ns.perf_map()) << line << line;            // 70
  std::ofstream(c.host_tmp + "/perf-43.map") << line << line;  // 70 more: 140, under 150
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.copied("perf-map:42") == line + line);
  CHECK(c.copied("perf-map:43") == line + line);
  std::ofstream(c.ns.perf_map(), std::ios::app) << line;
  c.files.copy_perf_maps(c.images.sink(), PerfMapRound::kToTheEnd);
  CHECK(c.copied("perf-map:42") == line + line);
  CHECK(c.warnings() == "the JIT maps reached 150 bytes in all (4 x --perf-map-max): the later lines of process 42 "
                        "(/tmp/perf-1.map), and of any other, are not copied\n");
}

TEST_CASE("namespace files: after a process's exit its perf map is left to the last round", "[namespace_files]") {
  PerfMapCase c;
  std::ofstream(c.host_tmp + "/perf-43.map") << "7f0000001000 40 before_exit\n";
  c.files.copy_perf_maps(c.images.sink());
  REQUIRE(c.copied("perf-map:43") == "7f0000001000 40 before_exit\n");
  REQUIRE(c.files.watched_perf_maps() == 2);

  // Lines written as the process ended: not copied by the steps that follow
  // (nor at the exit: a copy then would come after the samples it names),
  // but by the last round, which a report reads before any sample.
  std::ofstream(c.host_tmp + "/perf-43.map", std::ios::app) << "7f0000002000 40 at_exit\n";
  c.files.process_exited(43);
  CHECK(c.files.watched_perf_maps() == 1);
  c.files.copy_perf_maps(c.images.sink());
  CHECK(c.copied("perf-map:43") == "7f0000001000 40 before_exit\n");
  c.files.copy_perf_maps(c.images.sink(), PerfMapRound::kToTheEnd);
  CHECK(c.copied("perf-map:43") == "7f0000001000 40 before_exit\n7f0000002000 40 at_exit\n");
  CHECK(c.warnings().empty());
  c.files.process_exited(44);  // never seen: nothing happens
  CHECK(c.files.watched_perf_maps() == 1);
}
