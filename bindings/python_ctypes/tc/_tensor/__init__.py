"""tc.Tensor: one libtc tensor handle, freed exactly once when the Python
object dies, with PyTorch's methods, operators and indexing.

The class is assembled here from topic mixins, each a plain class whose
methods are defined in its own body; the layer they all stand on
(wrapping handles, shared helpers, the factories tc.tensor, tc.zeros, ...)
is tc/_tensor_base.py, re-exported from this module."""
from .._binary_ext import BinaryExtMethods
from .._complex_methods import ComplexMethods
from .._indexing import (AdvancedIndexingMethods, index_add, index_copy, index_fill, index_put,  # noqa: F401
                         index_put_, masked_select, nonzero, scatter, scatter_add, scatter_reduce, take)
from .._inplace_views import InplaceViewMethods
from .._legacy_tensors import legacy_new
from .._linalg_legacy import LinalgTensorMethods
from .._linalg_more import LinalgMoreMethods
from .._matrix_products import MatrixProductMethods
from .._printing import PrintingMethods
from .._shape_ops import ShapeOpsMethods
from .._shared_memory import SharedMemoryMethods
from .._sort_reduce import SortReduceMethods
from .._special_functions import SpecialFunctionMethods
from .._spectral import SpectralMethods
from .._tensor_flags import TensorFlags
from .._tensor_inplace import InplaceVariants
from .._tensor_invert import InvertMethods
from .._tensor_misc_methods import MiscTensorMethods
from .._torch_namespace_extras import NamespaceExtraMethods
from .arithmetic import ArithmeticMethods
from .attributes import AttributeMethods
from .autograd import AutogradMethods
from .composed import ComposedMethods
from .conversion import ConversionMethods
from .creation import CreationMethods
from .elementwise import ElementwiseMethods
from .indexing import IndexingMethods
from .inplace import InplaceMethods
from .matrix import MatrixMethods
from .random import RandomMethods
from .reductions import ReductionMethods
from .shape import ShapeMethods
from .sparse import SparseMethods
# What tc._tensor has always offered: the factories and value types (tc/__init__.py
# re-exports them as tc.*) and the helpers other modules wrap handles with.
from .._tensor_base import (GradFn, MinMax, Size, TensorBase, TopK, _NUMBER_TYPES,  # noqa: F401
                            _as_tensor, _binary, _call, _dims, _free, _new, _rbinary, _scalar_tensor,
                            _scalar_value, _select_f, _shape_args, _slice_f, _tensor_list, _unary, _unsqueeze_f,
                            _wrap, arange, as_tensor, cat, chunk, concat, concatenate, empty, empty_like, full,
                            full_like, gather, index_select, initial_seed, manual_seed, matmul, maximum, minimum,
                            ones, ones_like, rand, rand_like, randn, randn_like, split, stack, tensor, tensor_new,
                            where, zeros, zeros_like)
from .. import _core as K
from .. import _tensor_base as _base


# The methods of tc.Tensor, by topic. Where a name is defined by more than one
# mixin, the first in this list wins (Python's method resolution order); a mixin
# that refines another's method (calling super(): ComplexMethods' repr, item,
# tolist and to; PrintingMethods' repr) comes before it. The last group holds
# methods that yield to any other of the same name. TensorBase (the instance
# layout, no methods) comes first: isinstance(x, TensorBase) finds it at once.
class Tensor(TensorBase, InvertMethods, SpectralMethods, ComplexMethods, SharedMemoryMethods, SpecialFunctionMethods,
             PrintingMethods, SortReduceMethods, ShapeOpsMethods, AdvancedIndexingMethods, BinaryExtMethods,
             ElementwiseMethods,
             AttributeMethods, AutogradMethods, ConversionMethods, ArithmeticMethods, InplaceMethods,
             RandomMethods, ReductionMethods, MatrixMethods, ShapeMethods, IndexingMethods, CreationMethods,
             MatrixProductMethods, TensorFlags, NamespaceExtraMethods, InplaceVariants, MiscTensorMethods,
             ComposedMethods, InplaceViewMethods, SparseMethods, LinalgTensorMethods, LinalgMoreMethods):
    """A libtc tensor. Make one with tc.tensor, tc.zeros, ...; ``Tensor(*sizes)``
    and ``Tensor(data)`` are PyTorch's legacy float32 constructors
    (tc/_legacy_tensors.py)."""

    __slots__ = ()  # TensorBase's
    __array_priority__ = 1000  # numpy defers to our reflected operators
    __hash__ = object.__hash__

    def __new__(cls, *args, **kwargs):
        return legacy_new(args, dict(kwargs), K.float32)

    def __init__(self, *args, **kwargs):
        pass  # __new__ built it

    def __del__(self):
        try:
            h = self._h
        except AttributeError:  # never got a handle (a failed constructor)
            return
        if h:
            self._h = None
            try:
                _free(h)  # after tc_shutdown the handle is stale: an ignored error, never a crash
            except Exception:  # interpreter teardown
                pass


_base.bind_tensor_class(Tensor)

