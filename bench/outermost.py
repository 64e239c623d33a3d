#!/usr/bin/env python3
"""Stack completeness from `swprof script` or `perf script` text on stdin.

A sample's stack is counted complete when its outermost user frame is a
process or thread entry (_start, clone/clone3, start_thread; Go's
runtime.goexit, runtime.mstart, runtime.rt0_go) or in the
dynamic loader (whose entry code has no name when ld.so is stripped: the
stacks of everything before main), or when one of its two outermost frames
is __libc_start_main / __libc_start_call_main (a stripped executable's
_start has no name). The same rule reads both tools' output, so the figures
compare. Prints "complete/samples = percent", then with DETAIL=1 the most
common outermost frames of the incomplete ones.
"""
import collections
import os
import re
import sys

ENTRY = re.compile(r"(^|\W)(_start|_dl_start_user|__clone3?|clone3?|__GI___clone3?|start_thread"
                   r"|runtime\.goexit|runtime\.mstart|runtime\.rt0_go)\W")
LIBC_START = re.compile(r"__libc_start_(call_)?main")
LOADER = re.compile(r"\(\S*ld-linux[^)]*\)")
KERNEL = re.compile(r"\(\[kernel")


def stacks(lines):
    frames = []
    for line in lines:
        if line[:1] in (" ", "\t") and line.strip():
            frames.append(line.strip())
            continue
        if frames:
            yield frames
        frames = []
    if frames:
        yield frames


def main():
    samples = complete = 0
    incomplete = collections.Counter()
    for frames in stacks(sys.stdin):
        user = [f for f in frames if not KERNEL.search(f)]
        if not user:
            continue
        samples += 1
        outer = user[-1] + " "
        if ENTRY.search(outer) or LOADER.search(outer) or any(LIBC_START.search(f) for f in user[-2:]):
            complete += 1
        else:
            incomplete[re.sub(r"^[0-9a-f]+ ", "", user[-1])[:80]] += 1
    print(f"{complete}/{samples} = {100.0 * complete / max(samples, 1):.1f}%")
    if os.environ.get("DETAIL"):
        for frame, n in incomplete.most_common(5):
            print(f"    {n:6d}  {frame}")


if __name__ == "__main__":
    main()
