#pragma once
// How much of an exhaustive check a build runs. The sanitizer build
// (SWPROF_SANITIZE) runs the same tests with every access checked, unoptimized,
// several times slower: its purpose is to find memory and undefined-behaviour
// errors, which every kind of input still reaches when a loop over thousands
// of inputs of the same kinds takes every Nth. The normal build runs each such
// loop whole, so what the loop proves is proved on every CI run.

#include <cstddef>

namespace swprof::testing {

#ifndef SWPROF_TESTS_SANITIZED
#define SWPROF_TESTS_SANITIZED 0
#endif

inline constexpr bool kSanitizedBuild = SWPROF_TESTS_SANITIZED != 0;

// The step of an exhaustive loop: 1 in the normal build, `sanitized` (a prime,
// so that strides do not line up with record sizes) in the sanitizer build.
constexpr size_t exhaustive_step(size_t sanitized = 7) { return kSanitizedBuild ? sanitized : 1; }

// A count of random rounds: whole in the normal build, a share in the sanitizer build.
constexpr size_t rounds(size_t whole, size_t sanitized_divisor = 5) {
  return kSanitizedBuild ? (whole + sanitized_divisor - 1) / sanitized_divisor : whole;
}

}  // namespace swprof::testing
