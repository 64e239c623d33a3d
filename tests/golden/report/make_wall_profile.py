#!/usr/bin/env python3
"""Writes wall-profile.json, the input of the wall-time golden tests: a JSON
profile (docs/json-format.md, weight_kind "wall") of the known_waits pattern,
made by hand so every line of the expected outputs can be checked.

    cd tests/golden/report && python3 make_wall_profile.py

One thread, 1 s of wall time: spin() runs 300 ms on the CPU (300 timer
samples of 1 ms), nap() sleeps 100 x 4 ms in nanosleep, wait_pipe() blocks
100 times in read() on a pipe for 295 ms in all, and spin() is preempted 5
times for 5 ms in all ([preempted] under schedule). On-CPU 30 %, off-CPU 70 %.
"""
import json

FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211
MASK = (1 << 64) - 1


def context_hash(module, name):
    h = FNV_OFFSET
    for b in module.encode() + b"\0" + name.encode():
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


APP = "known_waits"
FRAMES = {  # key: (name, module, file, line, flags)
    "main": ("main", APP, "tests/programs/known_waits.c", 60, []),
    "nap": ("nap", APP, "tests/programs/known_waits.c", 20, []),
    "wait_pipe": ("wait_pipe", APP, "tests/programs/known_waits.c", 30, []),
    "spin": ("spin", APP, "tests/programs/known_waits.c", 40, []),
    "clock_nanosleep": ("clock_nanosleep", "libc.so.6", None, None, []),
    "read": ("read", "libc.so.6", None, None, []),
    "entry": ("entry_SYSCALL_64_after_hwframe", "[kernel]", None, None, ["kernel"]),
    "do_syscall_64": ("do_syscall_64", "[kernel]", None, None, ["kernel"]),
    "sys_nanosleep": ("__x64_sys_clock_nanosleep", "[kernel]", None, None, ["kernel"]),
    "do_nanosleep": ("do_nanosleep", "[kernel]", None, None, ["kernel"]),
    "sys_read": ("ksys_read", "[kernel]", None, None, ["kernel"]),
    "pipe_read": ("anon_pipe_read", "[kernel]", None, None, ["kernel"]),
    "schedule": ("schedule", "[kernel]", None, None, ["kernel"]),
    "preempted": ("[preempted]", "[kernel]", None, None, ["kernel"]),
}

MS = 1_000_000
STACKS = [  # (stack, samples, weight ns, of it off-CPU ns)
    ("main;spin", 300, 300 * MS, 0),
    ("main;nap;clock_nanosleep;entry;do_syscall_64;sys_nanosleep;do_nanosleep;schedule", 100, 400 * MS, 400 * MS),
    ("main;wait_pipe;read;entry;do_syscall_64;sys_read;pipe_read;schedule", 100, 295 * MS, 295 * MS),
    ("main;spin;schedule;preempted", 5, 5 * MS, 5 * MS),
]


def profile():
    keys = []
    for stack, *_ in STACKS:
        for k in stack.split(";"):
            if k not in keys:
                keys.append(k)
    frames = []
    for k in keys:
        name, module, file, line, flags = FRAMES[k]
        f = {"name": name, "module": module}
        if file:
            f["file"] = file
            f["line"] = line
        if flags:
            f["flags"] = flags
        frames.append(f)
    fields = ("self", "total", "self_weight", "total_weight", "self_off_cpu_weight", "total_off_cpu_weight")
    tree = {"": dict.fromkeys(fields, 0) | {"children": {}}}
    for stack, count, weight, off in STACKS:
        path = ""
        for name, value in (("total", count), ("total_weight", weight), ("total_off_cpu_weight", off)):
            tree[""][name] += value
        for k in stack.split(";"):
            parent = path
            path = path + ";" + k if path else k
            if path not in tree:
                tree[path] = dict.fromkeys(fields, 0) | {"children": {}}
                tree[parent]["children"][path] = k
            for name, value in (("total", count), ("total_weight", weight), ("total_off_cpu_weight", off)):
                tree[path][name] += value
        for name, value in (("self", count), ("self_weight", weight), ("self_off_cpu_weight", off)):
            tree[path][name] += value
    nodes = []

    def visit(path, parent_index, parent_id):
        node = tree[path]
        index = len(nodes)
        if path:
            name, module = FRAMES[path.split(";")[-1]][:2]
            cid = (3 * parent_id + context_hash(module, name)) & MASK
        else:
            cid = 0
        entry = {"id": "%016x" % cid, "parent": parent_index, "frame": keys.index(path.split(";")[-1]) if path else -1}
        entry.update({name: node[name] for name in fields})
        nodes.append(entry)
        for child in sorted(node["children"], key=lambda p: FRAMES[p.split(";")[-1]][0]):
            visit(child, index, cid)

    visit("", -1, 0)
    samples = tree[""]["total"]
    return {
        "format": "swprof-profile",
        "version": 1,
        "metadata": {"source": "known_waits.swprof", "mode": "record", "command": ["known_waits", "1"],
                     "target_pid": 1000, "event": "cpu-clock", "frequency": 1000, "period": 0, "host": "host",
                     "kernel_release": "6.1.0", "start_unix_ns": 1795238612000000000, "duration_seconds": 1.0,
                     "samples_read": samples, "samples": samples, "lost": 0, "weight_unit": "nanoseconds",
                     "weight_kind": "wall", "reversed": False, "swprof_version": "0.1.0"},
        "unwind": {"unwinder": "chain", "samples": samples, "complete": samples, "frames": 6 * samples,
                   "guessed_frames": 0, "frames_by_stepper": {"cfi": 6 * samples}, "walk_ends": {"complete": samples}},
        "threads": [{"tid": 1000, "pid": 1000, "comm": "known_waits", "samples": samples}],
        "warnings": [],
        "frames": frames,
        "nodes": nodes,
        "functions": [],  # derived from nodes; readers ignore it
    }


with open("wall-profile.json", "w") as out:
    json.dump(profile(), out, indent=1)
    out.write("\n")
