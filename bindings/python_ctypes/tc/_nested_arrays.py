"""Nested Python sequences with numpy arrays among their items, for
tc.tensor / torch.Tensor / torch.LongTensor(...): PyTorch accepts
``torch.LongTensor([np.asarray([1, 2]), np.asarray([3, 4])])`` (a list of
rows built with numpy), reading each array as the nested list it holds.

``flatten_nested`` replaces _tensor.py's level-by-level flattening (the end
of _tensor.py rebinds the name): at each level, an array with one or more
dimensions becomes its ``tolist()``, so its rows join the level below;
a 0-d array stays a number-like leaf."""
from ._tensor import Tensor, _NUMBER_TYPES, _scalar_value


def _is_array(x):
    """True for a numpy array (or any array-interface object) with at least
    one dimension; a tc Tensor is not one (its items are checked as leaves)."""
    return (not isinstance(x, Tensor) and hasattr(x, "__array_interface__")
            and getattr(x, "ndim", 0) > 0 and hasattr(x, "tolist"))


def _arrays_to_lists(level):
    """The level with each array item replaced by its nested list (the list
    itself when it holds no array, so plain data costs one scan)."""
    if not any(_is_array(x) for x in level):
        return level
    return [x.tolist() if _is_array(x) else x for x in level]


def flatten_nested(data):
    """(flat list of Python numbers, shape) of nested sequences whose items
    may be numpy arrays, level by level; checks they are rectangular
    (ValueError "expected sequence of length n at dim d (got m)" otherwise,
    PyTorch's message)."""
    if isinstance(data, Tensor):
        return data._flat_values(), tuple(data.shape)
    shape = []
    level = [data]
    while level and isinstance(level[0], (list, tuple)):
        n = len(level[0])
        for x in level:
            if not isinstance(x, (list, tuple)):
                raise ValueError("expected a sequence of equal-length sequences at dim %d" % len(shape))
            if len(x) != n:
                raise ValueError("expected sequence of length %d at dim %d (got %d)" % (n, len(shape), len(x)))
        shape.append(n)
        level = _arrays_to_lists([y for x in level for y in x])
    types = set(map(type, level))
    if not types.issubset(_NUMBER_TYPES):
        level = [_scalar_value(v) for v in level]
    return level, tuple(shape)
