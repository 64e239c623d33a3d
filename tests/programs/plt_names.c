// Calls through the PLT for the PLT-naming tests (tests/binary/plt_entries_test.cpp):
// write and puts through lazy stubs, and getpid also taken as a pointer, so
// its stub goes through a GOT slot of .rela.dyn (.plt.got) where the linker
// chooses so. Built twice: default (.plt, .plt.got) and with
// -fcf-protection=full -Wl,-z,ibtplt (.plt, .plt.sec, .plt.got), both stripped.
#include <stdio.h>
#include <unistd.h>

pid_t (*volatile pid_function)(void) = getpid;

int main(void) {
  if (write(1, "", 0) < 0) return 1;
  if (getpid() != pid_function()) return 1;
  return puts("plt") < 0;
}
