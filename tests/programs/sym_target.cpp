// Symbolizer test program (tests/symbolize/): built -O2 -g, then copied
// stripped, with separate debuginfo and with minidebuginfo. It calls each
// probed function once; sym_probe() keeps its return address, a spot inside
// the caller, and main prints "TAG VADDR" per probe with VADDR relative to
// the executable's load base (the ELF virtual address), so tests can
// symbolize known code without unwinding.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>

#define NOIPA __attribute__((noipa))

extern "C" {
extern volatile uintptr_t sym_sink;
void run_inline(int x);
void run_static(int x);

struct Probe {
  const char* tag;
  void* return_address;
};
Probe sym_probes[8];
int sym_probe_count;

NOIPA void sym_probe(const char* tag) {
  if (sym_probe_count < 8) sym_probes[sym_probe_count++] = {tag, __builtin_return_address(0)};
}
}

namespace sym_test {
template <typename T>
struct Box {
  NOIPA static T twice(T v) {
    sym_probe("template"); // @template-calls-probe
    return v * 2;
  }
};
}  // namespace sym_test

int main() {
  run_inline(1);
  run_static(2);
  sym_sink = sym_sink + static_cast<uintptr_t>(sym_test::Box<int>::twice(3));
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&sym_probe), &info) || !info.dli_fbase) return 1;
  const auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  for (int i = 0; i < sym_probe_count; ++i)
    std::printf("%s %llx\n", sym_probes[i].tag,
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(sym_probes[i].return_address) - base));
  return 0;
}
