#pragma once
// Makes a recording of a program without libc self-contained, for golden
// tests that start from a stored recording (tests/golden/recording/): the
// program's bytes travel in the file as an image record, under a name
// without a folder, which the binary cache serves before any path and the
// symbolizer names from the image's own symbol table. Nothing is then read
// from the machine that reports it: no binary by path, no kernel symbols.

#include <cstddef>
#include <string>

namespace swprof::testing {

struct PortableRequest {
  std::string input;          // a recording of the program
  std::string output;         // the self-contained recording to write
  std::string program_path;   // the program's path as the recording maps it
  std::string image_name;     // its name in the new recording (no '/')
  size_t max_samples = 400;   // keep the first this many user-mode samples
};

struct PortableResult {
  size_t samples = 0;  // samples kept
  size_t dropped = 0;  // samples left out (kernel mode, no user stack, past max_samples)
};

// Copies `input` to `output`: first the program's image, then every mapping
// (the program's renamed to image_name; other files left out; bracketed
// names such as [vdso] kept, without their image), task and comm records,
// and the user-mode samples without their kernel call chains. The header
// names no host, kernel or folder; the end record counts the samples kept.
// Throws swprof::Error or std::runtime_error.
PortableResult make_portable_recording(const PortableRequest& request);

}  // namespace swprof::testing
