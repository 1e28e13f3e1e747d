"""The recurrent layers RNN, LSTM, GRU and their cells, as torch.nn's (PyTorch 1.13).

Parameter names, shapes, initialization and gate order are PyTorch's, so state dicts load
either way. The math is in ``_rnn_steps`` (one step function per cell type and the loop);
this file does the argument checks, the shapes (batch_first, unbatched input, packed
sequences) and the parameters.
"""
import math
import numbers
import warnings
from typing import List, Optional, Tuple

from .. import _rnn
from .._tensor import Tensor, empty, zeros
from . import init
from ._rnn_steps import GATES, STEPS, input_gates, run_layers
from .modules import Module, Parameter
from .utils_rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _size(t: Tensor) -> Tuple[int, ...]:
    return tuple(int(n) for n in t.shape)


class RNNBase(Module):
    """The base of :class:`RNN`, :class:`LSTM` and :class:`GRU`: the parameters, the checks
    and the shape handling, as torch.nn.RNNBase.

    Args:
        mode (str): ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers (default 1).
        bias (bool): learn the biases b_ih and b_hh (default True).
        batch_first (bool): input and output are (batch, seq, feature) (default False).
        dropout (float): dropout on every layer's output but the last, in training.
        bidirectional (bool): also run each layer backwards (default False).
        proj_size (int): LSTM only: project h to this size (default 0: no projection).
        device, dtype: where and of what dtype the parameters are made.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0., bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)  # first, as PyTorch: a non-number fails here with float's error
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          "expects num_layers greater than 1, but got dropout={} and num_layers={}"
                          .format(dropout, num_layers))
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        out_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: List[str] = []
        self._all_weights: List[List[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else out_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih_l%d%s", (gate_size, layer_input)), ("weight_hh_l%d%s", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih_l%d%s", (gate_size,)), ("bias_hh_l%d%s", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l%d%s", (proj_size, hidden_size))]
                names = []
                for pattern, shape in shapes:
                    name = pattern % (layer, suffix)
                    setattr(self, name, Parameter(empty(*shape, dtype=dtype, device=device)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> List[Tensor]:
        """The parameters in PyTorch's flat order (read from the attributes each time, so
        that ``to()`` or an assignment that replaces a parameter is seen)."""
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> List[List[Parameter]]:
        """The parameters per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh, (w_hr)], ...]``."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Does nothing, as PyTorch's does off cuDNN: that call packs the weights into one
        buffer for cuDNN's fused RNN; libtc runs the layers from tc ops on the parameters
        as they are, so there is nothing to repack."""

    def reset_parameters(self) -> None:
        """Draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes: Optional[List[int]]) -> None:
        """Raises RuntimeError unless the input has the expected dims and feature size.

        Args:
            input: the (unsqueezed) input, or a packed sequence's data.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError("input must have {} dimensions, got {}".format(expected, input.dim()))
        if self.input_size != input.shape[-1]:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected {}, got {}"
                               .format(self.input_size, input.shape[-1]))

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Optional[List[int]]) -> Tuple[int, int, int]:
        """The shape h0 must have: (num_layers * directions, batch, proj_size or hidden_size).

        Args:
            input: the (unsqueezed) input, or a packed sequence's data.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        return self._state_shape(input, batch_sizes, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def _state_shape(self, input: Tensor, batch_sizes: Optional[List[int]], size: int) -> Tuple[int, int, int]:
        # (num_layers * directions, batch, size): the batch from the packed sizes or the input's batch dim
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: Tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """Raises RuntimeError naming both shapes unless hx has the expected one.

        Args:
            hx: the state tensor.
            expected_hidden_size: its expected shape.
            msg: the message, with two ``{}`` for the expected and the actual shape.
        """
        if _size(hx) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(_size(hx))))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Optional[List[int]]) -> None:
        """Checks the input and h0 (see check_input and check_hidden_size).

        Args:
            input: the (unsqueezed) input, or a packed sequence's data.
            hidden: h0.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Optional[Tensor]) -> Tensor:
        """Reorders hx's batch dim (dim 1) by permutation (hx itself if None).

        Args:
            hx: the state tensor.
            permutation: int64 indices, or None.
        """
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _zeros_state(self, input: Tensor, batch: int, size: int) -> Tensor:
        directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * directions, batch, size, dtype=input.dtype, device=input.device)

    def _unpack_input(self, input):
        """Splits the forward's input into (input, batch_sizes list or None, sorted, unsorted,
        is_batched, batch_dim), unsqueezing an unbatched input as PyTorch does."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, [int(b) for b in batch_sizes.tolist()], sorted_indices, unsorted_indices, True, 1
        batch_dim = 0 if self.batch_first else 1
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        return input, None, None, None, is_batched, batch_dim

    def _run(self, input: Tensor, batch_sizes: Optional[List[int]], states0: List[Tensor]):
        """Runs the network on the checked input; returns (output, final states) with output
        shaped as the input (packed data, or (seq, batch, feature) / batch_first)."""
        if batch_sizes is None:
            # Padded input: one tc_rnn call runs every layer and direction in C
            # (the same recurrence as the C and Rust APIs); the step-by-step
            # Python path below is for packed sequences.
            out, h, c = _rnn.run_mode(self.mode, input, states0[0], states0[1] if len(states0) > 1 else None,
                                      self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                                      self.bidirectional, self.batch_first)
            return out, ((h, c) if c is not None else (h,))
        weights = []
        for names in self._all_weights:  # [w_ih, w_hh, (b_ih, b_hh), (w_hr)]
            w = [getattr(self, n) for n in names]
            b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
            weights.append((w[0], w[1], b_ih, b_hh, w[-1] if self.proj_size > 0 else None))
        return run_layers(self.mode, input, batch_sizes, states0, weights, self.num_layers, self.bidirectional,
                          self.dropout, self.training)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)`` (PyTorch's form)."""
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)


class RNN(RNNBase):
    """A multi-layer Elman RNN, ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or
    ReLU), as torch.nn.RNN.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers (default 1).
        nonlinearity (str): ``'tanh'`` (default) or ``'relu'``; keyword only.
        bias (bool): learn the biases (default True).
        batch_first (bool): input and output are (batch, seq, feature) (default False).
        dropout (float): dropout on every layer's output but the last, in training.
        bidirectional (bool): also run each layer backwards (default False).

    Call it as ``rnn(input, h0=None) -> (output, h_n)``, input (L, N, H_in), (N, L, H_in)
    with batch_first, (L, H_in) unbatched, or a PackedSequence (the output is one then).

    Raises:
        ValueError: an unknown nonlinearity, a proj_size argument, or a bad dropout.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(nonlinearity))
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx: Optional[Tensor] = None):
        """Runs the network over the sequence.

        Args:
            input: (L, N, H_in), (N, L, H_in) with batch_first, (L, H_in), or a PackedSequence.
            hx: h0, (num_layers * directions, N, H_out) ((.., H_out) unbatched); zeros if None.

        Returns:
            ``(output, h_n)``: output (L, N, D * H_out) (or as the input's layout, or packed),
            h_n the state after each sequence's last step.

        Raises:
            RuntimeError: wrong input dims or size, or an h0 of the wrong shape.
        """
        orig, packed = input, isinstance(input, PackedSequence)
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._unpack_input(input)
        if not packed and hx is not None:
            if not is_batched and hx.dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got %d-D tensor" % hx.dim())
            if is_batched and hx.dim() != 3:
                raise RuntimeError("For batched 3-D input, hx should also be 3-D but got %d-D tensor" % hx.dim())
            if not is_batched:
                hx = hx.unsqueeze(1)
        if hx is None:
            batch = batch_sizes[0] if packed else input.shape[batch_dim]
            hx = self._zeros_state(input, batch, self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, (hidden,) = self._run(input, batch_sizes, [hx])
        if packed:
            return (PackedSequence(output, orig.batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class LSTM(RNNBase):
    """A multi-layer long short-term memory network, as torch.nn.LSTM::

        i, f, g, o = sigmoid/tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)  (in that order)
        c_t = f * c_{t-1} + i * g,  h_t = o * tanh(c_t)  (then h_t W_hr^T with proj_size)

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the cell state (and of h without a projection).
        num_layers (int): stacked layers (default 1).
        bias (bool): learn the biases (default True).
        batch_first (bool): input and output are (batch, seq, feature) (default False).
        dropout (float): dropout on every layer's output but the last, in training.
        bidirectional (bool): also run each layer backwards (default False).
        proj_size (int): if > 0, h is projected to this size by weight_hr (default 0).

    Call it as ``lstm(input, (h0, c0)=None) -> (output, (h_n, c_n))``; the input may be a
    PackedSequence (the output is one then).
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Optional[List[int]]) -> Tuple[int, int, int]:
        """The shape c0 must have: (num_layers * directions, batch, hidden_size).

        Args:
            input: the (unsqueezed) input, or a packed sequence's data.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        return self._state_shape(input, batch_sizes, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden, batch_sizes: Optional[List[int]]) -> None:
        """Checks the input, h0 and c0.

        Args:
            input: the (unsqueezed) input, or a packed sequence's data.
            hidden: (h0, c0).
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation: Optional[Tensor]):
        """Reorders the batch dim of h and c by permutation (hx itself if None).

        Args:
            hx: (h, c).
            permutation: int64 indices, or None.
        """
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        """Runs the network over the sequence.

        Args:
            input: (L, N, H_in), (N, L, H_in) with batch_first, (L, H_in), or a PackedSequence.
            hx: (h0, c0): h0 (num_layers * directions, N, H_out), c0 (.., N, hidden_size),
                without the N dim for unbatched input; zeros if None.

        Returns:
            ``(output, (h_n, c_n))``: output (L, N, D * H_out) (or as the input's layout, or
            packed), h_n and c_n the states after each sequence's last step.

        Raises:
            RuntimeError: wrong input dims or size, or states of the wrong shape.
        """
        orig, packed = input, isinstance(input, PackedSequence)
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._unpack_input(input)
        if hx is None:
            batch = batch_sizes[0] if packed else input.shape[batch_dim]
            out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros_state(input, batch, out_size), self._zeros_state(input, batch, self.hidden_size))
        else:
            if not packed:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           "(%d-D, %d-D) tensors" % (hx[0].dim(), hx[1].dim()))
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           "(%d-D, %d-D) tensors" % (hx[0].dim(), hx[1].dim()))
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, [hx[0], hx[1]])
        if packed:
            return (PackedSequence(output, orig.batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit network, as torch.nn.GRU::

        r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr)
        z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz)
        n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn))
        h' = (1 - z) * n + z * h

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers (default 1).
        bias (bool): learn the biases (default True).
        batch_first (bool): input and output are (batch, seq, feature) (default False).
        dropout (float): dropout on every layer's output but the last, in training.
        bidirectional (bool): also run each layer backwards (default False).

    Call it as ``gru(input, h0=None) -> (output, h_n)``; the input may be a PackedSequence.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    forward = RNN.forward


class RNNCellBase(Module):
    """The base of the cells: weight_ih, weight_hh and (with bias) bias_ih, bias_hh of
    ``num_chunks * hidden_size`` rows, drawn from U(-1/sqrt(hidden), 1/sqrt(hidden)).

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): learn the biases.
        num_chunks (int): gates per hidden unit (1 RNN, 4 LSTM, 3 GRU).
        device, dtype: where and of what dtype the parameters are made.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)`` (PyTorch's form)."""
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input: Tensor, hx, states: int):
        """Checks the input's dims, unsqueezes an unbatched input and its states, and makes
        zero states when hx is None. Returns (input, [states], is_batched)."""
        if input.dim() not in (1, 2):
            # PyTorch 1.13 asserts this, hence the AssertionError
            raise AssertionError("%s: Expected input to be 1-D or 2-D but received %d-D tensor"
                                 % (type(self).__name__, input.dim()))
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            hs = [z] * states
        else:
            hs = [hx] if states == 1 else [hx[0], hx[1]]
            if not is_batched:
                hs = [h.unsqueeze(0) for h in hs]
        if input.shape[1] != self.input_size:
            raise RuntimeError("input has inconsistent input_size: got %d expected %d"
                               % (input.shape[1], self.input_size))
        for h in hs:
            if h.shape[0] != input.shape[0]:
                raise RuntimeError("Input batch size %d doesn't match hidden0 batch size %d"
                                   % (input.shape[0], h.shape[0]))
            if h.shape[1] != self.hidden_size:
                raise RuntimeError("hidden0 has inconsistent hidden_size: got %d, expected %d"
                                   % (h.shape[1], self.hidden_size))
        return input, hs, is_batched

    def _cell(self, mode: str, input: Tensor, hs: List[Tensor]):
        gi, b_hh = input_gates(mode, input, self.weight_ih, self.bias_ih, self.bias_hh)
        return STEPS[mode](gi, tuple(hs), self.weight_hh, b_hh, None)

    def _one_state_step(self, input: Tensor, hx: Optional[Tensor]) -> Tensor:
        # RNNCell's and GRUCell's forward: one state in and out, unbatched kept unbatched
        input, hs, is_batched = self._batched(input, hx, 1)
        (h,) = self._cell(self._cell_mode(), input, hs)
        return h if is_batched else h.squeeze(0)


class RNNCell(RNNCellBase):
    """One Elman RNN step, ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU), as
    torch.nn.RNNCell.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): learn the biases (default True).
        nonlinearity (str): ``'tanh'`` (default) or ``'relu'`` (checked when called, as PyTorch).
        device, dtype: where and of what dtype the parameters are made.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        """Computes the next hidden state.

        Args:
            input: (N, H_in) or (H_in).
            hx: (N, H) or (H); zeros if None.

        Returns:
            Tensor: h', shaped as hx.
        """
        return self._one_state_step(input, hx)

    def _cell_mode(self) -> str:
        # checked at call time, after the input (PyTorch's order of errors)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError("Unknown nonlinearity: {}".format(self.nonlinearity))
        return "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"


class LSTMCell(RNNCellBase):
    """One LSTM step (gates i, f, g, o in PyTorch's order), as torch.nn.LSTMCell.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden and cell states.
        bias (bool): learn the biases (default True).
        device, dtype: where and of what dtype the parameters are made.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx=None) -> Tuple[Tensor, Tensor]:
        """Computes the next hidden and cell states.

        Args:
            input: (N, H_in) or (H_in).
            hx: (h, c), each (N, H) or (H); zeros if None.

        Returns:
            ``(h', c')``.
        """
        input, hs, is_batched = self._batched(input, hx, 2)
        h, c = self._cell("LSTM", input, hs)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n in PyTorch's order), as torch.nn.GRUCell.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): learn the biases (default True).
        device, dtype: where and of what dtype the parameters are made.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        """Computes the next hidden state.

        Args:
            input: (N, H_in) or (H_in).
            hx: (N, H) or (H); zeros if None.

        Returns:
            Tensor: h', shaped as hx.
        """
        return self._one_state_step(input, hx)

    def _cell_mode(self) -> str:
        return "GRU"
