#include "sampler/process_root.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

using namespace swprof;
namespace fs = std::filesystem;

namespace {

// A fake /proc under a temp dir: "self" in mount namespace mnt:[1]; pid 42
// in mnt:[2] with its root directory at proc/42/root; pid 43 in mnt:[1].
struct FakeProc {
  testing::TempDir dir;
  std::string proc = dir.file("proc");
  std::string exe = fs::read_symlink("/proc/self/exe").string();  // an ELF file with a build-id
  BuildId exe_id = read_build_id(exe).value_or(BuildId{});

  FakeProc() {
    set_namespace("self", "mnt:[1]");
    set_namespace("42", "mnt:[2]");
    set_namespace("43", "mnt:[1]");
    fs::create_directories(proc + "/42/root");
    fs::create_directories(proc + "/42/map_files");
  }
  void set_namespace(const std::string& pid, const std::string& ns) {
    fs::create_directories(proc + "/" + pid + "/ns");
    fs::remove(proc + "/" + pid + "/ns/mnt");
    fs::create_symlink(ns, proc + "/" + pid + "/ns/mnt");
  }
  // A copy of the test program at `path` inside pid 42's root.
  std::string put_inside(const std::string& path) {
    const std::string inside = proc + "/42/root" + path;
    fs::create_directories(fs::path(inside).parent_path());
    fs::copy_file(exe, inside);
    return inside;
  }
  MappedFile mapped(uint32_t pid, const std::string& path, BuildId id) const {
    MappedFile f;
    f.pid = pid;
    f.path = path;
    f.start = 0x1000;
    f.end = 0x2000;
    f.build_id = std::move(id);
    return f;
  }
  // The same without a build-id, with the device and inode of `file` (as
  // /proc/PID/maps gives them for the file mapped).
  MappedFile mapped_as(uint32_t pid, const std::string& path, const std::string& file) const {
    MappedFile f = mapped(pid, path, {});
    struct stat st {};
    REQUIRE(stat(file.c_str(), &st) == 0);
    f.dev_major = major(st.st_dev);
    f.dev_minor = minor(st.st_dev);
    f.inode = st.st_ino;
    return f;
  }
};

}  // namespace

TEST_CASE("process root: a process in our mount namespace opens its path as it is", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  auto found = roots.resolve(p.mapped(43, p.exe, {}));
  REQUIRE(found);
  CHECK(found->open_path == p.exe);
  CHECK(found->via == ResolvedFile::Via::kHost);
  CHECK_FALSE(roots.resolve(p.mapped(43, p.dir.file("missing"), {})));
}

TEST_CASE("process root: in another namespace the host path is used only when it is the same file",
          "[process_root]") {
  FakeProc p;
  REQUIRE_FALSE(p.exe_id.empty());
  ProcessRoots roots(p.proc);
  auto same = roots.resolve(p.mapped(42, p.exe, p.exe_id));
  REQUIRE(same);
  CHECK(same->via == ResolvedFile::Via::kHost);
  CHECK(same->mount_ns == "mnt:[2]");

  // Another build-id: the host file is another binary; the one inside is read.
  p.put_inside(p.exe);
  auto other = roots.resolve(p.mapped(42, p.exe, BuildId{1, 2, 3}));
  CHECK_FALSE(other);  // the copy inside has the test program's build-id, not 010203
  auto by_root = roots.resolve(p.mapped(42, p.dir.file("only-inside"), {}));
  CHECK_FALSE(by_root);
}

TEST_CASE("process root: a file only inside the namespace is found through /proc/PID/root",
          "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  const std::string path = p.dir.file("app");  // not on the host
  const std::string inside = p.put_inside(path);
  auto found = roots.resolve(p.mapped(42, path, p.exe_id));
  REQUIRE(found);
  CHECK(found->via == ResolvedFile::Via::kProcRoot);
  CHECK(found->open_path == inside);
  CHECK(describe_via(found->via, 42) == "/proc/42/root");
  auto without_id = roots.resolve(p.mapped_as(42, path, inside));
  REQUIRE(without_id);
  CHECK(without_id->open_path == inside);
  // Neither a build-id nor an inode: nothing proves the file inside is the one mapped.
  CHECK_FALSE(roots.resolve(p.mapped(42, path, {})));
}

TEST_CASE("process root: a file inside the root is taken only when it is the mapped file", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  const std::string path = p.dir.file("app");
  const std::string inside = p.put_inside(path);
  const std::string mapped = p.proc + "/42/map_files/1000-2000";
  fs::copy_file(p.exe, mapped);  // the file really mapped: another inode
  auto found = roots.resolve(p.mapped_as(42, path, mapped));
  REQUIRE(found);
  CHECK(found->via == ResolvedFile::Via::kMapFiles);
  CHECK(found->open_path == mapped);
  auto other_id = roots.resolve(p.mapped(42, path, BuildId{1, 2, 3}));
  REQUIRE(other_id);
  CHECK(other_id->via == ResolvedFile::Via::kMapFiles);
}

TEST_CASE("process root: links inside the root resolve inside it, never to a file of the host", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  // A program of the host that the process cannot see (root's only), and
  // the file the process really maps.
  const std::string host_tool = p.dir.file("host-tool");
  fs::copy_file(p.exe, host_tool);
  REQUIRE(chmod(host_tool.c_str(), 0700) == 0);
  const std::string mapped = p.proc + "/42/map_files/1000-2000";
  fs::copy_file(p.exe, mapped);
  const std::string root = p.proc + "/42/root";
  fs::create_directories(root + "/bin");
  fs::create_symlink(host_tool, root + "/bin/absolute");
  fs::create_symlink("../../../../../../../../../../.." + host_tool, root + "/bin/dotdot");
  fs::create_symlink(p.dir.path(), root + "/hostdir");  // a folder: /hostdir/host-tool
  for (const std::string path : {"/bin/absolute", "/bin/dotdot", "/hostdir/host-tool", "/bin/../../../host-tool"}) {
    INFO(path);
    // Even with the host file's own device and inode (or build-id), it is not reached.
    for (const MappedFile& f : {p.mapped_as(42, path, mapped), p.mapped_as(42, path, host_tool)}) {
      auto found = roots.resolve(f);
      CHECK((!found || found->via == ResolvedFile::Via::kMapFiles));
      if (found) CHECK(found->open_path == mapped);
    }
    auto by_id = roots.resolve(p.mapped(42, path, p.exe_id));
    CHECK((!by_id || by_id->via != ResolvedFile::Via::kProcRoot));
  }
}

TEST_CASE("process root: map_files is the last resort and FIFOs are never accepted", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  const std::string path = p.dir.file("fifo");
  fs::create_directories(p.proc + "/42/root" + p.dir.path());
  REQUIRE(mkfifo((p.proc + "/42/root" + path).c_str(), 0600) == 0);
  CHECK_FALSE(roots.resolve(p.mapped(42, path, {})));

  const std::string mapped = p.proc + "/42/map_files/1000-2000";
  REQUIRE(mkfifo(mapped.c_str(), 0600) == 0);
  CHECK_FALSE(roots.resolve(p.mapped(42, path, {})));
  fs::remove(mapped);
  fs::copy_file(p.exe, mapped);
  auto found = roots.resolve(p.mapped(42, path, {}));
  REQUIRE(found);
  CHECK(found->via == ResolvedFile::Via::kMapFiles);
  CHECK(found->open_path == mapped);
}

TEST_CASE("process root: without a build-id, device and inode tell the same host file", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  struct stat st {};
  REQUIRE(stat(p.exe.c_str(), &st) == 0);
  MappedFile f = p.mapped(42, p.exe, {});
  f.dev_major = major(st.st_dev);
  f.dev_minor = minor(st.st_dev);
  f.inode = st.st_ino;
  auto same = roots.resolve(f);
  REQUIRE(same);
  CHECK(same->via == ResolvedFile::Via::kHost);

  const std::string inside = p.put_inside(p.exe);  // another file at that path inside, the one mapped
  f = p.mapped_as(42, p.exe, inside);
  auto other = roots.resolve(f);
  REQUIRE(other);
  CHECK(other->via == ResolvedFile::Via::kProcRoot);
  CHECK(other->open_path == inside);
}

TEST_CASE("process root: the mount namespace is cached per pid until forgotten", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  CHECK(roots.own_mount_namespace() == "mnt:[1]");
  CHECK(roots.mount_namespace(43) == "mnt:[1]");
  p.set_namespace("43", "mnt:[3]");  // it called unshare, then exec
  CHECK(roots.mount_namespace(43) == "mnt:[1]");
  roots.forget(43);
  CHECK(roots.mount_namespace(43) == "mnt:[3]");
  CHECK(roots.mount_namespace(99).empty());  // no such process
}

TEST_CASE("process root: the perf map of a process in another namespace is its /tmp's, by its own pid",
          "[process_root]") {
  FakeProc p;
  std::ofstream(p.proc + "/42/status") << "Name:\tapp\nTgid:\t42\nNSpid:\t42\t1\nNStgid:\t42\t1\n";
  std::ofstream(p.proc + "/43/status") << "Name:\tapp\nNSpid:\t43\n";
  ProcessRoots roots(p.proc);
  CHECK(roots.perf_map_path(42) == "/tmp/perf-1.map");  // opened inside its root
  CHECK_FALSE(roots.perf_map_path(43));  // our namespace: /tmp/perf-43.map as usual
  CHECK(parse_nspid("Name:\tx\nNSpid:\t735\t12\t1\n") == 1u);
  CHECK(parse_nspid("NSpid:\t735\n") == 735u);
  CHECK_FALSE(parse_nspid("Name:\tx\n"));
}

TEST_CASE("process root: a path of a process is opened as the process sees it", "[process_root]") {
  FakeProc p;
  ProcessRoots roots(p.proc);
  const std::string host = p.dir.file("host-file");
  std::ofstream(host) << "host";
  fs::create_directories(p.proc + "/42/root/etc");
  std::ofstream(p.proc + "/42/root/etc/conf") << "inside";
  fs::create_symlink(host, p.proc + "/42/root/etc/link");
  CHECK(roots.open(43, host));  // our namespace: the path itself
  CHECK_FALSE(roots.foreign(43));
  CHECK(roots.foreign(42));
  auto conf = roots.open(42, "/etc/conf");
  REQUIRE(conf);
  CHECK(conf.value->size == 6);
  CHECK(roots.open(42, "/etc/link").missing());  // the host's path, inside the root: nothing there
  CHECK(roots.open(42, "/etc/link", Links::kNotFinal).reason == "is a symbolic link, not a regular file");
  CHECK(roots.open(42, host).missing());
}
