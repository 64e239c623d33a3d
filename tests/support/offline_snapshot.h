#pragma once
// Offline snapshots of one sample, in the style of libunwindstack's offline
// unwind tests: a folder (tests/offline/<case>/) holds what the unwinder
// needs to walk the sample again anywhere, without the process or the
// host's libraries:
//
//   maps.txt         "start-end offset perms path", one mapping a line; a
//                    path not in brackets is a file relative to the folder
//   regs.txt         "name: 0xvalue", DWARF register names (rax ... rip)
//   stack_start.txt  the address of the first byte of stack.bin (the sp)
//   stack.bin        the copied stack bytes
//   expected.txt     the frame dump of the walk (dump_walk)
//
// capture_offline_case writes such a folder from a sample of a recording.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "unwind/address_space.h"
#include "unwind/frame.h"
#include "unwind/registers.h"

namespace swprof::testing {

struct OfflineCase {
  ProcessMaps maps;
  Registers regs;
  uint64_t stack_start = 0;
  std::vector<uint8_t> stack;
};

// Reads a case folder; throws std::runtime_error naming the bad file or line.
OfflineCase load_offline_case(const std::string& dir);

// One line per frame, then how the walk ended:
//   #01 pc 0x00000000004001a2 cfi prog+0x1a2 middle+0x42
//   end: complete
// Functions come from the binary's symbols (at pc - 1 for a return address),
// "?" when there is none; flags follow in brackets ([signal], [guess]).
std::string dump_walk(const WalkResult& walk, const ProcessMaps& maps);

struct CaptureRequest {
  std::string recording;       // a .swprof recording of the program
  std::string case_dir;        // the folder to write (created if missing)
  std::string leaf;            // the first user sample whose pc is in this function is kept
  std::string binary = "prog";  // the program's path in maps.txt, relative to case_dir
  size_t stack_bytes = std::numeric_limits<size_t>::max();  // keep at most this many stack bytes
};

// Writes maps.txt, regs.txt, stack_start.txt and stack.bin of the chosen
// sample. Mappings of the recorded program are written as `binary`; other
// files are left out (the case must not depend on the host), bracketed
// names ([vdso], [stack]) are kept without a binary. Throws
// std::runtime_error when no sample fits.
void capture_offline_case(const CaptureRequest& request);

}  // namespace swprof::testing
