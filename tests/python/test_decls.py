"""Declarations: generated from tc.h, up to date, and every exported symbol
declared with tc.h's number of arguments."""
import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

import tc
from tc import _decls
from conftest import REPO

HEADER = os.path.join(REPO, "include", "tc.h")
GEN = os.path.join(REPO, "bindings", "python_ctypes", "tools", "gen_decls.py")


def header_param_counts():
    """{name: parameter count} parsed independently of gen_decls.py."""
    text = open(HEADER).read()
    # The headers tc.h includes from its folder (the elementwise families: tc_unary_ops.h, ...) are part of it.
    for part in re.findall(r'#include "(tc_\w+\.h)"', text):
        text += open(os.path.join(os.path.dirname(HEADER), part)).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for m in re.finditer(r"TC_API\s+int32_t\s+(tc_\w+)\s*\(([^)]*)\)", text):
        params = m.group(2).strip()
        out[m.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return out


def exported_symbols():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm is not installed")
    res = subprocess.run([nm, "-D", "--defined-only", tc.library_path], capture_output=True, text=True,
                         check=True)
    return sorted({line.split()[-1] for line in res.stdout.splitlines()
                   if line.split() and line.split()[-1].startswith("tc_")})


def test_committed_decls_match_regeneration():
    res = subprocess.run([sys.executable, GEN, "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_every_header_function_is_declared():
    counts = header_param_counts()
    assert len(counts) > 100
    assert set(counts) == set(_decls.FUNCTIONS)
    for name, n in counts.items():
        argtypes, sig = _decls.FUNCTIONS[name]
        assert len(argtypes) == n == len(sig), name


def test_every_exported_symbol_is_declared_with_the_right_arity():
    counts = header_param_counts()
    symbols = exported_symbols()
    assert "tc_init" in symbols and "tc_abi_version" in symbols
    for name in symbols:
        assert name in counts, "%s is exported but not in tc.h" % name
        fn = getattr(tc._lib.lib, name)
        assert fn.restype is ctypes.c_int32, name
        assert fn.argtypes is not None and len(fn.argtypes) == counts[name], name


def test_handles_are_pointer_sized_never_int():
    for name, (argtypes, sig) in _decls.FUNCTIONS.items():
        for (ctype, pname), at in zip(sig, argtypes):
            if ctype.replace("const", "").strip() in ("tc_tensor", "tc_optimizer"):
                assert at is ctypes.c_void_p, (name, pname)
            if ctype.strip() in ("int64_t", "uint64_t"):
                assert ctypes.sizeof(at) == 8, (name, pname)


def test_structs_match_header_sizes():
    # Field-by-field layouts on x86-64: what tc.h's structs must measure.
    assert ctypes.sizeof(_decls.tc_init_options) == 32
    assert ctypes.sizeof(_decls.tc_stage_info) == 40
    assert ctypes.sizeof(_decls.tc_sgd_options) == 40
    assert ctypes.sizeof(_decls.tc_adam_options) == 48
    assert ctypes.sizeof(_decls.tc_cuda_memory_stats) == 32


def test_missing_functions_report():
    # The set of tc.h functions the loaded library lacks is what tc reports.
    symbols = set(exported_symbols())
    assert set(tc.missing_functions) == set(_decls.FUNCTIONS) - symbols
