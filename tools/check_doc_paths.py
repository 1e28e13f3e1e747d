#!/usr/bin/env python3
"""Fails on a path in the docs or in a source comment that names nothing in the repository.

Docs and comments point at files ("see docs/PERF_RNN.md", "tests/python/test_rnn.py
checks it"); a file that is renamed or deleted leaves those pointers dead. This
check reads

    README.md, DEVELOPERS.md, docs/*.md       the whole text (CHANGELOG.md is history: not read)
    src/**/*.{h,hpp,cpp,cu,cuh}               comments (// and /* */)
    bindings/**/*.py, tests/**/*.py           comments and docstrings
    tests/**/*.cpp                            comments

and collects every repo-relative path in them: a token that starts with one of
ROOTS ("src/", "docs/", "tests/", ...) at a word boundary and names something
below it ("src/core/tensor.h", "tests/python/", "bindings/rust/tc"). A token
may be a pattern: "src/cpu/rows/*.cpp", "src/cpu/rows/<family>_<name>.cpp"
must match at least one file, "src/math/{unary,binary}_ops.def" and
"src/cpu/fft_plan.h/.cpp" one for each alternative. Relative
links of the Markdown files ("[x](ADDING_AN_OP.md)") are resolved from the
file's folder, and a link's #anchor must name a heading of the page it links.
Paths under build/ (generated outputs), URLs and the vendored
programs of tests/conformance/ (other people's code, kept unchanged) are
skipped. Every docs/*.md must also be linked from README.md (its list of docs
says what each holds).

Usage: tools/check_doc_paths.py [REPO]   (exit 0: every path exists, 1: dead ones, listed)
"""

import glob
import io
import os
import re
import sys
import tokenize

ROOTS = ("src", "docs", "tests", "bench", "scripts", "tools", "include", "bindings", "examples",
         "fuzz", "cmake")
# A path starts where no other path character precedes it: "build/tests/x" and
# "bindings/rust/tc/src/lib.rs" contain "tests/" and "src/" that are not roots.
PATH = re.compile(r"(?<![\w./\-$}@~])((?:%s)/[\w.\-/*{},<>+]*)" % "|".join(ROOTS))
LINK = re.compile(r"\]\(([^)\s]+)\)")
EXTENSION = re.compile(r"\.[A-Za-z0-9_*]+$")
# The vendored third-party programs: their comments are theirs.
VENDORED = ("tests/conformance/programs/",)
# (file, path) -> why: paths that name a file of another project, not of this
# one. An entry that no longer matches fails the check, so the list only shrinks.
OTHER_PROJECTS = {
    ("src/abi/dlpack.h", "include/dlpack/dlpack.h"): "the header it copies, in dmlc/dlpack",
}
SKIP_DIRS = {".git", "build", "target", "__pycache__", "node_modules"}


def clean(token):
    """The path part of a token: no trailing punctuation, line number or test id."""
    token = token.split("::", 1)[0]
    token = re.sub(r":\d+.*$", "", token)
    token = token.split("#", 1)[0]
    while token and token[-1] in ".,;:)'\"`}>":
        if token[-1] in "}>" and token.count(token[-1]) <= token.count({"}": "{", ">": "<"}[token[-1]]):
            break  # the closing brace of a pattern, not punctuation
        token = token[:-1]
    return token


def is_path(token):
    """A folder (trailing slash), a file with an extension, or a folder or file
    two levels deep or more ("bindings/rust/tc", "tests/op_libraries")."""
    if token.endswith("/"):
        return True
    last = token.rsplit("/", 1)[-1]
    return bool(EXTENSION.search(last)) or token.count("/") >= 1 and bool(last)


def expand_braces(pattern):
    """"a/{x,y}.h" -> ["a/x.h", "a/y.h"] (nested braces too); "a/x.h/.cpp" -> ["a/x.h", "a/x.cpp"]."""
    m = re.match(r"(.*/[^/]+)(\.\w+)/(\.\w+)$", pattern)
    if m:
        return [m.group(1) + m.group(2), m.group(1) + m.group(3)]
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(pattern[:m.start()] + alt + pattern[m.end():]))
    return out


def exists(repo, path):
    """Whether a path names a file or folder of the repository; a pattern must
    match one for each of its brace alternatives."""
    for p in expand_braces(path):
        p = re.sub(r"<[^<>/]*>", "*", p)  # "<topic>" is a placeholder
        full = os.path.join(repo, p)
        if "*" in p or "?" in p:
            found = glob.glob(full)
        else:
            found = os.path.isdir(full) if p.endswith("/") else os.path.exists(full)
        if not found:
            return False
    return True


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file: lower case,
    punctuation dropped, spaces as hyphens, "-1", "-2" on repeats."""
    seen, out = {}, set()
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"^```.*?^```", "", f.read(), flags=re.S | re.M)  # no headings in code
    for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def c_comments(text):
    """(line, comment text) of // and /* */ comments, string literals skipped."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            line += text.count("\n", i, j)
            i = j + 2
        elif c == '"' or c == "'":
            if c == '"' and text[max(0, i - 1)] == "R" and text.startswith('"', i):
                m = re.match(r'"([^(\s]*)\(', text[i:])
                if m:  # raw string R"delim( ... )delim"
                    end = text.find(")" + m.group(1) + '"', i)
                    end = n if end < 0 else end
                    line += text.count("\n", i, end)
                    i = end + len(m.group(1)) + 2
                    continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def py_comments(text):
    """(line, text) of # comments and of strings that stand alone as statements (docstrings)."""
    out = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [(1, text)]  # not tokenizable: read it whole rather than miss a path
    prev = tokenize.NEWLINE
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                                      tokenize.NL, tokenize.ENCODING):
            out.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    return out


def whole(text):
    return [(i, line) for i, line in enumerate(text.split("\n"), 1)]


def sources(repo):
    """(repo-relative path, function giving (line, text) pieces) of every file read."""
    out = [(name, whole) for name in ("README.md", "DEVELOPERS.md")]
    out += [("docs/" + n, whole) for n in sorted(os.listdir(os.path.join(repo, "docs"))) if n.endswith(".md")]
    kinds = [("src", (".h", ".hpp", ".cpp", ".cu", ".cuh"), c_comments),
             ("bindings", (".py",), py_comments),
             ("tests", (".py",), py_comments),
             ("tests", (".cpp",), c_comments)]
    for top, exts, reader in kinds:
        for root, dirs, files in os.walk(os.path.join(repo, top)):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                if name.endswith(exts):
                    rel = os.path.relpath(os.path.join(root, name), repo).replace(os.sep, "/")
                    if not rel.startswith(VENDORED):
                        out.append((rel, reader))
    return out


def dead_paths(repo):
    """Every (file, line, path) whose path names nothing."""
    dead, used = [], set()
    for rel, reader in sources(repo):
        with open(os.path.join(repo, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, piece in reader(text):
            for k, sub in enumerate(piece.split("\n")):
                for m in PATH.finditer(sub):
                    token = clean(m.group(1))
                    if is_path(token) and not exists(repo, token):
                        if (rel, token) in OTHER_PROJECTS:
                            used.add((rel, token))
                        else:
                            dead.append((rel, line + k, token))
                if rel.endswith(".md"):
                    for m in LINK.finditer(sub):
                        target = clean(m.group(1))
                        if m.group(1).startswith("#") and m.group(1)[1:] not in anchors(os.path.join(repo, rel)):
                            dead.append((rel, line + k, f"{m.group(1)}: {rel} has no heading {m.group(1)}"))
                        if not target or re.match(r"[a-z]+:", target) or target.startswith("/"):
                            continue  # anchors, URLs
                        resolved = os.path.normpath(os.path.join(os.path.dirname(rel), target))
                        if resolved.startswith("build/") or resolved.startswith(".."):
                            continue
                        if not exists(repo, resolved + ("/" if target.endswith("/") else "")):
                            dead.append((rel, line + k, target))
                        elif "#" in m.group(1) and resolved.endswith(".md") and os.path.isfile(
                                os.path.join(repo, resolved)):
                            anchor = m.group(1).split("#", 1)[1]
                            if anchor not in anchors(os.path.join(repo, resolved)):
                                dead.append((rel, line + k, f"{m.group(1)}: {resolved} has no heading #{anchor}"))
    readme = os.path.join(repo, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            linked = {clean(target) for target in LINK.findall(f.read())}
        for name in sorted(os.listdir(os.path.join(repo, "docs"))):
            if name.endswith(".md") and "docs/" + name not in linked:
                dead.append(("README.md", 0, f"docs/{name} is not linked from its list of docs"))
    for rel, path in OTHER_PROJECTS:
        if (rel, path) not in used:
            dead.append(("tools/check_doc_paths.py", 0, f"OTHER_PROJECTS entry {rel} -> {path} matches "
                         "nothing any more: remove it"))
    return sorted(set(dead))


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    dead = dead_paths(repo)
    for rel, line, path in dead:
        print(f"{rel}:{line}: {path}" + ("" if " " in path else " does not exist"))
    if dead:
        print(f"check_doc_paths: {len(dead)} dead path(s) in the docs and comments")
        return 1
    print("check_doc_paths: every path named in the docs and comments exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
