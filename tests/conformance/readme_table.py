"""Prints the conformance table of README.md ("Running PyTorch code") from
the suites: one row per program, with its repository (the first line of its
suite module's docstring), its file and its status as the test holds it.

    /usr/bin/python3 tests/conformance/readme_table.py           (prints it)
    /usr/bin/python3 tests/conformance/readme_table.py --check   (fails if README.md's differs)

A plain entry's status is "tracks torch": tests/python/test_conformance.py
fails unless its printed losses match PyTorch's step by step. An entry that
names `missing` or `differs` is an expected failure, one marked `slow` runs
only with TC_CONFORMANCE_SLOW=1; the table says so."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suites  # noqa: E402


def _repository(suite):
    doc = sys.modules["suites." + suite].__doc__ or ""
    m = re.search(r"https://github\.com/([\w.-]+/[\w.-]+)", doc)
    return m.group(1) if m else suite


def _status(spec):
    if spec.get("missing"):
        return "expected failure: tc lacks " + ", ".join(spec["missing"])
    if spec.get("differs"):
        return "expected failure: " + spec["differs"]
    if spec.get("slow"):
        return "tracks torch (full-size model: run with TC_CONFORMANCE_SLOW=1)"
    return "tracks torch"


def table():
    """The table and its summary line, as README.md holds them."""
    programs = suites.all_programs()
    lines = ["| program | repository | file | status |", "|---|---|---|---|"]
    for name, spec in sorted(programs.items(), key=lambda kv: (_repository(kv[1]["suite"]), kv[0])):
        lines.append("| %s | %s | `%s` | %s |" % (name, _repository(spec["suite"]), spec["script"], _status(spec)))
    repos = {_repository(s["suite"]) for s in programs.values()}
    every = [s for s in programs.values() if not s.get("slow")]
    tracking = [s for s in every if not (s.get("missing") or s.get("differs"))]
    lines.append("\n%d programs from %d repositories; %d of the %d that every test run includes track torch."
                 % (len(programs), len(repos), len(tracking), len(every)))
    return "\n".join(lines) + "\n"


def main(argv):
    """Writes the table to stdout, or with --check compares it with README.md's."""
    text = table()
    if "--check" not in argv:
        sys.stdout.write(text)
        return 0
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        if text in f.read():
            print("readme_table: README.md's conformance table is up to date")
            return 0
    print("readme_table: README.md's conformance table is stale; paste the output of "
          "tests/conformance/readme_table.py over it")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
