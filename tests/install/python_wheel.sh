#!/bin/sh
# ctest python.wheel: the `libtc` distribution as a user gets it.
#  1. builds the wheel offline with Debian's setuptools/wheel (pip wheel
#     --no-build-isolation) from a copy of bindings/python_ctypes, bundling
#     the libtc.so this build made (TC_LIBRARY): nothing is rebuilt;
#  2. checks its name (libtc-VERSION-py3-none-linux_x86_64.whl: a platform
#     wheel) and that it holds tc/lib/libtc.so and the modules built (MODULES:
#     libtc_cuda.so, libtc_mpi.so, comma-separated);
#  3. installs it into a fresh virtual environment (--system-site-packages,
#     for numpy) and, from another directory with no TC_* variable set,
#     imports tc from the environment, computes, and runs examples/train_digits.py,
#     which must use the installed package; with the MPI module, a size-1 "mpi"
#     process group loads the wheel's libtc_mpi.so;
#  4. TC_FAIL_ALLOC_AT=1 changes nothing (the release library has no test hooks).
# Usage: python_wheel.sh PYTHON LIBTC REPO WORK [MODULES]
set -eu
python=$1 lib=$2 repo=$3 work=$4 modules=${5:-}
rm -rf "$work"
mkdir -p "$work/src" "$work/dist" "$work/elsewhere"
cp -r "$repo/bindings/python_ctypes" "$work/src/"
find "$work/src" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$work/src/python_ctypes/tc/lib" "$work/src/python_ctypes/build"
TC_LIBRARY="$lib" "$python" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$work/dist" \
  "$work/src/python_ctypes"
wheel=$(ls "$work/dist"/*.whl)
echo "built $(basename "$wheel")"
case "$(basename "$wheel")" in
  libtc-*-py3-none-linux_x86_64.whl) ;;
  *) echo "expected a platform wheel libtc-*-py3-none-linux_x86_64.whl" >&2; exit 1 ;;
esac
"$python" -c "import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); \
assert 'tc/lib/libtc.so' in names, names; assert 'tc/__init__.py' in names; \
missing = [m for m in sys.argv[2].split(',') if m and 'tc/lib/' + m not in names]; \
assert not missing, ('modules not bundled', missing); print(len(names), 'files')" "$wheel" "$modules"

"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-index --no-deps "$wheel"
cd "$work/elsewhere"
unset TC_LIBRARY TC_FAIL_ALLOC_AT PYTHONPATH
"$work/venv/bin/python" - "$work/venv" "$modules" <<'PY'
import os, sys
import tc
venv = os.path.realpath(sys.argv[1])
if "libtc_mpi.so" in sys.argv[2].split(","):
    import tc.distributed
    pg = tc.distributed.ProcessGroup("mpi")
    assert pg.size() == 1
    pg.close()
    maps = [line.split()[-1] for line in open("/proc/self/maps") if line.rstrip().endswith("libtc_mpi.so")]
    assert maps and all(os.path.realpath(m).startswith(venv) for m in maps), maps
    print("mpi module loaded from", maps[0])
assert os.path.realpath(tc.__file__).startswith(venv), tc.__file__
assert os.path.realpath(tc.library_path).startswith(venv), tc.library_path
x = tc.tensor([1.0, 2.0, 3.0])
assert (x * x).sum().item() == 14.0
assert "fail_alloc_at" not in tc.flags, list(tc.flags.keys())
print("installed tc from", os.path.dirname(tc.__file__), "with", tc.library_path)
PY
TC_FAIL_ALLOC_AT=1 "$work/venv/bin/python" -c "import tc; print('TC_FAIL_ALLOC_AT=1: import tc ok,', tc.zeros(1000).numel(), 'zeros')"
out=$("$work/venv/bin/python" "$repo/examples/train_digits.py" --epochs 1 --min-acc 0 --threads 1 \
      --save "$work/ckpt.safetensors" 2>&1) || { echo "$out"; exit 1; }
echo "$out" | tail -2
echo "$out" | grep -q "libtc $(cd "$work/venv" && pwd -P)/" ||
  { echo "examples/train_digits.py did not use the installed package" >&2; exit 1; }
