#!/usr/bin/env python3
"""Checks that src/ includes only downward in libtc's layer order.

Each folder of src/ is one layer (docs/ARCHITECTURE.md draws them):

    abi                      the C ABI: the only layer that includes tc.h
    ops, autograd, io, dist  the ops and what is built from them
    cpu, cuda                the backends (each implements backend/backend.h)
    backend                  the backend interface, its registry, the CUDA loader
    core, math               tensors, dtypes, errors, init; host/device math

A file may include its own folder and the folders ALLOWED lists for it; a
kernel folder (cpu, cuda) reaches the other only through backend/. Nobody but
abi/ includes tc.h; everyone may include the generated tc_constants.h (tc.h's
constants, cmake/gen_constants.cmake). Known exceptions are listed in
EXCEPTIONS with the reason each one stays; an exception that no longer
matches an include fails the check too, so the list only shrinks.

Usage: tools/check_layers.py [SRC_DIR]   (exit 0: clean, 1: violations)
"""

import os
import re
import sys

ORDERED = ["core", "math", "backend", "cpu", "cuda", "ops", "autograd", "io", "dist", "abi"]
BOTTOM = {"core", "math"}
OPS_LEVEL = {"ops", "autograd", "io", "dist"}
ALLOWED = {
    "core": BOTTOM,
    "math": BOTTOM,
    "backend": BOTTOM | {"backend"},
    "cpu": BOTTOM | {"backend", "cpu"},
    "cuda": BOTTOM | {"backend", "cuda"},
    "ops": BOTTOM | {"backend"} | OPS_LEVEL,
    "autograd": BOTTOM | {"backend"} | OPS_LEVEL,
    "io": BOTTOM | {"backend"} | OPS_LEVEL,
    "dist": BOTTOM | {"backend"} | OPS_LEVEL,
    "abi": BOTTOM | {"backend"} | OPS_LEVEL | {"abi"},
}
TC_H = "tc.h"  # include/tc.h, the public ABI
# The headers tc.h includes (the elementwise families' declarations): tc.h's rule.
PUBLIC_PARTS = {"tc_binary_ops.h", "tc_scalar_ops.h", "tc_unary_ops.h"}
GENERATED = {"tc_constants.h"}  # in the build tree, open to every layer

# (including file, included path) -> why it stays for now. Each is a real
# upward dependency whose removal is a change of its own, not a moved line.
EXCEPTIONS = {
    # The registry of backends registers the CPU backend's table: it sits
    # above cpu/ by nature (the CUDA table arrives through the loader instead).
    ("backend/backend.cpp", "cpu/cpu_backend.h"):
        "the backend registry constructs the CPU table; moving the registration "
        "into cpu/ needs a registration hook run by the cpu init stage",
    # A primitive's generic form, for a backend without its own kernel, is
    # built from the ops (PyTorch's composite kernels); the CUDA module
    # compiles these files too and reaches the ops through its host table.
    ("backend/backend_defaults.cpp", "ops/ops.h"):
        "generic forms of primitives composed from ops (sum_to_size, mean, ...)",
    ("backend/backend_norm_defaults.cpp", "ops/ops.h"):
        "generic norm forward/backward composed from ops",
    ("backend/composite.h", "ops/ops.h"):
        "the arithmetic the generic forms compose, as the CUDA module can call it",
    # The CUDA module's host table lists the core and op functions its kernels
    # call back (generic forms built from ops: binary, sum, sum_to_size).
    ("backend/cuda_module_api.h", "dist/nccl_api.h"):
        "the module returns the NCCL table with its backend tables; nccl_api.h "
        "is a plain C table and could move to backend/",
    ("backend/cuda_loader.h", "dist/nccl_api.h"):
        "as cuda_module_api.h: the loader hands the module's NCCL table to dist/",
    ("backend/cuda_loader.cpp", "ops/ops.h"):
        "the host table passes ops::binary, ops::sum, ... to the CUDA module, "
        "whose kernels compose them; a backend-level form of those is a larger change",
    ("cuda/host_forward.cpp", "ops/ops.h"):
        "defines the module's forwarders of the host table, ops:: functions included",
    ("cuda/module.h", "dist/nccl_api.h"):
        "the module's entry point returns the NCCL table (see cuda_module_api.h)",
    ("cuda/nccl.cpp", "dist/nccl_api.h"):
        "the NCCL backend of process groups implements dist/'s C table",
    # copy, the generator, init and flags are core services that run backends.
    ("core/copy.cpp", "backend/backend.h"):
        "a copy between devices or dtypes dispatches to the device's backend",
    ("core/rng.cpp", "backend/backend.h"):
        "the generator fills tensors through the device's backend",
    ("core/init.cpp", "backend/cuda_loader.h"):
        "the staged init runs the lazy cuda stage (the loader)",
    ("core/flags.cpp", "backend/cuda_loader.h"):
        "the flags report the CUDA module's state",
    ("core/flags.cpp", "backend/cuda_probe.h"):
        "the flags report the CUDA probe (device count, driver)",
    ("core/format.cpp", "autograd/node.h"):
        "a tensor's printout names its grad_fn (the node's name)",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    """The layer of a path relative to src/ (its first folder), or None."""
    top = rel.split("/", 1)[0]
    return top if top in ALLOWED and "/" in rel else None


def resolve(src, including_rel, inc):
    """The included file relative to src/, TC_H for tc.h, or None (system, generated)."""
    if inc == TC_H or inc in PUBLIC_PARTS or inc.endswith("/" + TC_H) and not os.path.exists(os.path.join(src, inc)):
        return TC_H
    here = os.path.dirname(including_rel)
    for cand in (os.path.normpath(os.path.join(here, inc)), os.path.normpath(inc)):
        if os.path.exists(os.path.join(src, cand)):
            return cand
    return None


def check(src):
    violations, used = [], set()
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".h", ".hpp", ".cpp", ".cu", ".cuh", ".def", ".inc")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            layer = layer_of(rel)
            if layer is None:
                violations.append(f"{rel}: a source outside the layer folders ({', '.join(ORDERED)})")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if inc in GENERATED:
                        continue
                    target = resolve(src, rel, inc)
                    if target == TC_H:
                        if layer != "abi":
                            violations.append(f"{rel}:{lineno}: includes tc.h; only abi/ may "
                                              "(use tc_constants.h for its constants)")
                        continue
                    if target is None:
                        violations.append(f"{rel}:{lineno}: #include \"{inc}\" names no file under src/")
                        continue
                    to = layer_of(target)
                    if to is None or to == layer or to in ALLOWED[layer]:
                        continue
                    if (rel, target) in EXCEPTIONS:
                        used.add((rel, target))
                        continue
                    violations.append(f"{rel}:{lineno}: {layer}/ includes {target}: {to}/ is not "
                                      f"below {layer}/ (allowed: {', '.join(sorted(ALLOWED[layer]))})")
    for key, why in EXCEPTIONS.items():
        if key not in used:
            violations.append(f"tools/check_layers.py: the exception {key[0]} -> {key[1]} no longer "
                              "matches an include: remove it")
    return violations


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    violations = check(os.path.normpath(src))
    for v in violations:
        print(v)
    if violations:
        print(f"check_layers: {len(violations)} include(s) against the layer order (docs/ARCHITECTURE.md)")
        return 1
    print("check_layers: every include goes down the layer order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
