#pragma once
// Reads back what `swprof report --format pprof` writes (a gzipped
// profile.proto message) with the generated classes, and shows it as text
// with every string index resolved: the readable form of the golden files.

#include <string>
#include <vector>

#include "output/proto/profile.pb.h"

namespace swprof::testing {

// The message in `gzipped` (the bytes of a .pb.gz file); fails the test when
// they do not parse.
perftools::profiles::Profile read_pprof(const std::string& gzipped);

// Every field of the message in `gzipped`, one message per line, strings
// quoted in place of their indexes, ids kept:
//   sample_type samples/count cpu/nanoseconds default cpu
//   mapping 1 [0x400000, 0x401000) offset 0x1000 "/bin/app" build_id "ab12" functions filenames lines inline
//   function 3 "main" system_name "main" file "app.c" start_line 0
//   location 2 mapping 1 address 0x0 lines 3:"main":12 (innermost first)
//   sample 60 60000000 locations 2 1 labels thread="app" thread_id=42
// Fails the test when an id refers to nothing or string_table[0] is not "".
std::string pprof_text(const std::string& gzipped);

// string_table[index], "" when out of range.
std::string pprof_string(const perftools::profiles::Profile& p, int64_t index);

// The function names of a sample, leaf first, each location's lines
// innermost first: {"spin_inlined", "spin_caller", "main", ...}.
std::vector<std::string> pprof_stack(const perftools::profiles::Profile& p, const perftools::profiles::Sample& s);

}  // namespace swprof::testing
