"""tc.set_printoptions: PyTorch's print options (precision, threshold,
edgeitems, linewidth, profile, sci_mode). libtc's own printer (the C
tc_tensor_to_string) prints with PyTorch's defaults; once an option differs
from them, repr() and str() of a tensor use the Python printer here, which
follows PyTorch's rules: a common format for all shown elements (integer
style, fixed with ``precision`` digits, or scientific when the magnitudes
span more than 1000x, exceed 1e8 or fall below 1e-4), lines wrapped at
``linewidth``, and tensors of more than ``threshold`` elements summarized to
``edgeitems`` at each end of every dimension."""
import math

from . import _core as K

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
_PROFILES = {"default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
             "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
             "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80}}
OPTIONS = dict(_DEFAULTS)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets how tensors print, like torch.set_printoptions: a profile
    ("default", "short" or "full") first, then each option given; sci_mode
    is always set (None lets the printer choose).

    Args:
        precision (int): digits after the decimal point (4).
        threshold (float): element count above which tensors are summarized (1000).
        edgeitems (int): items shown at each end of a summarized dimension (3).
        linewidth (int): characters per line (80).
        profile (str): "default", "short" or "full".
        sci_mode (bool): force (True) or forbid (False) scientific notation.
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError("profile must be one of %s, got %r" % (sorted(_PROFILES), profile))
        OPTIONS.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            OPTIONS[name] = value
    OPTIONS["sci_mode"] = sci_mode


def _is_default():
    return OPTIONS == _DEFAULTS


class _Formatter:
    """One format for all the values shown (PyTorch's rules, see the module docstring)."""

    def __init__(self, values, floating):
        p = OPTIONS["precision"]
        self.floating, self.int_mode, self.sci, self.width = floating, True, False, 1
        if not floating:
            self.width = max([1] + [len(str(v)) for v in values])
            return
        shown = [v for v in values if math.isfinite(v) and v != 0]
        if not shown:  # zeros, inf and nan only: integer style whatever sci_mode says (as PyTorch)
            return
        mags = [abs(v) for v in shown]
        lo, hi = min(mags), max(mags)
        self.int_mode = all(v == math.ceil(v) for v in shown)
        wide = hi / lo > 1000.0 or hi > 1.0e8
        if self.int_mode and not wide:
            self.width = max(len("%.0f" % v) + 1 for v in shown)
        elif wide or (not self.int_mode and lo < 1.0e-4):
            self.sci = True
            self.width = max(len("{:.{}e}".format(v, p)) for v in shown)
        else:
            self.width = max(len("{:.{}f}".format(v, p)) for v in shown)
        if OPTIONS["sci_mode"] is not None:
            self.sci = OPTIONS["sci_mode"]

    def format(self, v):
        """One value, right-aligned to the common width."""
        p = OPTIONS["precision"]
        if not self.floating:
            text = str(v)
        elif self.sci:
            text = "{:{}.{}e}".format(v, self.width, p)
        elif self.int_mode:
            text = "%.0f" % v + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = "{:.{}f}".format(v, p)
        return text.rjust(self.width)


def _shown_rows(n, summarize):
    edge = OPTIONS["edgeitems"]
    if summarize and n > 2 * edge:
        return list(range(edge)), list(range(n - edge, n))
    return list(range(n)), []


def _shown_values(t, summarize):
    """The values the printout shows (the formatter is chosen from them)."""
    if t.ndim == 0:
        return [t.item()]
    head, tail = _shown_rows(t.shape[0], summarize)
    if t.ndim == 1:
        return [t[i].item() for i in head + tail] if tail else t.tolist()
    out = []
    for i in head + tail:
        out.extend(_shown_values(t[i], summarize))
    return out


def _render(t, indent, summarize, fmt):
    if t.ndim == 0:
        return fmt.format(t.item())
    head, tail = _shown_rows(t.shape[0], summarize)
    if t.ndim == 1:
        if tail:
            items = [fmt.format(t[i].item()) for i in head] + [" ..."] + [fmt.format(t[i].item()) for i in tail]
        else:
            items = [fmt.format(v) for v in t.tolist()]
        per_line = max(1, int(math.floor((OPTIONS["linewidth"] - indent) / (fmt.width + 2))))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_render(t[i], indent + 1, summarize, fmt) for i in head]
    if tail:
        parts += ["..."] + [_render(t[i], indent + 1, summarize, fmt) for i in tail]
    return "[" + ("," + "\n" * (t.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def tensor_repr(t):
    """The printout of t under the current options (PyTorch's layout, tc's suffixes)."""
    prefix = "tensor("
    indent = len(prefix)
    data = t.detach()
    if data.dtype in (K.float16, K.bfloat16):
        data = data.to(K.float32)
    if data.numel() == 0:
        body = "[]"
    else:
        summarize = data.numel() > OPTIONS["threshold"]
        fmt = _Formatter(_shown_values(data, summarize), data.dtype.is_floating_point)
        body = _render(data, indent, summarize, fmt)
    suffixes = []
    if t.numel() == 0 and t.ndim != 1:
        suffixes.append("size=(%s)" % ", ".join(str(s) for s in t.shape))
    if t.device.type != "cpu":
        suffixes.append("device='%s'" % t.device)
    if t.dtype not in (K.float32, K.int64, K.bool_):
        suffixes.append("dtype=%s" % t.dtype.name)
    name = t.grad_fn_name()
    if name:
        suffixes.append("grad_fn=<%s>" % name)
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:  # a suffix that would pass linewidth goes on its own line, as in PyTorch
        if last + len(s) + 2 > OPTIONS["linewidth"]:
            text += ",\n" + " " * indent + s
            last = indent + len(s)
        else:
            text += ", " + s
            last += len(s) + 2
    return text + ")"


class PrintingMethods:
    """tc.Tensor's repr and str through :func:`tensor_repr` while a print
    option differs from the defaults (libtc's own text otherwise)."""

    __slots__ = ()

    def __repr__(self):
        return super().__repr__() if _is_default() else tensor_repr(self)

    __str__ = __repr__


FUNCTIONS = {"set_printoptions": set_printoptions}
