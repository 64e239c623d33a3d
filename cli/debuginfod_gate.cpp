// libdw looks up a binary's separate debuginfo with debuginfod whenever its
// own search on disk finds none (a stripped binary without a -dbgsym
// package: most of them), and to do so it first loads libdebuginfod.so with
// everything that pulls in (libcurl, GnuTLS, Kerberos, LDAP...: some 25
// libraries, ~4 ms and ~6 MB per report), even when DEBUGINFOD_URLS is
// unset and the client could ask no server (it then answers ENOSYS without
// looking at its cache). swprof clears the variable unless --debuginfod is
// given (symbolize_options.h), so this refuses that one dlopen while there is
// no server to ask: libdw then has no client, which gives the same answer.
//
// libdw calls dlopen through its PLT, so the executable's definition is the
// one it reaches; every other dlopen goes on to libc's.

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace {

using DlopenFn = void* (*)(const char*, int);

DlopenFn libc_dlopen() {
  static const DlopenFn real = reinterpret_cast<DlopenFn>(dlsym(RTLD_NEXT, "dlopen"));
  return real;
}

bool no_debuginfod_server() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls == nullptr || *urls == '\0';
}

bool is_debuginfod_client(const char* file) {
  return file != nullptr && std::strncmp(file, "libdebuginfod.so", 16) == 0;
}

}  // namespace

extern "C" void* dlopen(const char* file, int mode) {
  if (is_debuginfod_client(file) && no_debuginfod_server()) return nullptr;
  const DlopenFn real = libc_dlopen();
  return real ? real(file, mode) : nullptr;
}
