"""setuptools build of the pure-Python `tc` package.

The library is found at build time and copied into tc/lib/ (the installed
package then finds it without any environment variable):
  TC_LIBRARY=/path/to/libtc.so (or a directory holding it), else the newest
  <repo>/build*/libtc.so*. Without either, the package is built without a
  library and finds one at import time through TC_LIBRARY.
"""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def find_library():
    env = os.environ.get("TC_LIBRARY")
    if env:
        if os.path.isdir(env):
            found = sorted(glob.glob(os.path.join(env, "libtc.so*")), key=len)
            return found[0] if found else None
        return env
    libs = [p for p in glob.glob(os.path.join(REPO, "build*", "libtc.so")) if os.path.exists(p)]
    libs.sort(key=os.path.getmtime, reverse=True)
    return libs[0] if libs else None


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = find_library()
        if not lib:
            print("tc setup: no libtc found (set TC_LIBRARY); the package will look for it at import")
            return
        real = os.path.realpath(lib)
        dest = os.path.join(self.build_lib, "tc", "lib")
        os.makedirs(dest, exist_ok=True)
        # One real file, named libtc.so (what tc._lib looks for first); its
        # SONAME does not matter to ctypes, which loads it by path.
        shutil.copy2(real, os.path.join(dest, "libtc.so"))
        print("tc setup: bundled %s as tc/lib/libtc.so" % real)
        # The CUDA module, which libtc's lazy cuda stage looks for beside itself.
        module = os.path.join(os.path.dirname(lib), "libtc_cuda.so")
        if os.path.exists(module):
            shutil.copy2(os.path.realpath(module), os.path.join(dest, "libtc_cuda.so"))
            print("tc setup: bundled %s as tc/lib/libtc_cuda.so" % module)


setup(
    name="tc",
    version="0.1.0",
    description="PyTorch-like Python API over libtc's C ABI (ctypes, no compiled extension)",
    packages=["tc", "tc.nn", "tc.optim"],
    python_requires=">=3.8",
    extras_require={"numpy": ["numpy"]},
    cmdclass={"build_py": BuildWithLibrary},
    zip_safe=False,
)
