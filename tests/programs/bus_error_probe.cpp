// Maps a file it creates (argv[1]), cuts it short, and reads past its new
// end: the kernel raises SIGBUS, which swprof's handler (cli/bus_error.cpp,
// compiled in) turns into one line and an exit status. With "raise" as
// argv[2], raises a SIGBUS of another kind, which keeps its default action.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "cli/bus_error.h"

int main(int argc, char** argv) {
  if (argc < 2) return 3;
  prctl(PR_SET_DUMPABLE, 0);  // no core file, wherever core_pattern would put it
  swprof::cli::exit_on_bus_error();
  if (argc > 2 && std::strcmp(argv[2], "raise") == 0) {
    raise(SIGBUS);
    return 4;
  }
  const int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate(fd, 8192) != 0) return 5;
  const auto* p = static_cast<const volatile char*>(mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0));
  if (p == MAP_FAILED || ftruncate(fd, 0) != 0) return 6;
  return p[4096] == 0 ? 0 : 1;  // not reached: SIGBUS
}
