"""setuptools build of the `libtc` distribution (import name `tc`).

The package is pure Python (ctypes) but ships libtc.so in tc/lib/, so the
wheel is a platform wheel (py3-none-linux_x86_64: any Python 3, this OS and
CPU architecture) and `import tc` needs no environment variable. Builds
offline with Debian's setuptools and wheel:

    pip install --no-build-isolation ./bindings/python_ctypes
    pip wheel --no-build-isolation --no-deps -w dist ./bindings/python_ctypes

Which libtc is bundled, in order:
  1. TC_LIBRARY=/path/to/libtc.so (or a directory holding it);
  2. the newest <repo>/build*/libtc.so of a portable build (not TC_NATIVE=ON,
     whose library runs only on CPUs like the build machine's, and not a
     sanitizer build), when this is a source checkout;
  3. otherwise libtc is built here with CMake (Release, no tests, CUDA only if
     TC_WITH_CUDA=ON is in the environment), in this package's build directory.
The CUDA and MPI modules (libtc_cuda.so, libtc_mpi.so) found beside that
libtc.so are bundled too: libtc loads them from its own directory.
"""
import glob
import os
import platform
import shutil
import subprocess
import sysconfig

from setuptools import Distribution, find_packages, setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel package: plain installs still work
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def _cache_value(build_dir, key):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


def _portable_build(build_dir):
    native = _cache_value(build_dir, "TC_NATIVE").upper() in ("ON", "1", "TRUE", "YES")
    return not native and not _cache_value(build_dir, "TC_SANITIZE")


def find_library():
    env = os.environ.get("TC_LIBRARY")
    if env:
        if os.path.isdir(env):
            found = sorted(glob.glob(os.path.join(env, "libtc.so*")), key=len)
            return found[0] if found else None
        return env
    if not os.path.exists(os.path.join(REPO, "include", "tc.h")):
        return None
    libs = [p for p in glob.glob(os.path.join(REPO, "build*", "libtc.so"))
            if os.path.exists(p) and _portable_build(os.path.dirname(p))]
    libs.sort(key=os.path.getmtime, reverse=True)
    return libs[0] if libs else None


def build_library(build_temp):
    """Configures and builds libtc (the `tc` target only) with CMake."""
    if not os.path.exists(os.path.join(REPO, "CMakeLists.txt")):
        raise RuntimeError("libtc setup: no libtc found (set TC_LIBRARY) and no source tree to build it from")
    build_dir = os.path.abspath(os.path.join(build_temp, "libtc-cmake"))
    cmake = shutil.which("cmake")
    if not cmake:
        raise RuntimeError("libtc setup: cmake not found; install it or set TC_LIBRARY to a built libtc.so")
    subprocess.check_call([cmake, "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                           "-DTC_BUILD_TESTS=OFF", "-DTC_BUILD_BENCH=OFF",
                           "-DTC_WITH_CUDA=" + os.environ.get("TC_WITH_CUDA", "OFF")])
    subprocess.check_call([cmake, "--build", build_dir, "--target", "tc", "-j", os.environ.get("JOBS", "2")])
    return os.path.join(build_dir, "libtc.so")


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = find_library()
        if not lib:
            build_temp = self.get_finalized_command("build").build_temp
            print("libtc setup: no built libtc found; building it with CMake")
            lib = build_library(build_temp)
        real = os.path.realpath(lib)
        dest = os.path.join(self.build_lib, "tc", "lib")
        os.makedirs(dest, exist_ok=True)
        # One real file, named libtc.so (what tc._lib looks for first); its
        # SONAME does not matter to ctypes, which loads it by path.
        shutil.copy2(real, os.path.join(dest, "libtc.so"))
        print("libtc setup: bundled %s as tc/lib/libtc.so" % real)
        # The CUDA and MPI modules, which libtc loads (dlopen) from beside itself
        # on first use of a GPU / an "mpi" process group.
        for module in ("libtc_cuda.so", "libtc_mpi.so"):
            path = os.path.join(os.path.dirname(lib), module)
            if os.path.exists(path):
                shutil.copy2(os.path.realpath(path), os.path.join(dest, module))
                print("libtc setup: bundled %s as tc/lib/%s" % (path, module))


class BinaryDistribution(Distribution):
    """Holds a compiled library: installed to platlib, a platform wheel."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildWithLibrary}
if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """A platform wheel (it holds libtc.so) for any Python 3: py3-none-<platform>
        (no extension module, so no CPython ABI tag)."""

        def get_tag(self):
            return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")

    cmdclass["bdist_wheel"] = PlatformWheel

setup(
    name="libtc",
    version="0.1.0",
    description="PyTorch-like Python API over libtc's C ABI (ctypes, bundles libtc.so)",
    long_description=open(os.path.join(HERE, "README.md")).read(),
    long_description_content_type="text/markdown",
    license="MIT OR Apache-2.0",
    packages=find_packages(include=["tc", "tc.*"]),  # every subpackage, as they are added
    package_data={"tc": ["py.typed", "lib/libtc.so", "lib/libtc_cuda.so", "lib/libtc_mpi.so"]},
    python_requires=">=3.8",
    extras_require={"numpy": ["numpy"]},
    cmdclass=cmdclass,
    distclass=BinaryDistribution,
    zip_safe=False,
    platforms=[platform.system()],
)
