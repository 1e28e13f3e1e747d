#!/usr/bin/env python3
"""Runs the code blocks of a tutorial in docs/ so that it never rots.

    run_tutorial.py c      docs/tutorial_c.md      --include DIR --lib-dir DIR
    run_tutorial.py python docs/tutorial_python.md --package DIR --library FILE
    run_tutorial.py rust   docs/tutorial_rust.md   --crate DIR --lib-dir DIR --target-dir DIR

C and Rust blocks are whole programs: each is compiled and run, and must exit
0. Python blocks run in order in one interpreter, like a reader pasting them
into a session. Blocks in other languages (sh, toml) are illustration only.
Exits 77 (ctest's skip) when the language's toolchain is missing."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(path, lang):
    with open(path, encoding="utf-8") as f:
        found = [body for tag, body in FENCE.findall(f.read()) if tag == lang]
    if not found:
        sys.exit(f"run_tutorial: {path} has no ```{lang} block")
    return found


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def run_c(args, work):
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        print("SKIPPED: no C compiler")
        sys.exit(77)
    for i, body in enumerate(blocks(args.file, "c"), 1):
        src, exe = os.path.join(work, f"block{i}.c"), os.path.join(work, f"block{i}")
        with open(src, "w", encoding="utf-8") as f:
            f.write(body)
        run([cc, "-std=c11", "-Wall", "-Werror", src, "-I", args.include, "-L", args.lib_dir, "-ltc",
             f"-Wl,-rpath,{args.lib_dir}", "-lm", "-o", exe])
        run([exe])


def run_python(args, work):
    script = os.path.join(work, "tutorial.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write("\n".join(blocks(args.file, "python")))
    env = dict(os.environ, PYTHONPATH=args.package, TC_LIBRARY=args.library)
    run([sys.executable, script], env=env, cwd=work)


def run_rust(args, work):
    cargo = shutil.which("cargo")
    if not cargo:
        print("SKIPPED: cargo not found")
        sys.exit(77)
    crate = os.path.join(work, "tutorial")
    os.makedirs(os.path.join(crate, "src", "bin"))
    with open(os.path.join(crate, "Cargo.toml"), "w", encoding="utf-8") as f:
        f.write('[package]\nname = "tutorial"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
                f'[dependencies]\ntc = {{ path = "{args.crate}" }}\n\n[workspace]\n')
    bodies = blocks(args.file, "rust")
    for i, body in enumerate(bodies, 1):
        with open(os.path.join(crate, "src", "bin", f"block{i}.rs"), "w", encoding="utf-8") as f:
            f.write(body)
    env = dict(os.environ, TC_LIB_DIR=args.lib_dir, CARGO_TARGET_DIR=args.target_dir,
               LD_LIBRARY_PATH=args.lib_dir, CARGO_TERM_COLOR="never")
    run([cargo, "build", "--offline", "--bins", "-j", "2"], cwd=crate, env=env)
    for i in range(1, len(bodies) + 1):
        run([cargo, "run", "--offline", "-q", "--bin", f"block{i}"], cwd=crate, env=env)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("lang", choices=["c", "python", "rust"])
    p.add_argument("file")
    p.add_argument("--include")
    p.add_argument("--lib-dir")
    p.add_argument("--package")
    p.add_argument("--library")
    p.add_argument("--crate")
    p.add_argument("--target-dir")
    args = p.parse_args()
    for key in ("include", "lib_dir", "package", "library", "crate", "target_dir"):
        if getattr(args, key):
            setattr(args, key, os.path.abspath(getattr(args, key)))
    with tempfile.TemporaryDirectory(prefix="tc_tutorial_") as work:
        {"c": run_c, "python": run_python, "rust": run_rust}[args.lang](args, work)
    print(f"run_tutorial: {args.file}: every {args.lang} block ran")


if __name__ == "__main__":
    main()
