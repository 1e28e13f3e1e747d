"""tools/check_doc_paths.py on a small made-up repository: it must report the
dead paths of each kind of source it reads and nothing else."""
import importlib.util
import os

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _checker():
    spec = importlib.util.spec_from_file_location("check_doc_paths", os.path.join(REPO, "tools", "check_doc_paths.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.OTHER_PROJECTS = {}  # the repository's own exceptions match nothing here
    return module


def _write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def test_reports_each_dead_path_and_only_those(tmp_path):
    root = str(tmp_path)
    for rel in ("src/core/tensor.h", "src/cpu/rows/unary_exp.cpp", "src/math/unary_ops.def",
                "src/math/binary_ops.def", "tests/python/test_x.py", "bench/run.sh", "docs/B.md"):
        _write(root, rel, "")
    _write(root, "README.md",
           "See `src/core/tensor.h`, src/cpu/rows/*.cpp, src/cpu/rows/<family>_<name>.cpp,\n"
           "src/math/{unary,binary}_ops.def, tests/python/test_x.py::test_a, bench/run.sh build,\n"
           "build/tests/tc_gtest, https://example.com/src/none.h, [b](docs/B.md#its-part).\n"
           "Dead: src/core/gone.h, and [a link](docs/missing.md).\n"
           "Folders: tests/python/, bindings/pkg; dead: bindings/nothing, src/core/tensor.h/.cpp.\n")
    _write(root, "DEVELOPERS.md", "src/math/{unary,compare}_ops.def\n")
    _write(root, "docs/A.md", "# Top, with (punctuation)\n[b](B.md) [c](C.md) tests/python/\n"
           "[here](#top-with-punctuation) [there](B.md#its-part) [nowhere](B.md#none) [self](#gone)\n")
    _write(root, "docs/B.md", "## Its part\n```sh\n# not a heading\n```\n")
    _write(root, "src/core/x.cpp",
           '// see src/core/tensor.h and src/core/old.h\n'
           'const char* s = "src/core/not_a_comment.h";\n'
           '/* a block naming\n   tools/nothing.py */\n')
    _write(root, "bindings/pkg/m.py",
           '"""Docstring: tests/python/gone.py."""\n'
           'x = "scripts/not_read.sh"  # comment: scripts/dead.sh\n')
    _write(root, "tests/c/t.cpp", "int x; // tests/c/missing.c\n")
    _write(root, "tests/conformance/programs/p/main.py", "# vendored: src/whatever.py\n")
    _write(root, "CHANGELOG.md", "src/history_only.h\n")

    dead = {(rel, path) for rel, _, path in _checker().dead_paths(root)}
    assert dead == {
        ("README.md", "src/core/gone.h"),
        ("README.md", "docs/missing.md"),
        ("README.md", "bindings/nothing"),
        ("README.md", "src/core/tensor.h/.cpp"),
        ("DEVELOPERS.md", "src/math/{unary,compare}_ops.def"),
        ("docs/A.md", "C.md"),
        ("docs/A.md", "B.md#none: docs/B.md has no heading #none"),
        ("docs/A.md", "#gone: docs/A.md has no heading #gone"),
        ("src/core/x.cpp", "src/core/old.h"),
        ("src/core/x.cpp", "tools/nothing.py"),
        ("bindings/pkg/m.py", "tests/python/gone.py"),
        ("bindings/pkg/m.py", "scripts/dead.sh"),
        ("tests/c/t.cpp", "tests/c/missing.c"),
        ("README.md", "docs/A.md is not linked from its list of docs"),
    }
