// Which Debian package installed a file (symbolize/debian_packages.h), from
// dpkg file lists written by the test, with the usrmerge aliases.

#include "symbolize/debian_packages.h"

#include <catch2/catch.hpp>

#include "support/sym_fixtures.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("debian packages: usrmerge aliases both ways, none outside the merged folders", "[debian_packages]") {
  CHECK(usrmerge_alias("/usr/lib/x86_64-linux-gnu/libc.so.6") == "/lib/x86_64-linux-gnu/libc.so.6");
  CHECK(usrmerge_alias("/lib/x86_64-linux-gnu/libc.so.6") == "/usr/lib/x86_64-linux-gnu/libc.so.6");
  CHECK(usrmerge_alias("/bin/true") == "/usr/bin/true");
  CHECK(usrmerge_alias("/usr/sbin/sshd") == "/sbin/sshd");
  CHECK(usrmerge_alias("/lib64/ld-linux-x86-64.so.2") == "/usr/lib64/ld-linux-x86-64.so.2");
  CHECK(usrmerge_alias("/usr/local/bin/tool") == "");
  CHECK(usrmerge_alias("/usr/libexec/x") == "");
}

TEST_CASE("debian packages: the owner of each path from the lists, by either name", "[debian_packages]") {
  TempDir dir;
  write_file(dir.file("libfoo1:amd64.list"), "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
  write_file(dir.file("bar.list"), "/usr/bin/bar\n/usr/share/doc/bar\n");
  write_file(dir.file("bar.md5sums"), "0123 /usr/bin/baz\n");  // not a list
  const auto owners = debian_packages_owning(
      {"/usr/lib/x86_64-linux-gnu/libfoo.so.1", "/bin/bar", "/usr/bin/baz", "/opt/own/tool"}, dir.path());
  CHECK(owners == std::map<std::string, std::string>{{"/usr/lib/x86_64-linux-gnu/libfoo.so.1", "libfoo1"},
                                                     {"/bin/bar", "bar"}});
  CHECK(debian_packages_owning({"/bin/bar"}, dir.file("no-such-folder")).empty());
}
