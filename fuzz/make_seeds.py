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
    # fuzz_safetensors: small valid files of every dtype, metadata, a
    # misaligned header, and a few near misses.
    for name, data in safetensors_seeds():
        write("fuzz_safetensors", name, data)


def safetensors_file(entries, metadata=None, pad=True):
    """entries: (name, dtype, shape, raw bytes) in data order."""
    import json
    import struct
    header, offset = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in entries:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(e[3] for e in entries)


def safetensors_seeds():
    import struct
    f32 = struct.pack("<4f", 1, 2, 3, 4)
    yield "one-f32", safetensors_file([("w", "F32", [2, 2], f32)])
    yield "empty", safetensors_file([])
    yield "metadata", safetensors_file([("b", "I64", [1], struct.pack("<q", -5))], {"format": "pt"})
    yield "dtypes", safetensors_file([
        ("f64", "F64", [1], struct.pack("<d", 0.5)), ("i64", "I64", [], struct.pack("<q", 7)),
        ("f32", "F32", [1], struct.pack("<f", 2)), ("i32", "I32", [1], struct.pack("<i", -1)),
        ("bf16", "BF16", [1], b"\x80\x3f"), ("f16", "F16", [1], b"\x00\x3c"), ("i16", "I16", [1], b"\xff\xff"),
        ("i8", "I8", [2], b"\x01\x80"), ("u8", "U8", [0], b""), ("bool", "BOOL", [2], b"\x00\x01")])
    yield "misaligned", safetensors_file([("x", "U8", [3], b"abc"), ("d", "F64", [1], struct.pack("<d", 1))],
                                         pad=False)
    yield "overlap", safetensors_file([("a", "F32", [4], f32)])[:-4] + b"\x00" * 2
    yield "bad-dtype", safetensors_file([("w", "F32", [2, 2], f32)]).replace(b"F32", b"U32")


if __name__ == "__main__":
    main()
