"""The recurrent layers' math, composed from tc ops (autograd comes with them).

Two parts, kept apart so that a fused kernel can later replace either:

* one step function per cell type (``rnn_tanh_step``, ``rnn_relu_step``, ``lstm_step``,
  ``gru_step``): a single time step of one layer in one direction, given the input's share
  of the gates for that step (``gi``, computed beforehand for all steps at once);
* ``run_layers``: the loop over layers, directions and time steps, which does the input
  projection with one matmul per layer and direction, and handles variable batch sizes
  (packed sequences) by shrinking or growing the state between steps, as cuDNN does.

Every step function has the signature ``step(gi, state, w_hh, b_hh, w_hr) -> state``:
``state`` is a tuple, ``(h,)`` or ``(h, c)`` for the LSTM, and ``state[0]`` is the step's
output. ``gi`` is ``x_t @ w_ih.T + b_ih``, with ``b_hh`` added too for the cells whose
hidden bias sits outside any gate product (``FOLDS_HIDDEN_BIAS``); the step then gets
``b_hh=None``. Gate order and bias placement are PyTorch's, so that its state dicts apply.
"""
from typing import List, Optional, Sequence, Tuple

from .._tensor import Tensor, cat, stack, tensor
from .. import _core as K
from . import functional as F

State = Tuple[Tensor, ...]


def _hidden_gates(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Optional[Tensor]) -> Tensor:
    # linear + add rather than gi.addmm(h, w_hh.t()): one op fewer, but the addmm's
    # backward through the transposed view of w_hh costs ~2.5x the whole step's (measured).
    return F.linear(h, w_hh, b_hh) + gi


_ELMAN_STEP_DOC = """One Elman RNN step{}: ``h' = {}(gi + h @ w_hh.T [+ b_hh])``.

    Args:
        gi: the input's share ``x @ w_ih.T + b_ih (+ b_hh)``, shape (batch, hidden).
        state: ``(h,)`` with h of shape (batch, hidden).
        w_hh: (hidden, hidden).
        b_hh: the hidden bias if not folded into gi, else None.
        w_hr: unused (projections are LSTM-only).

    Returns:
        ``(h',)``.
    """


def rnn_tanh_step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Optional[Tensor] = None,
                  w_hr: Optional[Tensor] = None) -> State:
    return (_hidden_gates(gi, state[0], w_hh, b_hh).tanh(),)


def rnn_relu_step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Optional[Tensor] = None,
                  w_hr: Optional[Tensor] = None) -> State:
    return (_hidden_gates(gi, state[0], w_hh, b_hh).relu(),)


rnn_tanh_step.__doc__ = _ELMAN_STEP_DOC.format("", "tanh")
rnn_relu_step.__doc__ = _ELMAN_STEP_DOC.format(" with ReLU", "relu")


def lstm_step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Optional[Tensor] = None,
              w_hr: Optional[Tensor] = None) -> State:
    """One LSTM step, gates in PyTorch's order (input, forget, cell, output)::

        i, f, g, o = chunk(gi + h @ w_hh.T [+ b_hh], 4)
        c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
        h' = sigmoid(o) * tanh(c')          (then h' @ w_hr.T with a projection)

    Args:
        gi: the input's share ``x @ w_ih.T + b_ih (+ b_hh)``, shape (batch, 4 * hidden).
        state: ``(h, c)``: h (batch, proj_size or hidden), c (batch, hidden).
        w_hh: (4 * hidden, proj_size or hidden).
        b_hh: the hidden bias if not folded into gi, else None.
        w_hr: the projection (proj_size, hidden), or None.

    Returns:
        ``(h', c')``.
    """
    h, c = state
    i, f, g, o = _hidden_gates(gi, h, w_hh, b_hh).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def gru_step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Optional[Tensor] = None,
             w_hr: Optional[Tensor] = None) -> State:
    """One GRU step, gates in PyTorch's order (reset, update, new)::

        r = sigmoid(gi_r + h @ w_hr_.T + b_hr)
        z = sigmoid(gi_z + h @ w_hz.T + b_hz)
        n = tanh(gi_n + r * (h @ w_hn.T + b_hn))     (the hidden bias inside r * (...))
        h' = (1 - z) * n + z * h

    Args:
        gi: the input's share ``x @ w_ih.T + b_ih``, shape (batch, 3 * hidden).
        state: ``(h,)`` with h of shape (batch, hidden).
        w_hh: (3 * hidden, hidden).
        b_hh: the hidden bias (never folded into gi: its n part is multiplied by r).
        w_hr: unused (projections are LSTM-only).

    Returns:
        ``(h',)``.
    """
    h = state[0]
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (n + z * (h - n),)


# Per mode: the step function, the gates per hidden unit, and whether b_hh can be added
# to gi beforehand (not for the GRU, whose n gate multiplies its hidden bias by r).
STEPS = {
    "RNN_TANH": rnn_tanh_step,
    "RNN_RELU": rnn_relu_step,
    "LSTM": lstm_step,
    "GRU": gru_step,
}
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
FOLDS_HIDDEN_BIAS = {"RNN_TANH": True, "RNN_RELU": True, "LSTM": True, "GRU": False}


def input_gates(mode: str, x: Tensor, w_ih: Tensor, b_ih: Optional[Tensor],
                b_hh: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
    """The input's share of the gates for every row of x, with one matmul.

    Args:
        mode: ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
        x: (rows, input_size).
        w_ih, b_ih, b_hh: the layer's weights (biases may be None).

    Returns:
        ``(gi, b_hh_left)``: gi of shape (rows, gates * hidden), and the hidden bias the
        step must still add (None when it was folded into gi).
    """
    if b_ih is not None and b_hh is not None and FOLDS_HIDDEN_BIAS[mode]:
        return F.linear(x, w_ih, b_ih + b_hh), None
    return F.linear(x, w_ih, b_ih), b_hh


def _step_inputs(gi: Tensor, batch_sizes: Sequence[int]) -> List[Tensor]:
    """gi (rows in packed order) cut into one (batch_sizes[t], gates) piece per step."""
    full = batch_sizes[0]
    if all(b == full for b in batch_sizes):
        return list(gi.split(full, 0))
    # Variable batch: scatter the rows into a padded (steps * full) layout with one
    # index_select (one backward node), then take each step's leading rows. Cutting gi
    # with a narrow per step instead would cost a full-size gradient buffer per step.
    rows, start = [], 0
    for b in batch_sizes:
        rows.extend(range(start, start + b))
        rows.extend([0] * (full - b))  # padding slots: read row 0, dropped right away
        start += b
    padded = gi.index_select(0, tensor(rows, dtype=K.int64, device=gi.device))
    return [p if b == full else p.narrow(0, 0, b)
            for p, b in zip(padded.split(full, 0), batch_sizes)]


def run_direction(step, gis: List[Tensor], batch_sizes: Sequence[int], state0: State,
                  w_hh: Tensor, b_hh: Optional[Tensor], w_hr: Optional[Tensor],
                  reverse: bool) -> Tuple[List[Tensor], State]:
    """Runs one layer in one direction over all steps.

    Args:
        step: a step function (see the module's docstring).
        gis: the input gates per step, from ``_step_inputs``.
        batch_sizes: rows per step, non-increasing (all equal for a dense batch).
        state0: the initial state, each of shape (batch_sizes[0], ...).
        w_hh, b_hh, w_hr: the step's weights.
        reverse: run from the last step to the first.

    Returns:
        ``(outputs, final)``: outputs[t] is the step's output (batch_sizes[t] rows), final
        the state after each sequence's own last step (batch_sizes[0] rows).
    """
    steps = len(gis)
    outputs: List[Optional[Tensor]] = [None] * steps
    full = batch_sizes[0]
    if not reverse:
        # A sequence that ends leaves the batch (the rows are sorted by length): its
        # state rows are set aside as final, the rest go on.
        state, rows, done = state0, full, []
        for t in range(steps):
            b = batch_sizes[t]
            if b < rows:
                done.append(tuple(s.narrow(0, b, rows - b) for s in state))
                state = tuple(s.narrow(0, 0, b) for s in state)
                rows = b
            state = step(gis[t], state, w_hh, b_hh, w_hr)
            outputs[t] = state[0]
        if not done:
            return outputs, state
        done.append(state)
        pieces = done[::-1]  # the shortest sequences' rows come last
        return outputs, tuple(cat([p[k] for p in pieces], 0) for k in range(len(state)))
    # Backwards, the sequences join as their last steps come: each starts from its h0 row.
    rows = batch_sizes[-1]
    state = state0 if rows == full else tuple(s.narrow(0, 0, rows) for s in state0)
    for t in range(steps - 1, -1, -1):
        b = batch_sizes[t]
        if b > rows:
            state = tuple(cat([s, s0.narrow(0, rows, b - rows)], 0) for s, s0 in zip(state, state0))
            rows = b
        state = step(gis[t], state, w_hh, b_hh, w_hr)
        outputs[t] = state[0]
    return outputs, state


def run_layers(mode: str, x: Tensor, batch_sizes: Sequence[int], states0: Sequence[Tensor],
               weights: Sequence[Sequence[Optional[Tensor]]], num_layers: int, bidirectional: bool,
               dropout: float, training: bool) -> Tuple[Tensor, Tuple[Tensor, ...]]:
    """Runs a stacked, possibly bidirectional recurrent network over a sequence.

    Args:
        mode: ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
        x: the input in packed (time-major) row order: (sum of batch_sizes, input_size);
            a dense (seq, batch, feature) input reshaped to (seq * batch, feature) is one.
        batch_sizes: rows per time step (non-increasing).
        states0: the initial states, h0 (and c0 for the LSTM), each of shape
            (num_layers * directions, batch_sizes[0], size).
        weights: per layer and direction (layer-major), ``(w_ih, w_hh, b_ih, b_hh, w_hr)``.
        num_layers, bidirectional: the network's shape.
        dropout: the probability of dropout on every layer's output but the last.
        training: apply that dropout.

    Returns:
        ``(output, final_states)``: output in x's row order, (rows, directions * out_size);
        final_states, one tensor per state (h_n, and c_n for the LSTM), each
        (num_layers * directions, batch_sizes[0], size).
    """
    step = STEPS[mode]
    directions = 2 if bidirectional else 1
    initial = [s.unbind(0) for s in states0]
    finals: List[List[Tensor]] = [[] for _ in states0]
    layer_input = x
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[k]
            gi, b_left = input_gates(mode, layer_input, w_ih, b_ih, b_hh)
            outputs, final = run_direction(step, _step_inputs(gi, batch_sizes), batch_sizes,
                                           tuple(s[k] for s in initial), w_hh, b_left, w_hr,
                                           reverse=d == 1)
            outs.append(cat(outputs, 0))
            for acc, f in zip(finals, final):
                acc.append(f)
        layer_input = outs[0] if directions == 1 else cat(outs, 1)
        if dropout > 0 and training and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    return layer_input, tuple(stack(f, 0) for f in finals)
