#!/usr/bin/env bash
# Installs every Debian package libtc needs (once), then configures and
# builds it (Release, -j2) in build/. Idempotent: a second run only rebuilds
# what changed. Options via environment: BUILD_DIR, CMAKE_ARGS, JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config zlib1g-dev
  libdnnl-dev ocl-icd-opencl-dev libomp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-pytest python3-numpy python3-torch python3-venv python3-pip python3-setuptools python3-wheel python3-mypy
  libopenblas0-openmp libopenblas-dev liblapacke-dev
  bindgen clang libclang-rt-14-dev doxygen
  nlohmann-json3-dev
  libopenmpi-dev openmpi-bin
)
# Optional, not installed here: libfftw3-dev for CMAKE_ARGS="-DTC_WITH_FFTW=ON" (torch.fft
# on FFTW; FFTW is GPL, so such a libtc is under the GPL).
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
# Ninja for a new build directory: it rebuilds only the objects whose command
# changed (the precompiled headers are used only with it: CMakeLists.txt). An
# existing directory keeps its generator.
GENERATOR=()
[ -f "$BUILD_DIR/CMakeCache.txt" ] || GENERATOR=(-G Ninja)
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
