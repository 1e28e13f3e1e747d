"""Installs the PyTorch surface composed in Python by _torch_settings,
_top_level_nn, _stats_ops, _histograms, _calculus, _windows, _scatter_variants,
_factories_more, _random_samplers, _printing, _inplace_views, _sparse and
_sparse_compressed: their functions into the tc namespace, each only where
tc has none of that name yet (a native implementation wins). Their Tensor
methods are mixins of tc.Tensor (tc/_tensor/__init__.py)."""
from . import (_calculus, _factories_more, _histograms, _printing, _random_samplers, _scatter_variants, _sparse,
               _sparse_compressed, _stats_ops, _top_level_nn, _torch_settings, _windows)

_FUNCTION_MODULES = (_torch_settings, _top_level_nn, _stats_ops, _histograms, _calculus, _windows,
                     _scatter_variants, _factories_more, _random_samplers, _printing)


# Names of Python builtins: as globals of tc/__init__.py they would replace
# the builtins its own functions call (range in init_report), so tc serves
# them through the module's __getattr__ (tc.range, from tc import range).
SHADOWING = ("range",)


def module_getattr(name):
    """The module __getattr__ of tc for the SHADOWING names."""
    if name in SHADOWING:
        return _factories_more.FUNCTIONS[name]
    raise AttributeError("module 'tc' has no attribute %r" % name)


def install(namespace):
    """Adds the functions to ``namespace`` (tc's globals; SHADOWING ones
    through its __getattr__), where absent."""
    for module in _FUNCTION_MODULES:
        for name, f in module.FUNCTIONS.items():
            if name not in SHADOWING:
                namespace.setdefault(name, f)
    namespace.setdefault("__getattr__", module_getattr)
    _sparse_compressed.install(namespace)
    _sparse.install(namespace)
