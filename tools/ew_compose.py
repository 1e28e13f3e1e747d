"""Translates the elementwise rows' backward formulas (ops/ops.toml: a unary
row's `backward`, a binary row's `grad_a`/`grad_b`, C++ expressions in g, x,
y, p, q) into compositions of recorded tc ops, for backward passes with
create_graph (src/ops/ew_grad_composed.cpp explains the value type they
use). gen_ops.py calls generate(); a formula that calls a function without a
composition (COMPOSABLE_CALLS) gets none, and the engine then reports its
node's double backward as not implemented."""

import re

# Formula function -> the composition's function (ew_grad_composed.cpp).
COMPOSABLE_CALLS = {
    "m_exp": "exp_", "::exp": "exp_", "m_sqrt": "sqrt_", "m_cos": "cos_", "m_sin": "sin_",
    "m_cosh": "cosh_", "m_sinh": "sinh_", "m_fabs": "abs_", "m_log": "log_", "::log": "log_",
    "::exp2": "exp2_", "::pow": "pow_", "::hypot": "hypot_", "::trunc": "trunc_", "::floor": "floor_",
    "::copysign": "copysign_", "sigmoid_value": "sigmoid_", "special::digamma": "digamma_",
    "special::trigamma": "trigamma_", "special::polygamma": "polygamma_", "special::mvdigamma": "mvdigamma_",
    "special::i1": "i1_", "special::erfcx": "erfcx_", "gelu_erf_grad": "gelu_erf_grad_",
    "gelu_tanh_grad": "gelu_tanh_grad_", "mish_grad": "mish_grad_", "special::i0e_grad": "i0e_grad_",
    "special::i1_grad": "i1_grad_", "special::igamma_grad_x": "igamma_grad_x_", "special::i1e_grad": "i1e_grad_", "special::log_ndtr_grad": "log_ndtr_grad_",
    "C": "", "double": "",
}
CONSTANTS = {"kSeluScale": "kSeluScale", "kSeluAlpha": "kSeluAlpha", "special::kInvSqrtPi": "kInvSqrtPi",
             "special::kInvSqrt2Pi": "kInvSqrt2Pi"}
VARIABLES = {"g", "x", "y", "p", "q"}


class Unsupported(Exception):
    """A formula with a call or name that has no composition."""


TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)|([A-Za-z_:][A-Za-z_0-9:]*)|"
                   r"(\|\||&&|==|!=|<=|>=|[-+*/<>?:(),!]))")


def tokenize(text):
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise Unsupported("cannot read %r at %d" % (text, pos))
        out.append(m.group(1) and ("num", m.group(1)) or m.group(2) and ("name", m.group(2))
                   or ("op", m.group(3)))
        pos = m.end()
    return out


class Parser:
    """Precedence climbing over C's operators, emitting C++ over the
    composition's value types (V: tensor or number, B: condition)."""

    BINARY = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/")]

    def __init__(self, text):
        self.toks = tokenize(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok[1] != want:
            raise Unsupported("expected %r, got %r" % (want, tok[1]))
        self.i += 1
        return tok

    def parse(self):
        e = self.ternary()
        if self.i != len(self.toks):
            raise Unsupported("trailing %r" % (self.peek(),))
        return e

    def ternary(self):
        cond = self.binary(0)
        if self.peek()[1] == "?":
            self.take("?")
            a = self.ternary()
            self.take(":")
            b = self.ternary()
            return "sel(g, %s, %s, %s)" % (cond, a, b)
        return cond

    def binary(self, level):
        if level == len(self.BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in self.BINARY[level]:
            op = self.take()[1]
            right = self.binary(level + 1)
            left = "(%s %s %s)" % (left, op, right)
        return left

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            return "(-%s)" % self.unary()
        if self.peek()[1] == "!":
            raise Unsupported("!")
        return self.primary()

    def primary(self):
        kind, text = self.take()
        if kind == "num":
            return "V(%s)" % (text if any(c in text for c in ".eE") else text + ".0")
        if kind == "op" and text == "(":
            e = self.ternary()
            self.take(")")
            return "(%s)" % e
        if kind == "name":
            if self.peek()[1] == "(":
                if text not in COMPOSABLE_CALLS:
                    raise Unsupported(text)
                self.take("(")
                args = [self.ternary()]
                while self.peek()[1] == ",":
                    self.take(",")
                    args.append(self.ternary())
                self.take(")")
                fn = COMPOSABLE_CALLS[text]
                if not fn:
                    if len(args) != 1:
                        raise Unsupported(text)
                    return "(%s)" % args[0]
                return "%s(%s)" % (fn, ", ".join(args))
            if text in VARIABLES:
                return text
            if text in CONSTANTS:
                return "V(%s)" % CONSTANTS[text]
        raise Unsupported(text)


def compose(formula):
    """The C++ expression for formula, or None when it has no composition."""
    if formula == "not_implemented":
        return None
    try:
        return Parser(formula).parse()
    except Unsupported:
        return None


def generate(rows):
    """ew_grad_composed_generated.inc: the switch cases and the node names
    whose every row has a composition."""
    lines = ["// Generated by tools/gen_ops.py from ops/ops.toml (tools/ew_compose.py); do not edit.",
             "// Included by src/ops/ew_grad_composed.cpp.", ""]
    names = {}
    unary, binary = [], []
    for op in rows:
        if op.get("grad") != "formula" or not op.get("differentiable"):
            continue
        if op["kind"] == "unary":
            expr = compose(op["backward"])
            names.setdefault(op["grad_name"], []).append(expr is not None)
            if expr:
                unary.append("    case UnaryOp::%s:\n      return done(g, %s);" % (op["name"], expr))
        elif op["kind"] == "binary":
            ea, eb = compose(op["grad_a"]), compose(op["grad_b"])
            ok = (ea is not None or op["grad_a"] == "not_implemented") and \
                 (eb is not None or op["grad_b"] == "not_implemented")
            names.setdefault(op["grad_name"], []).append(ok)
            if ea or eb:
                binary.append("    case BinaryOp::%s:\n      return for_b ? %s : %s;" % (
                    op["name"], "done(g, %s)" % eb if eb else "Tensor()", "done(g, %s)" % ea if ea else "Tensor()"))
    lines.append("#define TC_COMPOSED_UNARY_CASES \\")
    lines += [c.replace("\n", " \\\n") + " \\" for c in unary]
    lines.append("  /* end of the unary cases */")
    lines.append("")
    lines.append("#define TC_COMPOSED_BINARY_CASES \\")
    lines += [c.replace("\n", " \\\n") + " \\" for c in binary]
    lines.append("  /* end of the binary cases */")
    lines.append("")
    lines.append("// Nodes every row of which has a composition above.")
    lines.append("#define TC_COMPOSED_NODE_NAMES \\")
    lines += ['  "%s", \\' % n for n in sorted(names) if all(names[n])]
    lines.append("  /* end of the names */")
    lines.append("")
    return "\n".join(lines)
