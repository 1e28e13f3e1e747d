#!/usr/bin/env python3
"""One-off helper: converts hand-written custom rows of ops/ops.toml to `args`.

    /usr/bin/python3 tools/convert_custom_rows.py TOPIC NAME...

For each named row (a custom row with `params`) it derives the argument roles
from the C parameters and the hand-written shim (src/abi/*.cpp), writes
`args` (and `core`, `header`, `misuse_extras`) into the row, deletes the shim,
moves the misuse row's extra cases into `<name>_extras()` in
tests/gtest/misuse_extras_<TOPIC>.inc and deletes the row, and deletes the
hand-written Rust method when the generated one has the same signature (else
marks the row rust = "hand"). A row whose shim is not mechanical, or whose
misuse row does not parse, is reported and left alone (or keeps its misuse
row: misuse = "hand"). The fuzz cases are deleted by hand. Run gen_ops.py
afterwards; review the diff.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops  # noqa: E402

REPO = gen_ops.REPO


def read(rel):
    with open(os.path.join(REPO, rel), encoding="utf-8") as f:
        return f.read()


def write(rel, text):
    with open(os.path.join(REPO, rel), "w", encoding="utf-8") as f:
        f.write(text)


def match_paren(text, i, open_="(", close=")"):
    """Index just past the bracket closing the one at text[i] (skips strings)."""
    depth, k = 0, i
    while k < len(text):
        c = text[k]
        if text.startswith("//", k):  # a comment (may hold an apostrophe)
            k = text.index("\n", k)
            continue
        if c == '"':
            k += 1
            while text[k] != '"':
                k += 2 if text[k] == "\\" else 1
        elif c == "'":
            k += 1
            while text[k] != "'":
                k += 2 if text[k] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    raise ValueError("unbalanced")


def split_top(text):
    """Splits at top-level commas."""
    parts, depth, cur, k = [], 0, "", 0
    while k < len(text):
        c = text[k]
        if c == '"':
            j = k + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur += text[k:j + 1]
            k = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
        k += 1
    if cur.strip():
        parts.append(cur.strip())
    return parts


def find_shim(name):
    for f in sorted(glob.glob(os.path.join(REPO, "src/abi/*.cpp"))):
        rel = os.path.relpath(f, REPO)
        if rel == "src/abi/ops_generated.cpp":
            continue
        text = read(rel)
        for m in re.finditer(r"(?:TC_API )?int32_t tc_%s\(" % re.escape(name), text):
            j = text.find("{", m.end())
            semi = text.find(";", m.end())
            if semi != -1 and semi < j:
                continue
            end = match_paren(text, j, "{", "}")
            return rel, m.start(), end, text
    return None


def split_params(params):
    """[(type, name)] of a C parameter list."""
    out = []
    for p in params.split(","):
        p = p.strip()
        m = re.fullmatch(r"(.*?)\s*\b(\w+)", p)
        out.append((m.group(1).replace(" *", "*").strip(), m.group(2)))
    return out


def derive_args(op, body):
    """The args of a row from its params and shim body, or raise ValueError."""
    ps = split_params(op["params"])
    args, i = [], 0
    while i < len(ps):
        t, n = ps[i]
        if t == "tc_tensor*":
            args.append({"name": n, "role": "out"})
        elif t == "tc_tensor":
            if re.search(r"get_optional_tensor\(%s," % n, body):
                args.append({"name": n, "role": "optional_tensor"})
            else:
                args.append({"name": n, "role": "tensor"})
        elif t == "const int64_t*" and re.search(r"in_ptr\(%s, \"%s\"\)" % (n, n), body):
            # a fixed-size array (stride, padding): its size from the table's doc conventions
            size = 4 if (op["name"], n) == ("conv2d_padded", "padding") else 3 if op["name"].endswith("3d") else 2
            args.append({"name": n, "role": "array", "size": size})
        elif t in ("const int64_t*", "const tc_tensor*"):
            if i + 1 >= len(ps) or ps[i + 1][0] != "int64_t":
                raise ValueError("pointer %s without a count" % n)
            cnt = ps[i + 1][1]
            if t == "const tc_tensor*":
                if not re.search(r"tensor_list\(%s, %s\)" % (n, cnt), body) or (n, cnt) != ("tensors", "count"):
                    raise ValueError("tensor list %s is not tensor_list(tensors, count)" % n)
                a = {"name": n, "role": "tensors"}
            elif re.search(r"dims_arg\(%s, %s, \"%s\"\)" % (n, cnt, n), body):
                a = {"name": n, "role": "dims" if n == "dims" else "ints"}
            elif re.search(r"shape_arg\(%s, %s, \"%s\"\)" % (n, cnt, n), body):
                a = {"name": n, "role": "shape"}
            else:
                raise ValueError("list %s not read by dims_arg/shape_arg" % n)
            if cnt != gen_ops.count_name(a):
                a["count"] = cnt
            args.append(a)
            i += 1
        elif t == "int64_t":
            args.append({"name": n, "role": "int"})
        elif t == "double":
            args.append({"name": n, "role": "double"})
        elif t == "int32_t":
            if re.search(r"\b%s != 0" % n, body):
                args.append({"name": n, "role": "bool"})
            elif n == "reduction":
                args.append({"name": n, "role": "reduction"})
            elif re.search(r"dtype_arg\(%s, \"%s\"\)" % (n, n), body):
                args.append({"name": n, "role": "dtype"})
            elif re.search(r"check_device\(%s, \"%s\"\)" % (n, n), body):
                args.append({"name": n, "role": "device"})
            else:
                args.append({"name": n, "role": "int32"})
        else:
            raise ValueError("parameter type %r" % t)
        i += 1
    return args


def core_call(body):
    """(namespace, name, [arg texts]) of the core call in a shim body."""
    p = re.search(r"op1\(__func__, (\w+), out, (ops|la)::(\w+)\)", body)
    if p:  # op1 with the core function itself (one tensor, fetched as "a")
        return p.group(2), p.group(3), ["get_tensor(%s, \"a\")" % p.group(1)]
    m = re.search(r"\b(ops|la|tc::ops)::(\w+)\(", body)
    if not m:
        raise ValueError("no core call")
    start = m.end() - 1
    end = match_paren(body, start)
    return m.group(1), m.group(2), split_top(body[start + 1:end - 1])


def check_shim(op, args, body):
    """Raises ValueError unless the shim is: outs checked, core called with the
    non-out args in order (tensors fetched under their own names), results handed out."""
    ns, core, call = core_call(body)
    first = args[0]["name"]
    # op1/op2 pass the first tensor (fetched as "a") to a lambda parameter x.
    lam = re.search(r"\[[&]?\]\(const Tensor& (\w+)\)", body)
    expect = []
    for a in args:
        r, n = a["role"], a["name"]
        if r == "out":
            continue
        expect.append({"tensor": "get_tensor(%s, \"%s\")" % (n, n),
                       "optional_tensor": "get_optional_tensor(%s, \"%s\")" % (n, n),
                       "tensors": "tensor_list(%s, %s)" % (n, a.get("count", "count")),
                       "dims": "dims_arg(%s, %s, \"%s\")" % (n, gen_ops.count_name(a), n),
                       "ints": "dims_arg(%s, %s, \"%s\")" % (n, gen_ops.count_name(a), n),
                       "shape": "shape_arg(%s, %s, \"%s\")" % (n, gen_ops.count_name(a), n),
                       "array": "in_ptr(%s, \"%s\")" % (n, n),
                       "bool": "%s != 0" % n,
                       "dtype": "dtype_arg(%s, \"%s\")" % (n, n),
                       "device": "check_device(%s, \"%s\")" % (n, n)}.get(r, n))
    got = [re.sub(r"\btc::", "", c) for c in call]
    # Shims that read an arg into a local first (const Dims shape = shape_arg(...)).
    for k, g in enumerate(got):
        m = re.search(r"(?:const )?(?:tc::)?\w+ %s = ((?:tc::)?\w+\(.*?\));" % re.escape(g), body)
        if m and re.fullmatch(r"\w+", g):
            got[k] = re.sub(r"\btc::", "", m.group(1))
    if lam:
        got = ["get_tensor(%s, \"%s\")" % (first, first) if g == lam.group(1) else g for g in got]
        if first != "a":
            args[0]["label"] = "a"  # op1/op2 fetched it under the name "a": keep the message
    if got != expect:
        raise ValueError("core call %s(%s) is not %s" % (core, ", ".join(got), ", ".join(expect)))
    # Anything else in the body than the mechanical statements is an extra check.
    rest = body
    if any(a["role"] == "reduction" for a in args):
        # The core checks the code too (ops/nn.cpp, ops/losses.cpp check_reduction).
        rest = re.sub(r"\n\s*check_reduction\(reduction\);", "", rest)
    rest = re.sub(r"in_ptr\((%s), \"\1\"\)" % "|".join(a["name"] for a in args if a["role"] == "array") or "^$",
                  "", rest)
    for pat in (r"TC_CHECK", r"check_reduction", r"in_ptr", r"write_pair", r"pieces_out", r"handles_out",
                r"strnlen", r"index_list"):
        if re.search(pat, rest):
            raise ValueError("shim does more: %s" % pat)
    outs = [a["name"] for a in args if a["role"] == "out"]
    for o in outs:
        if not re.search(r"\bop[12]\(", body) and "out_ptr(%s, \"%s\")" % (o, o) not in body:
            raise ValueError("out %s not checked by name" % o)
    return ns, core


def find_misuse(name):
    """(file, start, end, text) of the misuse row of tc_<name>."""
    files = ["tests/gtest/test_misuse.cpp"] + sorted(
        os.path.relpath(f, REPO) for f in glob.glob(os.path.join(REPO, "tests/gtest/misuse_*.inc"))
        if "generated" not in f and "extras_" not in f)
    for rel in files:
        text = read(rel)
        m = re.search(r"FN\(tc_%s\)" % re.escape(name), text)
        if not m:
            continue
        # the enclosing add(
        k = text.rfind("add(", 0, m.start())
        end = match_paren(text, k + 3)
        if text[end] == ";":
            end += 1
        start = text.rfind("\n", 0, k) + 1
        return rel, start, end, text
    return None


def parse_misuse(name, args, row):
    """(updated args, extras expression or None) from a hand misuse row's text, or raise ValueError."""
    inner = row[row.index("add(") + 4:row.rindex(")")]
    inner = inner.strip()
    if not inner.startswith("E("):
        raise ValueError("wrapped entry (%s)" % inner[:12])
    e_args = split_top(inner[2:inner.rindex(")")])
    if not e_args[0].startswith("FN("):
        raise ValueError("entry without FN")
    sig = e_args[1].strip('"')
    lam = e_args[2]
    extras = e_args[3] if len(e_args) > 3 else None
    m = re.fullmatch(r"\[\]\(M& m\) \{\s*(.*?)return tc_%s\((.*)\);\s*\}" % re.escape(name), lam, re.S)
    if not m:
        raise ValueError("valid call does not parse")
    pre, call = re.sub(r"//[^\n]*", "", m.group(1)), split_top(m.group(2))
    # int64_t s[] = {1}, d[] = {2};  ->  one declaration each
    pre = re.sub(r"\}, (\w+)\[\] = \{", lambda d: "}; int64_t %s[] = {" % d.group(1), pre)
    arrays = {}
    for d in re.finditer(r"(?:int64_t|tc_tensor) (\w+)\[\] = \{(.*?)\};", pre):
        arrays[d.group(1)] = [x.strip() for x in d.group(2).split(",") if x.strip()]
    if re.sub(r"(?:int64_t|tc_tensor) (\w+)\[\] = \{(.*?)\};", "", pre).strip():
        raise ValueError("valid call has other statements")
    new, k = [], 0
    for a in args:
        a = dict(a)
        r = a["role"]
        if r == "out":
            if not call[k].startswith("m.O("):
                raise ValueError("out %s is %s" % (a["name"], call[k]))
            k += 1
        elif r in gen_ops.TENSOR_ROLES:
            h = re.fullmatch(r"m\.H\(\d+, (.*)\)", call[k])
            if not h:
                raise ValueError("tensor %s is %s" % (a["name"], call[k]))
            v = h.group(1)
            if v.startswith("m.f."):
                if v != "m.f.a":
                    a["fixture"] = v[4:]
            else:
                a["valid"] = v
            k += 1
        elif r == "array":
            p = re.fullmatch(r"m\.P\(\d+, (\w+)\)", call[k])
            if not p or p.group(1) not in arrays:
                raise ValueError("array %s is %s" % (a["name"], call[k]))
            a["valid"] = [int(v) for v in arrays[p.group(1)]]
            k += 1
        elif r in gen_ops.LIST_ROLES:
            p = re.fullmatch(r"m\.P\(\d+, (\w+)\)", call[k])
            if not p or p.group(1) not in arrays:
                raise ValueError("list %s is %s" % (a["name"], call[k]))
            vals = arrays[p.group(1)]
            if call[k + 1] != str(len(vals)):
                raise ValueError("list %s count %s" % (a["name"], call[k + 1]))
            if r == "tensors":
                a["valid"] = [v[4:] if v.startswith("m.f.") else v for v in vals]
            else:
                a["valid"] = [int(v) for v in vals]
            k += 2
        else:
            v = call[k]
            default = gen_ops.c_valid({"role": r, "name": a["name"]})
            if v != default:
                if re.fullmatch(r"-?\d+", v):
                    a["valid"] = int(v) if r != "double" else float(v)
                elif re.fullmatch(r"-?\d+\.\d*(e-?\d+)?|-?\d+e-?\d+", v) and r == "double":
                    a["valid"] = float(v)
                else:
                    a["valid"] = v
            k += 1
        new.append(a)
    if k != len(call):
        raise ValueError("call has %d args, roles %d" % (len(call), k))
    gen_sig = "".join(gen_ops.ROLES[a["role"]][1] for a in new)
    return new, sig, gen_sig, extras


def strip_role_extras(extras, args, name):
    """Removes from the hand extras the cases the roles now give (dim_extras,
    reduction_extras, reduce_extras); returns the rest, or None when empty."""
    if extras is None:
        return None
    roles = {a["role"] for a in args}
    helpers = []
    if "dim" in roles:
        helpers.append("dim_extras")
    if "reduction" in roles:
        helpers.append("reduction_extras")
    if "dims" in roles:
        helpers.append("reduce_extras")
    for h in helpers:
        while True:
            m = re.search(r"\b%s\(" % h, extras)
            if not m:
                break
            end = match_paren(extras, m.end() - 1)
            before = extras[:m.start()]
            after = extras[end:]
            if re.search(r"auto (\w+) =\s*$", before):
                extras = re.sub(r"auto (\w+) =\s*$", r"std::vector<Extra> \1", before) + after
            elif before.strip() == "" and after.strip() == "":
                return None
            elif re.search(r"concat\(\{\s*$", before):
                extras = before + after.lstrip().lstrip(",")
            else:
                raise ValueError("cannot strip %s" % h)
    return extras


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[%s]" % ", ".join(toml_value(x) for x in v)
    return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')


def toml_args(args):
    lines = []
    for a in args:
        kv = ["%s = %s" % (k, toml_value(a[k])) for k in ("name", "role", "size", "valid", "fixture", "count", "range", "label")
              if k in a]
        lines.append("    { %s }," % ", ".join(kv))
    return "args = [\n%s\n]" % "\n".join(lines)


def rust_sig(text):
    """The normalized signature `fn name(types) -> ret` of a Rust method text."""
    m = re.search(r"pub fn (\w+)\((.*?)\)\s*->\s*([^{]+)\{", text, re.S)
    if not m:
        return None
    params = []
    for p in split_top(m.group(2)):
        p = " ".join(p.split())
        if p in ("&self", "&mut self"):
            params.append(p)
        else:
            params.append(p.split(":", 1)[1].strip())
    return m.group(1), tuple(params), " ".join(m.group(3).split())


def find_rust(name):
    """(file, start, end, text) of the hand Rust method calling sys::tc_<name>, with its doc comment."""
    for f in sorted(glob.glob(os.path.join(REPO, "bindings/rust/tc/src/**/*.rs"), recursive=True)):
        rel = os.path.relpath(f, REPO)
        if rel.endswith("ops_generated.rs"):
            continue
        text = read(rel)
        for m in re.finditer(r"\n    pub fn (\w+)\(", text):
            j = text.index("{", text.index(")", m.end()) if "->" not in text[m.end():m.end() + 400] else text.index("->", m.end()))
            end = match_paren(text, j, "{", "}")
            if "sys::tc_%s(" % name not in text[m.start():end] and "sys::tc_%s)" % name not in text[m.start():end]:
                continue
            start = m.start() + 1
            # the doc comment and attributes above
            while True:
                prev = text.rfind("\n", 0, start - 1) + 1
                line = text[prev:start - 1].strip()
                if line.startswith("///") or line.startswith("#["):
                    start = prev
                else:
                    break
            return rel, start, end, text
    return None


def main(argv):
    topic, names = argv[0], argv[1:]
    table = read("ops/ops.toml")
    ops = {o["name"]: o for o in gen_ops.load()}
    extras_file = "tests/gtest/misuse_extras_%s.inc" % topic
    extras_text = read(extras_file) if os.path.exists(os.path.join(REPO, extras_file)) else (
        "// The misuse cases of the %s rows of ops/ops.toml that their argument roles\n"
        "// do not give (the rows' misuse_extras), compiled in\n"
        "// misuse_table_generated.cpp (add its #include there).\n" % topic.replace("_", " "))
    for name in names:
        op = ops[name]
        if "args" in op:
            print("%s: already has args" % name)
            continue
        found = find_shim(name)
        if not found:
            print("%s: SKIP no shim" % name)
            continue
        rel, s0, s1, text = found
        body = text[s0:s1]
        try:
            args = derive_args(op, body)
            ns, core = check_shim(op, args, body)
        except ValueError as e:
            print("%s: SKIP shim: %s" % (name, e))
            continue
        row = {"args": args}
        if core != name:
            row["core"] = core if ns != "la" else "linalg::" + core
        if ns == "la":
            row["header"] = "ops/linalg_ops.h"
            if core == name:
                row["core"] = "linalg::" + core
        # misuse
        mis = find_misuse(name)
        misuse_hand = False
        if not mis:
            print("%s: no misuse row found" % name)
            misuse_hand = True
        else:
            mrel, m0, m1, mtext = mis
            try:
                if "dim_extras(" in mtext[m0:m1]:
                    for a in args:
                        if a["name"] == "dim" and a["role"] == "int":
                            a["role"] = "dim"
                new_args, sig, gen_sig, extras = parse_misuse(name, args, mtext[m0:m1])
                extras = strip_role_extras(extras, new_args, name)
                if sig != gen_sig:
                    print("%s: note sig %s -> %s" % (name, sig, gen_sig))
                args = new_args
                row["args"] = args
                if extras and extras.strip() in ("{}", "std::vector<Extra>{}"):
                    extras = None
                if extras:
                    fn = "%s_row_extras" % name
                    row["misuse_extras"] = fn
                    body_x = extras.strip()
                    iife = re.fullmatch(r"\[&?\] \{(.*)\}\(\)", body_x, re.S)
                    if iife:
                        extras_text += "std::vector<Extra> %s() {%s}\n" % (fn, iife.group(1))
                    else:
                        extras_text += "std::vector<Extra> %s() { return %s; }\n" % (fn, body_x)
                mtext = mtext[:m0] + mtext[m1:].lstrip(" ").lstrip("\n")
                mtext = mtext.replace("#pragma weak tc_%s\n" % name, "")
                write(mrel, mtext)
            except ValueError as e:
                print("%s: misuse stays hand-written: %s" % (name, e))
                misuse_hand = True
        if misuse_hand:
            row["misuse"] = "hand"
        # rust
        tmp = dict(op, args=args)
        gen_rust = gen_ops.rust_custom(tmp)
        hand = find_rust(name)
        if hand is None:
            if gen_rust is None:
                row["rust"] = False
                print("%s: no Rust method, none generated" % name)
            else:
                print("%s: Rust method added (there was none)" % name)
        else:
            rrel, r0, r1, rtext = hand
            if gen_rust is not None and rust_sig(gen_rust) == rust_sig(rtext[r0:r1]):
                write(rrel, rtext[:r0] + rtext[r1:].lstrip(" ").lstrip("\n"))
                print("%s: Rust method now generated (%s)" % (name, rrel))
            else:
                row["rust"] = "hand"
                print("%s: Rust stays hand-written: %s vs %s" % (
                    name, rust_sig(rtext[r0:r1]), rust_sig(gen_rust) if gen_rust else None))
        # the shim
        text = read(rel)
        s0, s1 = find_shim(name)[1:3]
        write(rel, text[:s0] + text[s1:].lstrip("\n"))
        # the table: params -> args (+ keys), after the row's last key
        m = re.search(r'\nname = "%s"\n(.*?)(?=\n\[\[|\n# -|\Z)' % re.escape(name), table, re.S)
        block = m.group(0)
        nb = re.sub(r'\nparams = "[^"]*"', "", block)
        extra = [toml_args(args)]
        for k in ("core", "header", "misuse_extras", "misuse", "rust"):
            if k in row:
                extra.append("%s = %s" % (k, toml_value(row[k])))
        nb = nb.rstrip("\n") + "\n" + "\n".join(extra) + "\n"
        table = table.replace(block, nb)
        print("%s: converted (%s)" % (name, ", ".join("%s:%s" % (a["name"], a["role"]) for a in args)))
    write("ops/ops.toml", table)
    write(extras_file, extras_text)


if __name__ == "__main__":
    main(sys.argv[1:])
