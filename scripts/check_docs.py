#!/usr/bin/env python3
"""Checks that the links between the project's Markdown files resolve.

Every relative link `[text](path)` or `[text](path#anchor)` in README.md,
docs/*.md, bench/RESULTS.md and each folder's README.md must name a file or
folder that exists, and an anchor must be a heading of the Markdown file it
names (as GitHub makes anchors: lower case, punctuation dropped, spaces as
hyphens, a repeated heading numbered -1, -2, ...). Links to the web are not
followed. Code blocks and code spans are not read.

Usage: scripts/check_docs.py [SOURCE_ROOT]
Prints one line per broken link (file:line: link: why) and exits 1 when
there is any.
"""
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def markdown_files(root: pathlib.Path) -> list:
    files = [root / "README.md", root / "bench" / "RESULTS.md"]
    files += sorted((root / "docs").glob("*.md"))
    files += sorted(p for p in root.glob("*/README.md") if p.parent.name not in ("build", "docs"))
    return [f for f in files if f.is_file()]


def prose_lines(text: str):
    """(line number, line) of the lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading: str) -> str:
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: pathlib.Path) -> set:
    seen = {}
    out = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def check(root: pathlib.Path) -> list:
    problems = []
    cache = {}
    for md in markdown_files(root):
        for number, line in prose_lines(md.read_text(encoding="utf-8")):
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"^[a-z]+:", target):  # https:, mailto:
                    continue
                path_part, _, anchor = target.partition("#")
                dest = (md.parent / path_part).resolve() if path_part else md
                where = f"{md.relative_to(root)}:{number}: {target}"
                if not dest.exists():
                    problems.append(f"{where}: no such file")
                    continue
                if not anchor:
                    continue
                if dest.suffix != ".md" or not dest.is_file():
                    problems.append(f"{where}: an anchor into a file that is not Markdown")
                    continue
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if anchor not in cache[dest]:
                    problems.append(f"{where}: no heading '#{anchor}' in {dest.name}")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1]).resolve()
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
