#pragma once
// Whether the frames a walk took from the stack bytes the recorder read past
// a sample's copy (SampleView::stack_beyond) may be shown as the sample's.
//
// Those bytes were read from the live thread a little after the sample
// (sampler/stack_extender.h). They are the sample's where the thread has not
// returned past them since, and nothing in the bytes says so. What can be
// said comes from the copy's outermost frames: the recorder read the copy
// again (SampleView::beyond_changed marks the words that read differently),
// and the walk knows where those frames keep their return addresses (a
// caller's frame begins 8 bytes above the return address into it, at the
// callee's CFA):
//
//   sp                                                copy_end
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
// frames are.
//
// A frame larger than what is left of the copy above its callees (x264's
// slice encoder: 31 KB) keeps working while it lives, calling one function
// after another: the return address into it changes within a millisecond
// although the frame and its callers stay. For a read that came within
// kPromptReadUs of the sample, the frames past the copy are also shown when
// the copy's last kQuietTailBytes read the same, but for the return address
// into the outermost frame and what lies below it, and the return address past
// the copy follows a call that may have called the function holding the
// copy's outermost frame: a direct call of it, or one through a pointer
// (libavcodec calls its decoders so); a direct call of another function
// shows that the caller had moved on.
//
// Otherwise the walk ends at the copy, as without the bytes. Measured
// against the truth (a 65528-byte copy cut at 32 KiB, the rest read as the
// recorder reads it; bench/RESULTS.md): no walk with a wrong frame on
// clang++ -O2 or x264, where keeping the bytes whenever the copy's last KiB
// read the same showed wrong frames in 8 % of x264's kept walks whose reads
// came 20 to 100 ms late. The prompt test alone would have shown some of
// those too (main calling the encoder from another loop by then): hence the
// bound on the delay.

#include <cstdint>

#include "common/byte_reader.h"
#include "unwind/address_space.h"
#include "unwind/frame.h"

namespace swprof {

inline constexpr int kCheckedReturns = 8;
inline constexpr uint64_t kCheckedSpan = 4096;
inline constexpr uint32_t kPromptReadUs = 5000;
inline constexpr uint64_t kQuietTailBytes = 1024;

// What the recorder saw of the copy when it read past it.
struct CopyEndReread {
  uint64_t copy_end = 0;  // sp + the kernel's copy
  Bytes changed;          // SampleView::beyond_changed
  uint32_t delay_us = 0;  // SampleView::beyond_delay_us

  // Whether the 8 bytes at `addr` (8 bytes aligned to copy_end) were read
  // again, the same as in the copy; false outside the map.
  bool same_at(uint64_t addr) const;
  // Whether every word from `addr` to the copy's end read the same.
  bool same_from(uint64_t addr) const;
};

// Whether a frame of `walk` lies past `copy_end` (was read from past it).
bool frames_past(const WalkResult& walk, uint64_t copy_end);

// Whether `walk`'s frames past the copy may be shown (see above); `maps`
// holds the code the return addresses point into. True when no frame is
// past the copy.
bool frames_past_copy_hold(const WalkResult& walk, const CopyEndReread& reread, const ProcessMaps& maps);

// Whether the instruction before `caller.pc` (a return address) may have
// called the function holding `callee`: a direct call of it (its start as
// binary/function_bounds.h finds it), or a call through a register or memory.
bool may_call(const ProcessMaps& maps, const Frame& caller, const Frame& callee);

}  // namespace swprof
