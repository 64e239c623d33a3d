#!/usr/bin/env python3
"""Every Catch2 test case name reaches ctest as one test.

catch_discover_tests hands the names to CMake as a list, where ';' separates
items: a name holding one becomes several tests that match nothing, and each
"passes" without running an assertion. This check fails on such a name.
Usage: check_test_names.py SOURCE_DIR
"""
import pathlib
import re
import sys

NAME = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"', re.S)


def bad_names(root: pathlib.Path):
    for path in sorted((root / "tests").rglob("*.cpp")):
        for match in NAME.finditer(path.read_text(errors="replace")):
            if ";" in match.group(1):
                line = path.read_text(errors="replace").count("\n", 0, match.start()) + 1
                yield f"{path.relative_to(root)}:{line}: a test name holds ';' (ctest would never run it): {match.group(1)}"


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems = list(bad_names(root))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
