#!/usr/bin/env python3
"""Checks that every include between the source folders follows the data flow.

The folders are the stages of the pipeline (see README.md, "Source layout"):
a folder may include only the folders listed for it below. An include
against the flow (say unwind/ including a report header) is an error.

Usage: scripts/check_layout.py [SOURCE_ROOT]
Prints one line per wrong include and exits 1 when there is any.
"""
import pathlib
import re
import sys

# Folder -> the folders its files may include (besides itself).
ALLOWED = {
    "common": set(),
    "recording": {"common"},
    "sampler": {"common", "recording"},
    "binary": {"common", "recording"},
    "unwind": {"common", "recording", "binary"},
    "symbolize": {"common", "recording", "binary", "unwind"},
    "profile": {"common", "recording", "binary", "unwind", "symbolize"},
    "output": {"common", "recording", "binary", "unwind", "symbolize", "profile"},
    "compare": {"common", "recording", "binary", "unwind", "symbolize", "profile", "output"},
    "cli": {"common", "recording", "sampler", "binary", "unwind", "symbolize", "profile", "output", "compare"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check(root: pathlib.Path) -> list[str]:
    problems = []
    for folder, allowed in ALLOWED.items():
        directory = root / folder
        if not directory.is_dir():
            problems.append(f"{folder}/: missing folder")
            continue
        for path in sorted(directory.rglob("*")):
            if path.suffix not in (".h", ".cpp"):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1)
                top = target.split("/", 1)[0] if "/" in target else folder
                if top == folder or top in allowed:
                    continue
                where = path.relative_to(root)
                if top in ALLOWED:
                    problems.append(f"{where}:{number}: includes {target}: {folder}/ may include only "
                                    f"{', '.join(sorted(allowed)) or 'nothing outside itself'}")
                elif not (root / target).exists() and not (path.parent / target).exists():
                    problems.append(f"{where}:{number}: includes {target}, which is not a project file")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = check(root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
