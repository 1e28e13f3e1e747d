"""Typing support of the tc package: the py.typed marker, the generated
elementwise methods as real definitions, and the typed example that ctest
python.mypy checks (run here for real)."""
import ast
import inspect
import os
import runpy

import tc
from tc import _ops_generated
from tc._tensor.elementwise import ElementwiseMethods

PKG = os.path.dirname(tc.__file__)
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "typed_usage.py")


def test_py_typed_marker_is_shipped():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


def test_elementwise_methods_are_real_definitions():
    """Every method of the op table is a def of the generated mixin's class body
    (tc/_tensor/elementwise.py), so that type checkers and inspect.signature see
    it, with the op's parameters by name."""
    tree = ast.parse(open(os.path.join(PKG, "_tensor", "elementwise.py")).read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ElementwiseMethods")
    defined = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    aliases = {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets}
    for cname, kind, _scalar, _doc, names, rnames, params in _ops_generated.METHODS:
        name = cname[3:]
        assert name in defined, name
        assert set(names) <= aliases, (name, set(names) - aliases)
        assert set(rnames) <= defined, (name, set(rnames) - defined)
        sig = inspect.signature(getattr(ElementwiseMethods, name))  # (div: Tensor.div adds rounding_mode)
        expected = ["self"] + ([p for p, _ in params] if kind == "unary" else ["other"])
        assert list(sig.parameters) == expected, (name, sig)
        for p, default in params:
            assert sig.parameters[p].default == default


def test_typed_example_runs(capsys):
    runpy.run_path(EXAMPLE, run_name="__main__")
    assert "typed_usage: ok" in capsys.readouterr().out
