"""torch.lstm / torch.gru / torch.rnn_tanh / torch.rnn_relu: a whole multi-layer
recurrence in one libtc call (tc_rnn), with PyTorch's signatures and flat
weight order. The tc.nn recurrent modules run their padded input through
these; the C side records the recurrence for autograd."""
import ctypes as C

from . import _decls as D
from ._core import VP, byref, fn
from ._errors import check
from ._tensor import Tensor, _wrap

_rnn_f = fn("tc_rnn")


def _run(mode, input, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    params = list(params)
    if not params:
        raise RuntimeError("rnn: expected at least one weight")
    for i, p in enumerate(params):
        if not isinstance(p, Tensor):
            raise TypeError("rnn: params[%d] is %s, not a Tensor" % (i, type(p).__name__))
    o = D.tc_rnn_options()
    o.size = C.sizeof(o)
    o.mode = mode
    o.num_layers = int(num_layers)
    o.has_biases = 1 if has_biases else 0
    o.bidirectional = 1 if bidirectional else 0
    o.batch_first = 1 if batch_first else 0
    o.train = 1 if train else 0
    o.dropout = float(dropout)
    arr = (VP * len(params))(*[p._h for p in params])
    out, h, c = VP(), VP(), VP()
    check(_rnn_f(input._h, hx._h if hx is not None else None, cx._h if cx is not None else None, arr,
                 len(params), byref(o), byref(out), byref(h), byref(c)))
    return _wrap(out), _wrap(h), (_wrap(c) if c.value else None)


_MODES = {"RNN_TANH": D.TC_RNN_TANH, "RNN_RELU": D.TC_RNN_RELU, "LSTM": D.TC_RNN_LSTM, "GRU": D.TC_RNN_GRU}


def run_mode(mode, input, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """tc_rnn by torch.nn's mode name ("LSTM", "GRU", "RNN_TANH", "RNN_RELU"):
    (output, h_n, c_n or None)."""
    return _run(_MODES[mode], input, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional,
                batch_first)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """The LSTM recurrence (torch.lstm): ``hx`` is ``[h_0, c_0]`` (or empty for
    zeros); ``params`` PyTorch's flat weights (w_ih, w_hh[, b_ih, b_hh][, w_hr]
    per layer and direction). Returns (output, h_n, c_n)."""
    h0, c0 = (hx[0], hx[1]) if hx is not None and len(hx) else (None, None)
    return _run(D.TC_RNN_LSTM, input, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional,
                batch_first)


def _single_state(mode):
    def f(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        out, h, _ = _run(mode, input, hx, None, params, has_biases, num_layers, dropout, train, bidirectional,
                         batch_first)
        return out, h
    return f


gru = _single_state(D.TC_RNN_GRU)
gru.__name__ = "gru"
gru.__doc__ = """The GRU recurrence (torch.gru): returns (output, h_n)."""
rnn_tanh = _single_state(D.TC_RNN_TANH)
rnn_tanh.__name__ = "rnn_tanh"
rnn_tanh.__doc__ = """The Elman recurrence with tanh (torch.rnn_tanh): returns (output, h_n)."""
rnn_relu = _single_state(D.TC_RNN_RELU)
rnn_relu.__name__ = "rnn_relu"
rnn_relu.__doc__ = """The Elman recurrence with relu (torch.rnn_relu): returns (output, h_n)."""

FUNCTIONS = {"lstm": lstm, "gru": gru, "rnn_tanh": rnn_tanh, "rnn_relu": rnn_relu}
