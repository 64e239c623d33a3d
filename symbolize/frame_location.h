#pragma once
// How a frame is shown before full symbolization: module+offset, and the
// ELF symbol (function+offset) when the binary has one.

#include <string>

#include "unwind/address_space.h"
#include "unwind/frame.h"

namespace swprof {

struct FrameLocation {
  std::string module;    // basename of the mapped file, "[vdso]", or "[unknown]"
  uint64_t offset = 0;   // file offset of pc in the module (ELF vaddr for images)
  std::string function;  // empty when unknown
  uint64_t function_offset = 0;
};

FrameLocation locate_frame(const ProcessMaps& maps, const Frame& frame);

// "leaf+0x1c (known_stack+0x11bc)" or "[unknown] (libfoo.so+0x1234)".
std::string format_location(const FrameLocation& loc);

}  // namespace swprof
