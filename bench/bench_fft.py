#!/usr/bin/env python3
"""FFTs in tc next to PyTorch 1.13, float32, in one run (1 and 2 threads, each library and
thread count in a fresh process); prints the median time of each and the ratio tc / torch
(target <= 1.0x).

Cases:
  rfft_1m   tc.fft.rfft of 2^20 real samples.
  stft_10s  tc.stft of 10 s of 16 kHz audio: n_fft 400, hop 160, Hann window, complex result
            (the front end of speech models).

The header names the FFT backend of the libtc measured (tc.config()'s FFT line: libtc's own
or FFTW). --before LIB [--before-py DIR] adds a column for another libtc (and its Python
package), e.g. a build of the previous commit, measured in the same run.

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_fft.py [--reps 20] [--threads 1,2]
"""

import argparse
import json
import os
import subprocess
import sys

from bench_timing import median_times

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
CASES = ["rfft_1m", "stft_10s"]


def _import(lib):
    if lib == "torch":
        import torch
        return torch
    sys.path.insert(0, os.environ.get("BENCH_TC_PY") or os.path.join(REPO, "bindings", "python_ctypes"))
    import tc
    import tc.fft  # noqa: F401
    return tc


def child(lib, case, reps, threads):
    m = _import(lib)
    m.set_num_threads(threads)
    m.manual_seed(0)
    if case == "rfft_1m":
        x = m.randn(1 << 20)
        run = lambda: m.fft.rfft(x)  # noqa: E731
    else:
        x = m.randn(16000 * 10)
        w = m.hann_window(400)
        run = lambda: m.stft(x, 400, hop_length=160, window=w, return_complex=True)  # noqa: E731
    t = median_times(run, reps)
    print(json.dumps({"wall": t["wall"], "cpu": t["cpu"]}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--child", nargs=3)
    p.add_argument("--before", help="another libtc.so to measure in the same run (e.g. the previous commit's)")
    p.add_argument("--before-py", help="the Python package directory to use with --before")
    a = p.parse_args()
    if a.child:
        child(a.child[0], a.child[1], a.reps, int(a.child[2]))
        return
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    fft_line = [ln.strip() for ln in _import("tc").config().splitlines() if ln.strip().startswith("FFT:")]
    print("libtc %s" % (fft_line[0] if fft_line else "FFT: (not reported: libtc's own before the FFT line)"))
    libs = [("tc", env)]
    if a.before:
        before_env = dict(env, TC_LIBRARY=a.before)
        if a.before_py:
            before_env["BENCH_TC_PY"] = a.before_py
        libs.append(("before", before_env))
    extra = "%12s %9s" % ("before ms", "bef/torch") if a.before else ""
    print("%-10s %8s %12s %12s %9s %8s %s" % ("case", "threads", "tc ms", "torch ms", "tc/torch", "target", extra))
    for case in CASES:
        for t in map(int, a.threads.split(",")):
            r = {}
            for name, lib_env in libs + [("torch", env)]:
                lib = "torch" if name == "torch" else "tc"
                out = subprocess.run([sys.executable, __file__, "--reps", str(a.reps), "--child", lib, case, str(t)],
                                     env=lib_env, capture_output=True, text=True, check=True).stdout
                r[name] = json.loads(out.strip().splitlines()[-1])["wall"]
            ratio = r["tc"] / r["torch"]
            extra = ("%12.3f %8.2fx" % (1e3 * r["before"], r["before"] / r["torch"])) if a.before else ""
            print("%-10s %8d %12.3f %12.3f %8.2fx %8s %s" % (case, t, 1e3 * r["tc"], 1e3 * r["torch"], ratio,
                                                            "<=1.0x", extra))
            print("RESULT fft_%s_t%d libtc %.6g ms" % (case, t, 1e3 * r["tc"]))
            print("RESULT fft_%s_t%d torch %.6g ms" % (case, t, 1e3 * r["torch"]))


if __name__ == "__main__":
    main()
