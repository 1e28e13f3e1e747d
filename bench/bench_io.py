#!/usr/bin/env python3
"""Save/load throughput of a ~100 MB state dict: tc (safetensors through
libtc) side by side with torch.save/torch.load of the same tensors, in one
run; prints times, MB/s and ratios (tc / torch: below 1.0 means tc is
faster).

  1. save: tc.save_file (atomic: temp file, fsync, rename, fsync of the
     directory) vs torch.save (no fsync: so also tc without the fsync cost is
     shown, as save_bytes + a plain write)
  2. load, memory-mapped (tc.load_file: zero-copy views; nothing read yet)
  3. load, mapped and then every byte read (a sum over each tensor)
  4. load, copied into memory (tc.load_file(mmap=False)) vs torch.load

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_io.py [--mb 100] [--repeat 3] [--dir DIR]
Loads after the first run the same file from the page cache (like torch's);
the median of --repeat runs is shown.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python_ctypes"))


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    args = ap.parse_args()

    import numpy as np
    import torch

    import tc

    torch.set_num_threads(1)
    tc.set_num_threads(1)
    # A transformer-ish state dict: square weights, biases, an embedding.
    rng = np.random.default_rng(0)
    n_floats = int(args.mb * 1e6 / 4)
    shapes, left = [], n_floats
    while left > 0:
        d = 512
        for s in ((d, d), (d,), (4 * d, d), (4 * d,), (d, 4 * d)):
            if left <= 0:
                break
            shapes.append(s)
            left -= int(np.prod(s))
    arrays = {"layer%03d.p%d" % (i // 5, i % 5): rng.standard_normal(s, dtype=np.float32)
              for i, s in enumerate(shapes)}
    nbytes = sum(a.nbytes for a in arrays.values())
    tc_sd = {k: tc.from_numpy(v) for k, v in arrays.items()}
    torch_sd = {k: torch.from_numpy(v) for k, v in arrays.items()}
    mb = nbytes / 1e6
    tc_path = os.path.join(args.dir, "bench_io_%d.safetensors" % os.getpid())
    torch_path = os.path.join(args.dir, "bench_io_%d.pt" % os.getpid())
    raw_path = os.path.join(args.dir, "bench_io_%d.raw" % os.getpid())

    def tc_save_nofsync():
        with open(raw_path, "wb") as f:
            f.write(tc.serialization.save_bytes(tc_sd))

    def touch_all(sd, sum_fn):
        for v in sd.values():
            sum_fn(v)

    rows = []
    try:
        t_tc_save = median_time(lambda: tc.save_file(tc_sd, tc_path), args.repeat)
        t_tc_save_nf = median_time(tc_save_nofsync, args.repeat)
        t_torch_save = median_time(lambda: torch.save(torch_sd, torch_path), args.repeat)
        rows.append(("save (tc atomic+fsync vs torch.save)", t_tc_save, t_torch_save))
        rows.append(("save (tc bytes+write, no fsync vs torch.save)", t_tc_save_nf, t_torch_save))

        t_tc_map = median_time(lambda: tc.load_file(tc_path), args.repeat)
        t_torch_load = median_time(lambda: torch.load(torch_path), args.repeat)
        rows.append(("load mmap (tc, lazy vs torch.load)", t_tc_map, t_torch_load))
        t_tc_map_read = median_time(lambda: touch_all(tc.load_file(tc_path), lambda t: t.sum()), args.repeat)
        t_torch_read = median_time(lambda: touch_all(torch.load(torch_path), lambda t: t.sum()), args.repeat)
        rows.append(("load mmap + read every byte (vs torch.load + read)", t_tc_map_read, t_torch_read))
        t_tc_copy = median_time(lambda: tc.load_file(tc_path, mmap=False), args.repeat)
        rows.append(("load copied (tc mmap=False vs torch.load)", t_tc_copy, t_torch_load))

        # Correctness of what was timed.
        back = tc.load_file(tc_path)
        assert all(back[k].numpy().tobytes() == arrays[k].tobytes() for k in arrays)
    finally:
        for p in (tc_path, torch_path, raw_path):
            if os.path.exists(p):
                os.remove(p)

    print("bench_io: %d tensors, %.1f MB float32, median of %d, dir %s" % (len(arrays), mb, args.repeat, args.dir))
    print("%-52s %10s %10s %10s %8s" % ("case", "tc ms", "torch ms", "tc MB/s", "tc/torch"))
    for name, t_tc, t_torch in rows:
        print("%-52s %10.1f %10.1f %10.0f %8.3f" % (name, 1e3 * t_tc, 1e3 * t_torch, mb / t_tc, t_tc / t_torch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
