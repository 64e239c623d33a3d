#!/usr/bin/env python3
"""What the test suite must leave as it found it on the machine it runs on.

The tests run as root: a test that renames a file over /dev/null or leaves
its scratch folder in /tmp damages the machine for everyone. ctest runs
`snapshot` before the first test (FIXTURES_SETUP) and `check` after the last
(FIXTURES_CLEANUP): /dev/null and /dev/full must keep their type, device
numbers and mode, /tmp must stay a directory with mode 1777, and no
/tmp/swprof-test-TAG-* folder (tests/support/temp_dir.h, TAG names this build)
may be left behind.

usage: system_state.py snapshot|check STATE_FILE TAG
"""

import json
import os
import stat
import sys

WATCHED = ["/dev/null", "/dev/full", "/tmp"]


def describe(path):
    try:
        st = os.lstat(path)
    except OSError as e:
        return {"error": e.strerror}
    kind = {stat.S_IFCHR: "character device", stat.S_IFDIR: "directory", stat.S_IFREG: "regular file",
            stat.S_IFLNK: "symbolic link", stat.S_IFIFO: "FIFO"}.get(stat.S_IFMT(st.st_mode), "other")
    out = {"kind": kind, "mode": oct(stat.S_IMODE(st.st_mode))}
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        out["device"] = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    return out


def left_behind(tag):
    prefix = f"swprof-test-{tag}-"
    return sorted("/tmp/" + name for name in os.listdir("/tmp") if name.startswith(prefix))


def snapshot(state_file, tag):
    state = {path: describe(path) for path in WATCHED}
    state["left_behind"] = left_behind(tag)
    with open(state_file, "w") as f:
        json.dump(state, f, indent=1)
    return 0


def check(state_file, tag):
    with open(state_file) as f:
        before = json.load(f)
    problems = []
    for path in WATCHED:
        now = describe(path)
        if now != before.get(path):
            problems.append(f"{path} changed during the tests: was {before.get(path)}, now {now}")
    tmp = describe("/tmp")
    if tmp.get("kind") != "directory" or tmp.get("mode") != "0o1777":
        problems.append(f"/tmp is not a directory with mode 1777: {tmp}")
    for path in left_behind(tag):
        if path not in before["left_behind"]:
            problems.append(f"{path} was left behind by a test (TempDir not removed)")
    for p in problems:
        print("system state: " + p)
    if not problems:
        print("system state: /dev/null, /dev/full and /tmp unchanged, no test folder left in /tmp")
    return 1 if problems else 0


def main(argv):
    if len(argv) != 4 or argv[1] not in ("snapshot", "check"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    return (snapshot if argv[1] == "snapshot" else check)(argv[2], argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
