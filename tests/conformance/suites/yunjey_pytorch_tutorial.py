"""Programs from https://github.com/yunjey/pytorch-tutorial (MIT; see
tests/conformance/SOURCES.md for each file's commit)."""

PROGRAMS = {
    "linear_regression": {"script": "linear_regression/main.py", "argv": lambda w: []},
}
