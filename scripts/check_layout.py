#!/usr/bin/env python3
"""Checks that the source folders keep to the data flow.

The folders are the stages of the pipeline (see docs/development.md, "Source layout"):
- a folder may include only the folders listed for it below; an include
  against the flow (say unwind/ including a report header) is an error;
- each folder's README.md says what it may include, and must say what this
  table says;
- the library never prints: only cli/ writes to stdout or stderr.

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
    "tui": {"common", "recording", "binary", "unwind", "symbolize", "profile", "output", "compare"},
    "cli": {"common", "recording", "sampler", "binary", "unwind", "symbolize", "profile", "output", "compare", "tui"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# Files whose job is writing the output the user asked for, which may be
# standard output (`-o -` or no -o).
OUTPUT_DESTINATIONS = {"output/output_file.cpp"}
# Writing to the terminal: printf-family calls on stdout/stderr, iostreams.
PRINTS = re.compile(r'\b(std::cout|std::cerr|std::clog|printf\s*\(|puts\s*\(|perror\s*\(|'
                    r'fprintf\s*\(\s*std(out|err)|fputs\s*\([^;]*\bstd(out|err)\s*\)|'
                    r'write\s*\(\s*(1|2|STDOUT_FILENO|STDERR_FILENO)\s*,)')


def check_readme(root: pathlib.Path, folder: str, allowed: set) -> list[str]:
    readme = root / folder / "README.md"
    if not readme.is_file():
        return [f"{folder}/README.md: missing (say what the folder holds and what it may include)"]
    lines = [l for l in readme.read_text().splitlines() if l.startswith("May include:")]
    if len(lines) != 1:
        return [f"{folder}/README.md: needs one line 'May include: ...'"]
    said = lines[0].removeprefix("May include:").strip()
    said_set = set() if said == "nothing outside itself" else {x.strip() for x in said.split(",")}
    if said_set != allowed:
        expected = ", ".join(f for f in ALLOWED if f in allowed) or "nothing outside itself"
        return [f"{folder}/README.md: says 'May include: {said}', scripts/check_layout.py says '{expected}'"]
    return []


def check_no_printing(path: pathlib.Path, where: pathlib.Path, text: str) -> list[str]:
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        if PRINTS.search(code):
            problems.append(f"{where}:{number}: prints ({code.strip()}): the library returns values or calls "
                            "a callback; cli/ prints")
    return problems


def check(root: pathlib.Path) -> list[str]:
    problems = []
    for folder, allowed in ALLOWED.items():
        directory = root / folder
        if not directory.is_dir():
            problems.append(f"{folder}/: missing folder")
            continue
        problems += check_readme(root, folder, allowed)
        for path in sorted(directory.rglob("*")):
            if path.suffix not in (".h", ".cpp"):
                continue
            text = path.read_text(errors="replace")
            if folder != "cli" and str(path.relative_to(root)) not in OUTPUT_DESTINATIONS:
                problems += check_no_printing(path, path.relative_to(root), text)
            for number, line in enumerate(text.splitlines(), 1):
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
