#pragma once
// Whether the frames a walk took from the stack bytes the recorder read past
// a sample's copy (SampleView::stack_beyond) may be shown as the sample's.
//
// Those bytes were read from the live thread a little after the sample
// (sampler/stack_extender.h). They are the sample's where the thread has not
// returned past them since, and nothing in the bytes says so. What can be
// said comes from the copy's outermost frames: the recorder read the copy's
// last bytes again (the window, SampleView::beyond_changed marks the words
// that read differently), and the walk knows where those frames keep their
// return addresses (a caller's frame begins 8 bytes above the return
// address into it, at the callee's CFA):
//
//   sp        copy_end - window                   copy_end
//   |<----------- kernel's copy --------------------->|<-- read past it -->
//                 | ret  ...   ret  ...    ret       |
//                   ^ inner    ^            ^ outermost return address in the copy
//                   |<-- at most 8, within 4 KiB --->|
//
// The frames past the copy are shown when the outermost return address in
// the copy and those after it inward (up to kCheckedReturns of them, within
// kCheckedSpan bytes below it) read the same: those frames were still at the
// same call sites when the recorder read, so their callers, whose frames are
// the bytes past the copy, had not returned. A thread that had returned past
// the copy's end and come back down would have had to rebuild those frames
// at the same addresses with the same calls; what is not compared (spilled
// locals, which callees change through references) does not say where the
// frames are. Otherwise the walk ends at the copy, as without the bytes.
//
// Measured against the truth (a 65528-byte copy cut at 32 KiB, the rest read
// as the recorder reads it; bench/RESULTS.md): no walk with a wrong frame on
// clang++ -O2 and x264, where keeping the bytes only when the copy's last KiB
// read the same showed wrong frames in up to 8 % of x264's kept samples and
// dropped 3 to 5 % more of the right ones.

#include <cstdint>

#include "common/byte_reader.h"
#include "unwind/frame.h"

namespace swprof {

inline constexpr int kCheckedReturns = 8;
inline constexpr uint64_t kCheckedSpan = 4096;

// What the recorder saw of the copy's end when it read past it.
struct CopyEndReread {
  uint64_t copy_end = 0;  // sp + the kernel's copy
  Bytes changed;          // SampleView::beyond_changed

  // Whether the 8 bytes at `addr` (8 bytes aligned to copy_end) were read
  // again, the same as in the copy; false outside the window.
  bool same_at(uint64_t addr) const;
};

// Whether a frame of `walk` lies past `copy_end` (was read from past it).
bool frames_past(const WalkResult& walk, uint64_t copy_end);

// Whether `walk`'s frames past the copy may be shown (see above). True when
// no frame is past the copy; false when the outermost return address in the
// copy is outside the window or there is none.
bool frames_past_copy_hold(const WalkResult& walk, const CopyEndReread& reread);

}  // namespace swprof
