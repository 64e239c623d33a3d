#!/usr/bin/env python3
"""scripts/check_docs.py finds what it is for: in a small tree of Markdown
files, links to files and headings that exist pass, and a link to a missing
file or a missing heading fails with a line naming the file and line."""
import pathlib
import subprocess
import sys
import tempfile

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_docs.py"


def run(root: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-B", str(SCRIPT), str(root)], capture_output=True, text=True)


def expect(cond: bool, what: str, result: subprocess.CompletedProcess) -> None:
    if not cond:
        print(f"FAILED: {what}\nexit {result.returncode}\n{result.stdout}{result.stderr}")
        sys.exit(1)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="swprof-check-docs-") as tmp:
        root = pathlib.Path(tmp)
        (root / "docs").mkdir()
        (root / "bench").mkdir()
        (root / "README.md").write_text(
            "# x\n\nSee [record](docs/record.md#swprof-attach-pid-options), [b](bench/RESULTS.md),\n"
            "[the web](https://example.org/#nothing) and [the index](docs/).\n\n"
            "```sh\n[not a link](docs/missing.md)\n```\n\nA span: `[no](missing.md)`.\n")
        (root / "docs" / "record.md").write_text(
            "# Recording\n\n## `swprof attach PID [options]`\n\n## Options\n\n## Options\n\n"
            "Back to [the top](#recording), [the second options](#options-1), [z](#why-z--4).\n\n"
            "## Why z ≥ 4\n")
        (root / "bench" / "RESULTS.md").write_text("# Results\n\nSee [the manual](../docs/record.md).\n")
        ok = run(root)
        expect(ok.returncode == 0 and ok.stdout == "", "links to files and headings that exist pass", ok)

        (root / "docs" / "diff.md").write_text("# Diff\n\nText.\nSee [gone](gone.md) and [record](record.md#no-such-heading).\n")
        r = run(root)
        expect(r.returncode == 1 and "docs/diff.md:4: gone.md: no such file" in r.stdout
               and "docs/diff.md:4: record.md#no-such-heading: no heading '#no-such-heading' in record.md" in r.stdout,
               "a missing file and a missing heading fail", r)
        (root / "docs" / "diff.md").unlink()

        (root / "README.md").write_text("# x\n\n[b](bench/RESULTS.md#results-1)\n")
        r = run(root)
        expect(r.returncode == 1 and "README.md:3:" in r.stdout, "a heading that is there only once has no -1", r)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
