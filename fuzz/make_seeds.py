#!/usr/bin/env python3
"""Writes the committed seed corpora in fuzz/corpus/<harness>/.

The harnesses read their input with libFuzzer's FuzzedDataProvider, which
takes integers (the choices) from the end of the input and strings and bytes
from the front; the seeds below put names at the front and the choices that
select the name parsers at the end. The other seeds are reproducible random
bytes (libFuzzer mutates from there). Re-run after changing a harness's
input layout: python3 fuzz/make_seeds.py
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["float32", "float", "double", "half", "bfloat16", "float16", "int8", "int16", "int32", "int",
         "int64", "long", "uint8", "bool", "short", "cpu", "cuda", "cuda:0", "cuda:65535", "cuda:-1",
         "num_threads", "grad_enabled", "deterministic", "default_dtype", "live_tensors",
         "live_handles", "has_cuda", "cuda_available", "fail_alloc_at", ""]


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    rng = random.Random(20261122)
    # fuzz_parsers: outer choice (last byte) 0 = names; inner choice 0..2 =
    # dtype, device, get_flag.
    for i, name in enumerate(NAMES):
        for inner in range(3):
            write("fuzz_parsers", f"name-{i:02d}-{inner}", name.encode() + b"\\\n" + bytes([inner, 0]))
    for outer in range(1, 8):  # codes, dlpack, blob, from_data, shapes, init options
        for k in range(4):
            body = bytes(rng.randrange(256) for _ in range(rng.choice([16, 64, 256, 600])))
            write("fuzz_parsers", f"kind{outer}-{k}", body + bytes([outer]))
    # fuzz_abi_sequence: random programs of several lengths.
    for k in range(40):
        n = rng.choice([8, 32, 128, 512, 1024])
        write("fuzz_abi_sequence", f"seq-{k:02d}", bytes(rng.randrange(256) for _ in range(n)))


if __name__ == "__main__":
    main()
