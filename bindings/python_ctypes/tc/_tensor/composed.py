"""tc.Tensor's methods of the PyTorch surface composed in Python from tc ops
(tc/_stats_ops.py, _histograms.py, _scatter_variants.py, _factories_more.py):
the statistics (cov, quantile, ...), histograms, the scatter variants and
views (diagonal_scatter, as_strided, renorm, ...), new_empty_strided. A mixin
of tc.Tensor placed after the others, so that a native method of the same
name wins (Tensor.angle is tc/_complex_methods.py's)."""
from .. import _factories_more, _histograms, _scatter_variants, _stats_ops


class ComposedMethods:
    """tc.Tensor's methods composed in Python from tc ops (statistics,
    histograms, scatter variants, new_empty_strided)."""

    __slots__ = ()

    cov = _stats_ops.cov
    corrcoef = _stats_ops.corrcoef
    quantile = _stats_ops.quantile
    nanquantile = _stats_ops.nanquantile
    nanmedian = _stats_ops.nanmedian
    unique_consecutive = _stats_ops.unique_consecutive
    angle = _stats_ops.angle
    histc = _histograms.histc
    histogram = _histograms.histogram
    bincount = _histograms.bincount
    diagonal_scatter = _scatter_variants.diagonal_scatter
    select_scatter = _scatter_variants.select_scatter
    slice_scatter = _scatter_variants.slice_scatter
    as_strided = _scatter_variants.as_strided
    as_strided_scatter = _scatter_variants.as_strided_scatter
    diag_embed = _scatter_variants.diag_embed
    masked_scatter = _scatter_variants.masked_scatter
    masked_scatter_ = _scatter_variants.masked_scatter_
    index_reduce = _scatter_variants.index_reduce
    index_reduce_ = _scatter_variants.index_reduce_
    renorm = _scatter_variants.renorm
    renorm_ = _scatter_variants.renorm_
    split_with_sizes = _scatter_variants.split_with_sizes
    unsafe_split = _scatter_variants.unsafe_split
    unsafe_split_with_sizes = _scatter_variants.unsafe_split_with_sizes
    unsafe_chunk = _scatter_variants.unsafe_chunk
    narrow_copy = _scatter_variants.narrow_copy
    new_empty_strided = _factories_more.new_empty_strided
