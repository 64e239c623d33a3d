#!/usr/bin/env python3
"""What the test suite must leave as it found it on the machine it runs on.

The tests run as root: a test that renames a file over /dev/null or leaves
its scratch folder in /tmp damages the machine for everyone. ctest runs
`snapshot` before the first test (FIXTURES_SETUP) and `check` after the last
(FIXTURES_CLEANUP): /dev/null and /dev/full must keep their type, device
numbers and mode, /tmp must stay a directory with mode 1777, no
/tmp/swprof-test-TAG-* folder (tests/support/temp_dir.h, TAG names this build)
may be left behind, and the build-id cache of whoever runs the tests
($XDG_CACHE_HOME/swprof, ~/.cache/swprof) must be left as it was: every
test points XDG_CACHE_HOME into a folder of its own (tests/catch_main.cpp).

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


def user_caches():
    """The build-id caches swprof would use for whoever runs the tests."""
    roots = []
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        roots.append(os.path.join(xdg, "swprof"))
    home = os.environ.get("HOME", "")
    if home.startswith("/"):
        roots.append(os.path.join(home, ".cache", "swprof"))
    return sorted(set(roots))


def cache_contents(root):
    """Every name under `root` (links not followed) with its kind, size and mtime."""
    if not os.path.lexists(root):
        return "absent"
    out = {".": describe(root)}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            out[os.path.relpath(path, root)] = [stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns]
    return out


def cache_changes(before, now):
    if before == now:
        return ""
    if "absent" in (before, now):
        return "was absent" if before == "absent" else "is gone"
    changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    return f"{len(changed)} names changed, e.g. {', '.join(changed[:3])}"


def left_behind(tag):
    prefix = f"swprof-test-{tag}-"
    return sorted("/tmp/" + name for name in os.listdir("/tmp") if name.startswith(prefix))


def snapshot(state_file, tag):
    state = {path: describe(path) for path in WATCHED}
    state["left_behind"] = left_behind(tag)
    state["caches"] = {root: cache_contents(root) for root in user_caches()}
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
    for root, was in before.get("caches", {}).items():
        change = cache_changes(was, cache_contents(root))
        if change:
            problems.append(f"the build-id cache {root} changed during the tests ({change}): a test ran swprof "
                            "without XDG_CACHE_HOME in its own folder (or swprof was run by hand meanwhile)")
    for p in problems:
        print("system state: " + p)
    if not problems:
        print("system state: /dev/null, /dev/full and /tmp unchanged, no test folder left in /tmp, "
              "the user's build-id cache untouched")
    return 1 if problems else 0


def main(argv):
    if len(argv) != 4 or argv[1] not in ("snapshot", "check"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    return (snapshot if argv[1] == "snapshot" else check)(argv[2], argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
