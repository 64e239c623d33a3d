// C++ exceptions in flight: main -> a -> b -> thrower throws, a catches, over
// and over, so many samples land inside the C++ runtime's unwinder
// (__cxa_throw, _Unwind_RaiseException, the personality routine) whose
// callers are thrower -> b -> a -> main.
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;

static double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

NOINLINE void thrower(int i) {
  sink = sink + 1;
  throw std::runtime_error(i % 2 ? "odd" : "even");
}

NOINLINE void b(int i) {
  thrower(i);
  sink = sink + 1;
}

NOINLINE void a(double s) {
  const double end = cpu_now() + s;
  for (int i = 0; cpu_now() < end; ++i) {
    try {
      b(i);
    } catch (const std::exception& e) {
      sink = sink + static_cast<unsigned long>(e.what()[0]);
    }
  }
  sink = sink + 1;
}

int main(int argc, char** argv) {
  a(argc > 1 ? std::atof(argv[1]) : 1.0);
  sink = sink + 1;
  return 0;
}
