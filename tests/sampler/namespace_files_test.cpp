#include "sampler/namespace_files.h"

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
  MappingRecord mapping(uint32_t pid, const std::string& path) const {
    MappingRecord m;
    m.pid = m.tid = pid;
    m.start = 0x400000;
    m.length = 0x1000;
    m.prot = 0x5;
    m.path = path;
    return m;
  }
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
