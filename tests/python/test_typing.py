"""Typing support of the tc package: the py.typed marker, the
TYPE_CHECKING declarations of the methods installed at import time, and the
typed example that ctest python.mypy checks (run here for real)."""
import ast
import os
import runpy

import tc
from tc import _ops_generated

PKG = os.path.dirname(tc.__file__)
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "typed_usage.py")


def _tensor_class_names():
    """(names the class body defines, names its `if TYPE_CHECKING:` block declares)."""
    tree = ast.parse(open(os.path.join(PKG, "_tensor", "__init__.py")).read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    body, declared = set(), set()
    for n in cls.body:
        if isinstance(n, ast.FunctionDef):
            body.add(n.name)
        elif isinstance(n, ast.Assign):
            body.update(t.id for t in n.targets if isinstance(t, ast.Name))
        elif isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING":
            declared.update(d.name for d in n.body if isinstance(d, ast.FunctionDef))
    return body, declared


def test_py_typed_marker_is_shipped():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


def test_installed_methods_are_declared_for_type_checkers():
    body, declared = _tensor_class_names()
    installed = set()
    for cname, _kind, _scalar, _doc, aliases, raliases, _params in _ops_generated.METHODS:
        installed.update((cname[3:],) + tuple(aliases) + tuple(raliases))
    assert not installed - body - declared, "declare in _tensor.py's TYPE_CHECKING block"
    assert not declared - installed, "declared but not installed by _ops_generated"
    for name in declared:
        assert callable(getattr(tc.Tensor, name)), name


def test_typed_example_runs(capsys):
    runpy.run_path(EXAMPLE, run_name="__main__")
    assert "typed_usage: ok" in capsys.readouterr().out
