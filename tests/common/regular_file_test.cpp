// open_regular_file / read_regular_file: only regular files, never blocking,
// reads bounded by the file's size and a maximum.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/regular_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("a regular file is opened and read whole", "[regular_file]") {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  std::ofstream(path) << "hello\n";
  auto opened = open_regular_file(path);
  REQUIRE(opened);
  CHECK(opened.value->size == 6);
  CHECK(opened.value->owner == geteuid());
  auto text = read_regular_file(*opened.value, 100);
  REQUIRE(text);
  CHECK(*text.value == "hello\n");
}

TEST_CASE("a symbolic link to a regular file is followed", "[regular_file]") {
  TempDir dir;
  std::ofstream(dir.file("a.txt")) << "via link";
  REQUIRE(::symlink("a.txt", dir.file("link").c_str()) == 0);
  auto text = read_regular_file(dir.file("link"), 100);
  REQUIRE(text);
  CHECK(*text.value == "via link");
}

TEST_CASE("a FIFO is refused without blocking", "[regular_file]") {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto opened = open_regular_file(fifo);
  CHECK_FALSE(opened);
  CHECK(opened.reason == "is a FIFO, not a regular file");
  CHECK_FALSE(opened.missing());
  CHECK_FALSE(read_regular_file(fifo, 100));
}

TEST_CASE("a link to an endless device is refused", "[regular_file]") {
  TempDir dir;
  REQUIRE(::symlink("/dev/zero", dir.file("zero").c_str()) == 0);
  auto text = read_regular_file(dir.file("zero"), 1 << 20);
  CHECK_FALSE(text);
  CHECK(text.reason == "is a character device, not a regular file");
  auto d = open_regular_file(dir.path());
  CHECK(d.reason == "is a directory, not a regular file");
}

TEST_CASE("a missing file says so", "[regular_file]") {
  TempDir dir;
  auto opened = open_regular_file(dir.file("none"));
  CHECK_FALSE(opened);
  CHECK(opened.missing());
  CHECK(opened.reason == "No such file or directory");
}

TEST_CASE("a file over the maximum is refused", "[regular_file]") {
  TempDir dir;
  const std::string path = dir.file("big");
  std::ofstream(path) << std::string(3 << 20, 'x');
  auto text = read_regular_file(path, 2 << 20);
  CHECK_FALSE(text);
  CHECK(text.reason == "larger than 2 MiB");
  CHECK(read_regular_file(path, 3 << 20));
}

TEST_CASE("a /proc file (size 0) is read to its end, within the maximum", "[regular_file]") {
  auto opened = open_regular_file("/proc/self/status");
  REQUIRE(opened);
  CHECK(opened.value->size == 0);
  auto text = read_regular_file(*opened.value, 1 << 20);
  REQUIRE(text);
  CHECK(text.value->find("Pid:") != std::string::npos);
  auto small = read_regular_file("/proc/self/status", 10);
  CHECK_FALSE(small);
  CHECK(small.reason == "larger than 10 bytes");
}

TEST_CASE("a file that grows is read up to its size when opened", "[regular_file]") {
  TempDir dir;
  const std::string path = dir.file("growing");
  std::ofstream(path) << "0123456789";
  auto opened = open_regular_file(path);
  REQUIRE(opened);
  std::ofstream(path, std::ios::app) << "more";
  auto text = read_regular_file(*opened.value, 100);
  REQUIRE(text);
  CHECK(*text.value == "0123456789");
}

TEST_CASE("a file read to be kept: the same bytes and refusals as read_regular_file", "[regular_file]") {
  TempDir dir;
  const std::string path = dir.file("big");
  std::string content;
  for (int i = 0; content.size() < (5u << 20); ++i) content += "ffffffff8100" + std::to_string(i) + " T f\n";
  std::ofstream(path) << content;
  auto text = read_regular_file_text(path, 8 << 20);
  REQUIRE(text);
  CHECK(text.value->text == content);
  CHECK(text.value->owner);
  auto small = read_regular_file_text(path, 2 << 20);
  CHECK_FALSE(small);
  CHECK(small.reason == "larger than 2 MiB");
  std::ofstream(dir.file("empty"));
  auto empty = read_regular_file_text(dir.file("empty"), 100);
  REQUIRE(empty);
  CHECK(empty.value->text.empty());
  auto proc = read_regular_file_text("/proc/self/status", 1 << 20);  // size 0: read to its end
  REQUIRE(proc);
  CHECK(proc.value->text.find("Pid:") != std::string_view::npos);
  // A size-0 file of exactly the most allowed is read whole; one byte more is refused.
  auto cmdline = read_regular_file("/proc/self/cmdline", 1 << 20);  // this process's: it does not change
  REQUIRE(cmdline);
  const std::string& args = *cmdline.value;
  REQUIRE(args.size() > 1);
  auto exact = read_regular_file_text("/proc/self/cmdline", args.size());
  REQUIRE(exact);
  CHECK(exact.value->text == args);
  auto over = read_regular_file_text("/proc/self/cmdline", args.size() - 1);
  CHECK_FALSE(over);
  CHECK(over.reason.rfind("larger than ", 0) == 0);
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  CHECK(read_regular_file_text(dir.file("fifo"), 100).reason == "is a FIFO, not a regular file");
  CHECK(read_regular_file_text(dir.file("none"), 100).missing());
}

TEST_CASE("a final symbolic link is refused when links are not followed there", "[regular_file]") {
  TempDir dir;
  std::ofstream(dir.file("a.txt")) << "target";
  REQUIRE(::symlink(dir.file("a.txt").c_str(), dir.file("link").c_str()) == 0);
  auto opened = open_regular_file(dir.file("link"), Links::kNotFinal);
  CHECK_FALSE(opened);
  CHECK(opened.reason == "is a symbolic link, not a regular file");
  std::filesystem::create_directory(dir.file("d"));
  REQUIRE(::symlink(dir.file("d").c_str(), dir.file("dir-link").c_str()) == 0);
  auto through = open_regular_file(dir.file("dir-link") + "/../a.txt", Links::kNotFinal);  // links on the way are followed
  REQUIRE(through);
  CHECK(through.value->links == 1);
  CHECK(through.value->inode != 0);
}

namespace {

// A root folder (as a container's) in a temp dir, and a file outside it that
// must never be reached from inside: the host's.
struct RootFolder {
  TempDir dir;
  std::string root = dir.file("root");
  std::string host_file = dir.file("host-secret");
  UniqueFd fd;

  RootFolder() {
    std::filesystem::create_directories(root + "/etc");
    std::ofstream(host_file) << "host";
    std::ofstream(root + "/etc/inside") << "inside";
    fd.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(fd.valid());
  }
  void link(const std::string& target, const std::string& name) const {
    REQUIRE(::symlink(target.c_str(), (root + name).c_str()) == 0);
  }
};

std::string text_of(FileResult<RegularFile> opened) {
  if (!opened) return "(" + opened.reason + ")";
  auto text = read_regular_file(*opened.value, 100);
  return text ? *text.value : "(" + text.reason + ")";
}

}  // namespace

TEST_CASE("in a root: absolute links, '..' and links with '..' stay inside it", "[regular_file]") {
  RootFolder r;
  CHECK(text_of(open_regular_file_in_root(r.fd.get(), "/etc/inside")) == "inside");
  CHECK(text_of(open_regular_file_in_root(r.fd.get(), "etc/inside")) == "inside");
  r.link(r.host_file, "/absolute");                              // the host path, absolute
  r.link("../../../../../../../../.." + r.host_file, "/dotdot");  // climbing above the root
  r.link(r.dir.path(), "/hostdir");                              // a folder of the host
  r.link("/etc/inside", "/inside-link");                         // absolute, meant inside
  for (const char* escaping : {"/absolute", "/dotdot", "/hostdir/host-secret", "/../host-secret",
                               "/etc/../../../host-secret"}) {
    INFO(escaping);
    auto opened = open_regular_file_in_root(r.fd.get(), escaping);
    CHECK_FALSE(opened);
    CHECK(opened.missing());  // resolved inside the root, where nothing is there
  }
  CHECK(text_of(open_regular_file_in_root(r.fd.get(), "/inside-link")) == "inside");
  CHECK(text_of(open_regular_file_in_root(r.fd.get(), "/etc/../../etc/inside")) == "inside");
  // The same file put inside where the link points: that one is read, never the host's.
  std::filesystem::create_directories(r.root + r.dir.path());
  std::ofstream(r.root + r.host_file) << "decoy inside";
  CHECK(text_of(open_regular_file_in_root(r.fd.get(), "/absolute")) == "decoy inside");
  CHECK(text_of(open_regular_file_in_root(r.fd.get(), "/dotdot")) == "decoy inside");
}

TEST_CASE("in a root: magic links are refused, FIFOs are not waited for, a final link can be refused",
          "[regular_file]") {
  RootFolder r;
  // /proc/self/root is a magic link (to this process's root, whatever the
  // root given): with "/" as the root it is on the way, and refused.
  UniqueFd slash(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(slash.valid());
  CHECK(text_of(open_regular_file_in_root(slash.get(), r.host_file)) == "host");
  auto magic = open_regular_file_in_root(slash.get(), "/proc/self/root" + r.host_file);
  CHECK_FALSE(magic);
  CHECK(magic.error == ELOOP);
  REQUIRE(::mkfifo((r.root + "/fifo").c_str(), 0600) == 0);
  CHECK(open_regular_file_in_root(r.fd.get(), "/fifo").reason == "is a FIFO, not a regular file");
  r.link("/etc/inside", "/final-link");
  CHECK(open_regular_file_in_root(r.fd.get(), "/final-link", Links::kNotFinal).reason ==
        "is a symbolic link, not a regular file");
}

TEST_CASE("in a root without openat2: any link or '..' on the way is refused", "[regular_file]") {
  RootFolder r;
  CHECK(text_of(open_regular_file_in_root_without_links(r.fd.get(), "/etc/inside")) == "inside");
  CHECK(text_of(open_regular_file_in_root_without_links(r.fd.get(), "//etc/./inside")) == "inside");
  r.link(r.host_file, "/absolute");
  r.link("etc", "/etc-link");
  auto absolute = open_regular_file_in_root_without_links(r.fd.get(), "/absolute");
  CHECK(absolute.reason == "is a symbolic link, not a regular file");
  auto on_the_way = open_regular_file_in_root_without_links(r.fd.get(), "/etc-link/inside");
  CHECK_FALSE(on_the_way);
  CHECK(on_the_way.error == ELOOP);
  auto up = open_regular_file_in_root_without_links(r.fd.get(), "/etc/../../host-secret");
  CHECK_FALSE(up);
  CHECK(up.error == EXDEV);
  CHECK(open_regular_file_in_root_without_links(r.fd.get(), "/").reason == "is a directory, not a regular file");
}
