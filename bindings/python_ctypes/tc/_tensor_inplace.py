"""PyTorch's in-place Tensor methods (exp_, relu_, pow_, clamp_min_,
index_add_, masked_fill_, ...) that tc has as out-of-place methods only,
and the NumPy-style method aliases (absolute, arccos, greater, ...), in
InplaceVariants, a base class of tc.Tensor.

An in-place variant computes the out-of-place result and copies it into
self (copy_, so autograd and the version counter see an in-place write); as
in PyTorch, a result of a higher category (floating into an integer tensor,
say) is refused instead of truncated."""

# name -> the out-of-place method an alias stands for
ALIASES = {"absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
           "arctan": "atan", "arctanh": "atanh", "greater": "gt", "greater_equal": "ge", "less": "lt",
           "less_equal": "le", "not_equal": "ne"}

# out-of-place methods tc.Tensor has whose "_" forms PyTorch has; shape
# changers (squeeze_, t_, transpose_, ...) are left out: tc cannot change a
# tensor's shape in place.
INPLACE_OF = ("abs", "acos", "acosh", "addcdiv", "addcmul", "arctan2", "asin", "asinh", "atan", "atanh",
              "bernoulli", "bitwise_not", "ceil", "clamp_max", "clamp_min", "conj_physical", "cos", "cosh",
              "cumprod", "cumsum", "deg2rad", "divide", "eq", "erf", "erfc", "erfinv", "exp2", "exp", "expm1",
              "fix", "float_power", "floor", "frac", "ge", "gt", "heaviside", "index_add", "index_copy",
              "index_fill", "ldexp", "le", "log10", "log1p", "log2", "log", "logical_and", "logical_not",
              "logical_or", "logical_xor", "logit", "lt", "masked_fill", "multiply", "nan_to_num", "ne", "neg",
              "negative", "pow", "rad2deg", "reciprocal", "relu", "round", "rsqrt", "scatter", "scatter_add",
              "scatter_reduce", "sgn", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "subtract", "tan",
              "tanh", "tril", "triu", "true_divide", "trunc", "xlogy", "sinc") + tuple(ALIASES)


def _category(dt):
    if dt.name == "bool":
        return 0
    return 2 if dt.is_floating_point else 1


def _inplace(base):
    def method(self, *args, **kwargs):
        result = getattr(self, base)(*args, **kwargs)
        if _category(result.dtype) > _category(self.dtype):
            raise RuntimeError("result type %s can't be cast to the desired output type %s"
                               % (result.dtype.name.capitalize(), self.dtype.name.capitalize()))
        return self.copy_(result)

    method.__name__ = method.__qualname__ = base + "_"
    method.__doc__ = "In-place :meth:`%s`: writes the result into self and returns self." % base
    return method


def _alias(base, name):
    def method(self, *args, **kwargs):
        return getattr(self, base)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = "Same as :meth:`%s` (PyTorch's alias)." % base
    return method


InplaceVariants = type("InplaceVariants", (), dict(
    {n + "_": _inplace(n) for n in INPLACE_OF},
    **{n: _alias(b, n) for n, b in ALIASES.items()},
    __slots__=(), __module__=__name__,
    __doc__="In-place variants and aliases of tc.Tensor methods (see the module docstring)."))
