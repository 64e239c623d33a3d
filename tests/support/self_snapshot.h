#pragma once
// Offline snapshot of this very process, for unwinder tests on real code:
// the registers at a point inside capture_self(), a copy of the stack above
// that point, and the address space from /proc/self/maps. Unwinding the
// snapshot must find capture_self's callers, which the test knows.

#include <memory>
#include <string>
#include <vector>

#include "unwind/address_space.h"
#include "unwind/frame.h"
#include "unwind/memory.h"
#include "unwind/registers.h"

namespace swprof::testing {

struct SelfSnapshot {
  Registers regs;  // rip, rsp, rbp, rbx, r12..r15 as they were inside capture_self()
  std::vector<uint8_t> stack;
  std::shared_ptr<BinaryCache> binaries;
  std::shared_ptr<ProcessMaps> maps;

  SampleStackMemory memory() const { return SampleStackMemory(regs.sp(), Bytes(stack.data(), stack.size())); }
};

// Captures at most max_stack bytes of stack (less if the stack ends sooner).
__attribute__((noinline)) SelfSnapshot capture_self(size_t max_stack = 65536);

// The maps of this process, from /proc/self/maps (executable mappings).
std::shared_ptr<ProcessMaps> self_maps(BinaryCache& binaries);

// Maps with one executable mapping of `binary`'s file page 0x1000 at
// load + 0x1000 (load bias `load`), as the CFI fixture library is laid out.
ProcessMaps fixture_maps(std::shared_ptr<const ElfBinary> binary, uint64_t load);

// Function name of each frame ("?" when unknown), for assertions.
std::vector<std::string> frame_names(const std::vector<Frame>& frames, const ProcessMaps& maps);
std::string function_name_at(uint64_t pc, bool exact, const ProcessMaps& maps);

}  // namespace swprof::testing
