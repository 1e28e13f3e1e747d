"""Writes tests/python/torch_tensor_attrs_1_13.txt and
torch_functions_1_13.txt from the installed PyTorch 1.13, marking "required"
every name the tc of this checkout has (so that coverage can only grow):

    TC_LIBRARY=... /usr/bin/python3 tests/python/gen_torch_surface_lists.py

Re-running it keeps the names already marked required (a name tc loses
stays required, and the coverage test then fails on it)."""
import inspect
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python_ctypes"))

ATTRS = os.path.join(HERE, "torch_tensor_attrs_1_13.txt")
FUNCTIONS = os.path.join(HERE, "torch_functions_1_13.txt")

ATTRS_HEADER = """\
# The public attributes of torch.Tensor in PyTorch 1.13: sorted(n for n in
# dir(torch.Tensor) if not n.startswith("_")), methods and properties alike.
# A name followed by "required" is one tc.Tensor has (it existed, or was
# added with this list): test_torch_surface_coverage.py fails if tc loses it.
# Regenerate with tests/python/gen_torch_surface_lists.py."""

FUNCTIONS_HEADER = """\
# The public functions (ops) of the torch namespace in PyTorch 1.13.
# Filter: names in dir(torch) not starting with "_" whose value is callable
# and neither a class (dtype, Tensor types, Generator, ...) nor a module, and
# defined by torch (not typing re-exports); then dropped as internal:
# in-place variants ending in "_" (they are Tensor methods), backend- and
# quantization-specific entry points (cudnn_*, miopen_*, mkldnn_*, fbgemm_*,
# quantize*/quantized_*/q_*, fake_quantize_*, native_*, batch_norm_* helper
# kernels, sparse_* constructors, autocast_* switches), the view-copy
# variants ending in "_copy" (all but index_copy), TorchScript/IR helpers (fork,
# wait, parse_*, import_ir_*, merge_type_*, unify_type_list, vitals),
# the RNN kernels (lstm, gru, rnn_*: use nn.LSTM ...), and deprecated ops
# removed after 1.13 (eig, symeig, lstsq, solve, matrix_rank, chain_matmul).
# A name followed by "required" is one tc has as a callable: the coverage
# test fails if tc loses it. Regenerate with gen_torch_surface_lists.py."""

_INTERNAL = re.compile(
    r"^(cudnn|miopen|mkldnn|fbgemm|quantized|quantize|q_|native|batch_norm_|sparse_|fake_quantize|"
    r"choose_qparams|autocast|get_autocast|set_autocast|is_autocast|clear_autocast|import_ir|parse_|"
    r"merge_type|unify_type|vitals|read_vitals|set_vital|sym_|segment_reduce|constant_pad_nd|is_vulkan|"
    r"dsmm|hsmm|saddmm|smm|spmm|sspaddmm|hspmm|unsafe_|rnn_|lstm|gru|ccol_|crow_|col_indices|"
    r"row_indices|values_copy|indices_copy|conv_tbc|int_repr|dequantize|channel_shuffle|resize_as)")
_DROPPED = {"fork", "wait", "classproperty", "obj", "candidate", "typename", "get_file_path",
            "prepare_multiprocessing_environment", "compiled_with_cxx11_abi", "init_num_threads", "from_file",
            "empty_quantized", "lobpcg", "pca_lowrank", "svd_lowrank", "eig", "symeig", "lstsq", "solve",
            "matrix_rank", "chain_matmul", "norm_except_dim", "frobenius_norm", "nuclear_norm",
            "affine_grid_generator", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
            "fused_moving_avg_obs_fake_quant", "is_distributed", "align_tensors", "set_flush_denormal",
            "split_with_sizes", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled"}


def torch_functions(torch):
    """The filtered function names (see FUNCTIONS_HEADER)."""
    out = []
    for n in dir(torch):
        if n.startswith("_") or n.endswith("_") or n in _DROPPED or _INTERNAL.match(n):
            continue
        obj = getattr(torch, n)
        if not callable(obj) or inspect.isclass(obj) or inspect.ismodule(obj):
            continue
        module = getattr(obj, "__module__", None) or ""
        if module and not module.startswith("torch"):
            continue
        if n.endswith("_copy") and n != "index_copy":  # view-copy variants; index_copy is an op
            continue
        out.append(n)
    return sorted(out)


def read_required(path):
    """The names marked required in an existing list file."""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.split()[0] for line in f
                if line.strip() and not line.startswith("#") and line.split()[1:] == ["required"]}


def write(path, header, names, has):
    """Writes the list, marking names tc has (or already marked) required."""
    keep = read_required(path)
    with open(path, "w") as f:
        f.write(header + "\n")
        for n in names:
            f.write(n + (" required" if n in keep or has(n) else "") + "\n")


def main():
    """Generates both lists."""
    import torch

    import tc
    attrs = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    write(ATTRS, ATTRS_HEADER, attrs, lambda n: hasattr(tc.Tensor, n))
    write(FUNCTIONS, FUNCTIONS_HEADER, torch_functions(torch),
          lambda n: callable(getattr(tc, n, None)))


if __name__ == "__main__":
    main()
