#!/usr/bin/env python3
"""scripts/check_layout.py finds what it is for: on a copy of the real README
table, a tree that follows the flow passes, and each kind of mistake fails
with a line naming the file."""
import pathlib
import subprocess
import sys
import tempfile

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_layout.py"
sys.dont_write_bytecode = True  # nothing written beside the script
sys.path.insert(0, str(SCRIPT.parent))
import check_layout  # noqa: E402


def make_tree(root: pathlib.Path) -> None:
    for folder, allowed in check_layout.ALLOWED.items():
        (root / folder).mkdir()
        names = ", ".join(f for f in check_layout.ALLOWED if f in allowed) or "nothing outside itself"
        (root / folder / "README.md").write_text(f"# {folder}/\n\nMay include: {names}\n")
        (root / folder / "a.h").write_text("#pragma once\n")
    (root / "unwind" / "b.cpp").write_text('#include "unwind/a.h"\n#include "binary/a.h"\n#include <cstdio>\n')


def run(root: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True)


def expect(cond: bool, what: str, result: subprocess.CompletedProcess) -> None:
    if not cond:
        print(f"FAILED: {what}\nexit {result.returncode}\n{result.stdout}{result.stderr}")
        sys.exit(1)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="swprof-check-layout-") as tmp:
        root = pathlib.Path(tmp)
        make_tree(root)
        ok = run(root)
        expect(ok.returncode == 0 and ok.stdout == "", "a tree that follows the flow passes", ok)

        bad = root / "unwind" / "c.cpp"
        bad.write_text('#include "profile/a.h"\n')
        r = run(root)
        expect(r.returncode == 1 and "unwind/c.cpp:1: includes profile/a.h" in r.stdout,
               "an include against the flow fails", r)
        bad.unlink()

        printing = root / "profile" / "p.cpp"
        printing.write_text('void f() {\n  fprintf(stderr, "x");  \n}\n// std::cout in a comment is fine\n')
        r = run(root)
        expect(r.returncode == 1 and "profile/p.cpp:2: prints" in r.stdout and ":4:" not in r.stdout,
               "a library file that prints fails", r)
        printing.unlink()
        (root / "cli" / "p.cpp").write_text('void f() { fprintf(stderr, "x"); }\n')
        r = run(root)
        expect(r.returncode == 0, "cli/ may print", r)

        (root / "sampler" / "README.md").write_text("# sampler/\n\nMay include: common\n")
        r = run(root)
        expect(r.returncode == 1 and "sampler/README.md" in r.stdout, "a README that disagrees fails", r)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
