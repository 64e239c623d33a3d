#!/usr/bin/env python3
"""Writes base.json and new.json, the inputs of the `swprof diff` golden tests:
two JSON profiles (docs/json-format.md) of an imaginary benchmark with known
counts, made by hand so every line of the expected outputs can be checked.

    cd tests/golden/diff && python3 make_inputs.py

BASE: 2000 samples. NEW: 2600 samples, where
  - hot_loop does twice the work (self 25% -> 38.5%; its caller compute's
    total 35% -> 48.5%);
  - new_feature appears (0 -> 2.3%) and legacy_path disappears (2.7% -> 0);
  - parse_input's share falls (35% -> 23.2%);
  - write_output's self and operator| change, but not significantly at z >= 4;
  - noise grows by half but stays under 1% of the samples;
  - checksum is inlined into write_output in BASE and not in NEW (one function,
    one context id); rec recurses three deep in BASE and two deep in NEW;
  - the kernel, libc and a C++ name with '<>' keep their shares.
"""
import json

FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211
MASK = (1 << 64) - 1


def fnv1a64(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def context_hash(module, name):
    return fnv1a64(module.encode() + b"\0" + name.encode())


APP = "bench"
FRAMES = {  # key: (name, module, file, line, flags)
    "main": ("main", APP, "/src/bench.c", 90, []),
    "parse": ("parse_input", APP, "/src/bench.c", 20, []),
    "push": ("std::vector<int, std::allocator<int> >::push_back(int const&)", APP, "/usr/include/c++/12/bits/stl_vector.h", 1276, ["inline"]),
    "compute": ("compute", APP, "/src/bench.c", 50, []),
    "hot": ("hot_loop", APP, "/src/bench.c", 30, []),
    "steady": ("steady_loop", APP, "/src/bench.c", 40, []),
    "write": ("write_output", APP, "/src/bench.c", 60, []),
    "checksum_inl": ("checksum", APP, "/src/bench.c", 70, ["inline"]),
    "checksum": ("checksum", APP, "/src/bench.c", 70, []),
    "sys_write": ("__x64_sys_write", "[kernel]", None, None, ["kernel"]),
    "rec": ("rec", APP, "/src/bench.c", 80, []),
    "or": ("operator|(Flags, Flags)", APP, "/src/flags.h", 12, []),
    "legacy": ("legacy_path", APP, "/src/bench.c", 100, []),
    "new_feature": ("new_feature", APP, "/src/bench.c", 110, []),
    "noise": ("noise", APP, "/src/bench.c", 120, []),
    "memcpy": ("__memmove_avx_unaligned_erms", "libc.so.6", None, None, []),
}

BASE = [
    ("main;parse", 700), ("main;parse;push", 100), ("main;compute;hot", 500), ("main;compute;steady", 200),
    ("main;write", 150), ("main;write;checksum_inl", 60), ("main;write;sys_write", 90), ("main;rec;rec;rec", 80),
    ("main;or", 40), ("main;legacy", 54), ("main;noise", 6), ("main;memcpy", 20),
]
NEW = [
    ("main;parse", 604), ("main;parse;push", 130), ("main;compute;hot", 1000), ("main;compute;steady", 260),
    ("main;write", 130), ("main;write;checksum", 78), ("main;write;sys_write", 117), ("main;rec;rec", 104),
    ("main;or", 80), ("main;new_feature", 60), ("main;noise", 11), ("main;memcpy", 26),
]
PERIOD_NS = 500_000  # 2000 Hz


def profile(source, command, stacks, start_ns):
    keys = []
    for stack, _ in stacks:
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
    # The tree: children by path, counts from the stacks.
    tree = {"": {"self": 0, "total": 0, "children": {}}}
    for stack, count in stacks:
        path = ""
        tree[""]["total"] += count
        for k in stack.split(";"):
            parent = path
            path = path + ";" + k if path else k
            if path not in tree:
                tree[path] = {"self": 0, "total": 0, "children": {}}
                tree[parent]["children"][path] = k
            tree[path]["total"] += count
        tree[path]["self"] += count
    nodes = []

    def visit(path, parent_index, parent_id):
        node = tree[path]
        index = len(nodes)
        if path:
            name, module = FRAMES[path.split(";")[-1]][:2]
            cid = (3 * parent_id + context_hash(module, name)) & MASK
        else:
            cid = 0
        nodes.append({"id": "%016x" % cid, "parent": parent_index,
                      "frame": keys.index(path.split(";")[-1]) if path else -1,
                      "self": node["self"], "total": node["total"],
                      "self_weight": node["self"] * PERIOD_NS, "total_weight": node["total"] * PERIOD_NS})
        for child in sorted(node["children"], key=lambda p: FRAMES[p.split(";")[-1]][0]):
            visit(child, index, cid)

    visit("", -1, 0)
    samples = tree[""]["total"]
    doc = {
        "format": "swprof-profile",
        "version": 1,
        "metadata": {"source": source, "mode": "record", "command": command, "target_pid": 1000,
                     "event": "cpu-clock", "frequency": 2000, "period": 0, "host": "ci", "kernel_release": "6.1.0",
                     "start_unix_ns": start_ns, "duration_seconds": samples / 2000.0, "samples_read": samples,
                     "samples": samples, "lost": 0, "weight_unit": "nanoseconds", "reversed": False,
                     "swprof_version": "0.1.0"},
        "unwind": {"unwinder": "chain", "samples": samples, "complete": samples, "frames": 4 * samples,
                   "guessed_frames": 0, "frames_by_stepper": {"cfi": 4 * samples}, "walk_ends": {"complete": samples}},
        "threads": [{"tid": 1000, "pid": 1000, "comm": "bench", "samples": samples}],
        "warnings": [],
        "frames": frames,
        "nodes": nodes,
        "functions": [],  # derived from nodes; readers ignore it
    }
    return doc


def write(path, doc):
    with open(path, "w") as out:
        json.dump(doc, out, indent=1)
        out.write("\n")


write("base.json", profile("base.swprof", ["./bench", "--size", "100"], BASE, 1700000000000000000))
write("new.json", profile("new.swprof", ["./bench", "--size", "100"], NEW, 1700000100000000000))
