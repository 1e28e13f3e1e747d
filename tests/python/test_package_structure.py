"""How the tc package is put together, read from its source with `ast`
(nothing is imported):

* the modules of tc import each other without a cycle at module level (what
  runs at import time: top-level statements and class bodies, not function
  bodies, not ``if TYPE_CHECKING:`` blocks), so that any of them can be
  imported first and a reader can follow the layers;
* no module adds attributes to a tensor class at import time
  (``setattr(Tensor, ...)``, ``Tensor.name = ...``): every method of Tensor and
  of its subclasses is defined in a class body, found by reading the class
  and its mixins.

A function-local import is how a module reaches one that imports it; keep such
imports few, each with a comment saying why the cycle is real."""
import ast
import os

import pytest

PKG = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "bindings", "python_ctypes", "tc"))

# Tensor classes: patching one of these (or a parameter naming one) at import time fails.
TENSOR_CLASSES = {"Tensor", "SparseTensor", "SparseCompressedTensor", "Parameter", "UninitializedBuffer",
                  "tensor_class", "tensor_cls", "cls"}

# Modules whose `cls` is no tensor class (what they patch is out of this test's scope).
NOT_TENSOR_CLS = {
    "tc.optim.adam_python": "copies Optimizer methods onto an optimizer class",
}

# Modules still allowed to patch a tensor class at import time, with the reason
# (none: every method is defined in a class body).
PATCH_ALLOWED = {
}


# Groups of modules (as sets) still importing each other at module level, with the reason.
KNOWN_CYCLES = {
    # tc/linalg.py ends by re-exporting eig, lstsq, ... from _linalg_more.py, which calls
    # linalg's helpers (_run, _into) when it runs: the two halves of one namespace
    frozenset({"tc._linalg_more", "tc.linalg"}): "linalg's re-export block",
    # tc/nn/functional.py ends with re-exports of functional_*.py, which take helpers
    # (_pair, ...) and functions from functional.py itself: the helpers would move to
    # a module of their own
    frozenset({"tc.nn.functional", "tc.nn.functional_attention", "tc.nn.functional_interp",
               "tc.nn.functional_layers", "tc.nn.functional_more", "tc.nn.functional_nd",
               "tc.nn.functional_softmax"}): "nn.functional's re-export blocks",
    # tc/optim/__init__.py ends with re-exports of optimizers and lr_scheduler, which take
    # _COptimizer / Optimizer from the package itself
    frozenset({"tc.optim", "tc.optim.lr_scheduler", "tc.optim.lr_scheduler_extra", "tc.optim.lr_scheduler_more",
               "tc.optim.rmsprop_adagrad"}): "optim's re-export blocks",
}


def _modules():
    """{dotted module name: path} for every .py file of the package."""
    out = {}
    root = os.path.dirname(PKG)
    for dirpath, dirnames, filenames in os.walk(PKG):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, f), root)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(rel)] = os.path.join(dirpath, f)
    return out


def _is_package(name, modules):
    return modules[name].endswith("__init__.py")


def _import_time_nodes(body):
    """The statements of `body` that run when the module is imported: into
    if/try/with/for blocks and class bodies, not into functions, not into
    `if TYPE_CHECKING:`."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If):
            test = node.test
            if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                    isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
                yield from _import_time_nodes(node.orelse)
                continue
        yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(node, field, None)
            if isinstance(sub, list) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from _import_time_nodes(sub)


def _imports(name, tree, modules):
    """The modules of tc that module `name` imports at import time."""
    package = name if _is_package(name, modules) else name.rsplit(".", 1)[0]
    found = set()

    def add(target, itself=True):
        # importing a.b.c runs a.b's __init__ first: an edge to each enclosing package
        # that does not also enclose the importer (those are already being initialized)
        parts = target.split(".")
        for i in range(2, len(parts)):
            prefix = ".".join(parts[:i])
            if prefix in modules and prefix != name and not name.startswith(prefix + "."):
                found.add(prefix)
        if itself and target in modules and target != name:
            found.add(target)
        elif not itself and target in modules and target != name and not name.startswith(target + "."):
            found.add(target)  # `from pkg import submodule` from outside pkg still runs pkg's __init__

    for node in _import_time_nodes(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                # `import tc` binds the package object only (its attributes are read
                # when a function runs), not an import-time dependency on its names
                if a.name.startswith("tc."):
                    add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            elif node.module and (node.module == "tc" or node.module.startswith("tc.")):
                mod = node.module
            else:
                continue
            subs = [mod + "." + a.name for a in node.names if mod + "." + a.name in modules]
            # names defined by mod itself (its __init__ when a package) make mod a dependency;
            # `from pkg import submodule` needs only the submodule (and pkg's __init__ when
            # the importer is outside pkg)
            add(mod, itself=len(subs) < len(node.names))
            for sub in subs:
                add(sub)
    return found


def _graph():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        with open(path, encoding="utf-8") as f:
            graph[name] = _imports(name, ast.parse(f.read(), path), modules)
    return graph


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan),
    each as a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def _a_cycle(graph, comp):
    """One concrete import cycle inside the component, as a path a -> b -> ... -> a."""
    members = set(comp)
    start = comp[0]
    path, seen = [start], {start}

    def walk(v):
        for w in sorted(graph[v]):
            if w == start:
                return path + [start]
            if w in members and w not in seen:
                seen.add(w)
                path.append(w)
                found = walk(w)
                if found:
                    return found
                path.pop()
        return None

    return walk(start) or comp


def test_no_import_cycles_at_module_level():
    graph = _graph()
    cycles = [c for c in _cycles(graph) if frozenset(c) not in KNOWN_CYCLES]
    message = ["%d groups of tc modules import each other at module level:" % len(cycles)]
    for comp in cycles:
        message.append("  %s  (all of: %s)" % (" -> ".join(_a_cycle(graph, comp)), ", ".join(comp)))
    assert not cycles, "\n".join(message)


def _patches(tree):
    """(line, text) of each import-time setattr(<tensor class>, ...) and
    <tensor class>.name = ... in a module (functions called at import time
    included: any `install`-style function body counts, since its only use is
    to patch)."""
    def tensor_class(expr):
        """The tensor class name an expression names (Tensor, tc.Tensor, ...), else None."""
        if isinstance(expr, ast.Name) and expr.id in TENSOR_CLASSES:
            return expr.id
        if isinstance(expr, ast.Attribute) and expr.attr in TENSOR_CLASSES:
            return expr.attr
        return None

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and node.args and tensor_class(node.args[0]):
            found.append((node.lineno, "setattr(%s, ...)" % tensor_class(node.args[0])))
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(e, ast.Attribute) and tensor_class(e.value):
                    found.append((node.lineno, "%s.%s = ..." % (tensor_class(e.value), e.attr)))
    return found


def test_no_module_patches_a_tensor_class():
    offenders = []
    for name, path in sorted(_modules().items()):
        if name in PATCH_ALLOWED:
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        offenders += ["%s:%d: %s" % (name, line, text) for line, text in _patches(tree)
                      if not (name in NOT_TENSOR_CLS and text.startswith(("cls.", "setattr(cls,")))]
    assert not offenders, "tensor classes patched at import time (define the methods in a class body):\n  " \
        + "\n  ".join(offenders)


@pytest.mark.parametrize("name", sorted(PATCH_ALLOWED))
def test_allowed_patches_are_still_needed(name):
    """An entry of PATCH_ALLOWED whose module no longer patches is removed."""
    with open(_modules()[name], encoding="utf-8") as f:
        assert _patches(ast.parse(f.read())), "%s no longer patches a tensor class: drop it from PATCH_ALLOWED" % name


def test_nothing_imports_the_unbound_tensor_name():
    """tc._tensor_base.Tensor is None until tc/_tensor/__init__.py binds the
    class: importing the name from there would keep that None."""
    offenders = []
    for name, path in sorted(_modules().items()):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_tensor_base") \
                    and any(a.name == "Tensor" for a in node.names):
                offenders.append("%s:%d" % (name, node.lineno))
    assert not offenders, "import TensorBase (or tc._tensor.Tensor) instead: " + ", ".join(offenders)


def test_tensor_mixins_declare_slots():
    """Every class tc.Tensor is built from declares __slots__, so that a
    tensor carries no __dict__ (as before the class was split)."""
    import tc
    missing = [c.__module__ + "." + c.__qualname__ for c in tc.Tensor.__mro__[1:-1] if "__slots__" not in vars(c)]
    assert not missing, "mixins without __slots__ (instances would get a __dict__): " + ", ".join(missing)
    assert not hasattr(tc.tensor([1.0]), "__dict__")


def test_known_cycles_are_still_there():
    """An entry of KNOWN_CYCLES that is no longer a cycle (or has changed) is updated."""
    groups = {frozenset(c) for c in _cycles(_graph())}
    stale = [sorted(k) for k in KNOWN_CYCLES if k not in groups]
    assert not stale, "KNOWN_CYCLES entries that no longer match a cycle: %s" % stale
