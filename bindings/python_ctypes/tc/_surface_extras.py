"""Installs the PyTorch surface composed in Python by _torch_settings,
_top_level_nn, _stats_ops, _calculus, _windows, _scatter_variants,
_factories_more, _random_samplers, _inplace_views, _sparse and
_sparse_compressed: their functions into the tc namespace and their methods
onto tc.Tensor, each only where tc has none of that name yet (a native
implementation wins)."""
from . import (_calculus, _factories_more, _inplace_views, _random_samplers, _scatter_variants, _sparse,
               _sparse_compressed, _stats_ops, _top_level_nn, _torch_settings, _windows)
_FUNCTION_MODULES = (_torch_settings, _top_level_nn, _stats_ops, _calculus, _windows, _scatter_variants,
                     _factories_more, _random_samplers)
_METHOD_MODULES = (_stats_ops, _scatter_variants, _factories_more)


def install(namespace, tensor_class):
    """Adds the functions to ``namespace`` (tc's globals) and the methods to
    ``tensor_class`` where absent."""
    for module in _FUNCTION_MODULES:
        for name, f in module.FUNCTIONS.items():
            namespace.setdefault(name, f)
    for module in _METHOD_MODULES:
        for name, f in module.METHODS.items():
            if not hasattr(tensor_class, name):
                setattr(tensor_class, name, f)
    _inplace_views.install(tensor_class)
    _sparse_compressed.install(namespace, tensor_class)  # first: COO's install wraps what remains
    _sparse.install(namespace, tensor_class)
