"""Finds and loads libtc, checks its ABI version, declares every function.

Search order (the first library whose ABI version matches wins):
  1. $TC_LIBRARY (a file, or a directory holding libtc.so*)
  2. the installed package (tc/lib/libtc.so*, copied there by setup.py)
  3. the build tree: <repo>/build*/libtc.so* (newest first), when this
     package runs from a source checkout
A missing or mismatched library raises ImportError naming every path tried
and the ABI versions found. The integer parameters of every declared function
are range-checked (tc._ints): a Python int never wraps into a C integer.
"""
import ctypes
import glob
import os

from . import _decls, _ints

EXPECTED_ABI = _decls.TC_ABI_VERSION
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_REPO_DIR = os.path.normpath(os.path.join(_PKG_DIR, "..", "..", ".."))


def _libs_in(directory):
    found = sorted(glob.glob(os.path.join(directory, "libtc.so*")), key=len)
    return found[:1]  # libtc.so, else libtc.so.0, else libtc.so.0.1.0


def candidate_paths():
    paths = []
    env = os.environ.get("TC_LIBRARY")
    if env:
        paths.extend(_libs_in(env) if os.path.isdir(env) else [env])
        return paths  # an explicit choice is never second-guessed
    paths.extend(_libs_in(os.path.join(_PKG_DIR, "lib")))
    if os.path.exists(os.path.join(_REPO_DIR, "include", "tc.h")):
        builds = [d for d in glob.glob(os.path.join(_REPO_DIR, "build*")) if os.path.isdir(d)]
        libs = []
        for d in builds:
            libs.extend(_libs_in(d))
        libs.sort(key=os.path.getmtime, reverse=True)
        paths.extend(libs)
    return paths


def load():
    """Returns (CDLL, path, missing function names) or raises ImportError."""
    tried = []
    for path in candidate_paths():
        if not os.path.exists(path):
            tried.append("%s (not found)" % path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (cannot load: %s)" % (path, e))
            continue
        try:
            fn = lib.tc_abi_version
        except AttributeError:
            tried.append("%s (no tc_abi_version: not libtc)" % path)
            continue
        fn.restype = ctypes.c_int32
        fn.argtypes = [ctypes.POINTER(ctypes.c_int32)]
        version = ctypes.c_int32(-1)
        if fn(ctypes.byref(version)) != 0 or version.value != EXPECTED_ABI:
            tried.append("%s (ABI version %d, expected %d)" % (path, version.value, EXPECTED_ABI))
            continue
        missing = _decls.declare(lib)
        _ints.harden(lib, _decls.FUNCTIONS)  # no Python int wraps silently into a C integer
        return lib, path, missing
    if not tried:
        tried.append("(no candidates: set TC_LIBRARY, install the package with its library, "
                     "or build libtc in %s/build*)" % _REPO_DIR)
    raise ImportError("tc: cannot load libtc (ABI version %d). Tried:\n  %s"
                      % (EXPECTED_ABI, "\n  ".join(tried)))


lib, path, missing = load()
