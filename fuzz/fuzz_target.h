#pragma once
// The libFuzzer entry point every target in this folder defines. In the fuzz
// build (SWPROF_FUZZ=ON, clang) libFuzzer's main drives it; in every other
// build replay_main.cpp runs it once per file of the corpus and regression
// folders, so the test suite replays them.

#include <cstddef>
#include <cstdint>

// Must not crash, leak, hang or trip a sanitizer on any input: parsers reject
// bad bytes by throwing swprof::Error or by returning an empty result.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Stops the process when a property the target checks does not hold, so the
// fuzzer records the input as a crash (assert() is compiled out in release).
#define SWPROF_FUZZ_CHECK(condition) \
  do {                               \
    if (!(condition)) __builtin_trap(); \
  } while (0)
