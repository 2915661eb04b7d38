"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells, with PyTorch's
parameters (names, shapes, initialisation), gate order and arithmetic.

Each is a composite of recorded ops (``linear``, ``sigmoid``, ``tanh``, ...), so its
gradients, closed forms and pictures come from those; a sequence's outputs are stacked
(``StackBackward0``; a float32 LSTM's results then pass through identity nodes named as
PyTorch's fused ``MkldnnRnnLayerBackward0``, see :mod:`.rnn_nodes`),
an unbatched sequence's results squeezed from a batch of one (``SqueezeBackward1``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from symgrad import creation, ops
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn._arguments import check_rnn_input, check_rnn_state_ranks
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.rnn_nodes import batch_major, fused_lstm_layer, packed_type, uses_fused_lstm
from symgrad.nn.modules.rnn_steps import (
    _GATES,
    _check_cell_arguments,
    _check_cell_hidden,
    _check_size,
    _mapped,
    _masked_step,
    _packed_direction,
    _permute,
    _rnn_step,
    _steps,
)
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class RNNBase(Module):
    """The common part of :class:`RNN`, :class:`LSTM` and :class:`GRU`: parameters
    ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and
    ``_reverse`` ones when bidirectional, ``weight_hr_l{k}`` for an LSTM with ``proj_size``),
    all drawn uniformly from ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        _check_size("hidden_size", hidden_size)
        _check_size("num_layers", num_layers)
        if isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=3,
            )
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gates = _GATES[mode] * hidden_size
        out_size = proj_size or hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:directions]:
                layer_input = input_size if layer == 0 else out_size * directions
                shapes = {"weight_ih": (gates, layer_input), "weight_hh": (gates, out_size)}
                if bias:
                    shapes.update(bias_ih=(gates,), bias_hh=(gates,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(
                        self, name, Parameter(creation.empty(shape, device=device, dtype=dtype))
                    )
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter uniformly from ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters of each layer and direction, one list each, in declaration order.

        Examples
        --------
        >>> from symgrad import nn
        >>> [[tuple(w.shape) for w in ws] for ws in nn.GRU(2, 3, bias=False).all_weights]
        [[(9, 2), (9, 3)]]
        """
        weights = self._flat_weights
        size = len(weights) // (self.num_layers * (2 if self.bidirectional else 1))
        return [weights[i : i + size] for i in range(0, len(weights), size)]

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one cuDNN buffer here, on a GPU.

        Examples
        --------
        >>> from symgrad import nn
        >>> nn.LSTM(2, 3).flatten_parameters() is None
        True
        """

    def _weights(self, layer: int, suffix: str) -> list:
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}", None)  # noqa: E731
        return [
            get("weight_ih"),
            get("weight_hh"),
            get("bias_ih"),
            get("bias_hh"),
            get("weight_hr"),
        ]

    def _initial_state(self, input: Tensor, hx: Any, batch: int | None) -> Any:
        directions = 2 if self.bidirectional else 1
        layers = self.num_layers * directions
        out_size = self.proj_size or self.hidden_size
        lead = (layers,) if batch is None else (layers, batch)

        def zeros(size: int) -> Tensor:
            return creation.zeros(lead + (size,), dtype=input.dtype, device=input.device)

        if hx is None:
            return (
                (zeros(out_size), zeros(self.hidden_size))
                if self.mode == "LSTM"
                else zeros(out_size)
            )
        states = hx if self.mode == "LSTM" else (hx,)
        check_rnn_state_ranks(states, batch is None, self.mode == "LSTM")
        for i, (state, size) in enumerate(zip(states, (out_size, self.hidden_size))):
            expected = lead + (size,)
            if tuple(state.shape) != expected:
                which = f"hidden[{i}]" if self.mode == "LSTM" else "hidden"
                raise RuntimeError(
                    f"Expected {which} size {expected}, got {list(state.shape)}\n(the state "
                    "holds one row per layer and direction)"
                )
        return hx

    def forward(self, input: Any, hx: Any = None) -> tuple:
        packed = packed_type(input)
        if packed is not None:
            return self._forward_packed(input, hx, packed)
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{type(self).__name__} takes a tensor or a PackedSequence, "
                f"got {type(input).__name__}"
            )
        if input.ndim not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead"
            )
        self._check_input_size(input)
        batched = input.ndim == 3
        if batched and self.batch_first:
            input = input.transpose(0, 1)
        batch = input.shape[1] if batched else None
        state = self._initial_state(input, hx, batch)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if not batched:  # run as a batch of one, as PyTorch (results from SqueezeBackward1)
            input, state = input.unsqueeze(1), _mapped(state, lambda s: s.unsqueeze(1))
        output, h_n = self._run(input, state, [None] * input.shape[0])
        if not batched:
            return output.squeeze(1), _mapped(h_n, lambda s: s.squeeze(1))
        return (batch_major(output, self.mode) if self.batch_first else output), h_n

    def _check_input_size(self, input: Tensor) -> None:
        check_rnn_input(input, self.weight_ih_l0, self.input_size)

    def _forward_packed(self, input: Any, hx: Any, packed: type) -> tuple:
        data, sorted_indices = input.data, input.sorted_indices
        unsorted_indices = input.unsorted_indices
        self._check_input_size(data)
        batch_sizes = [int(b) for b in input.batch_sizes.numpy()]
        if hx is not None and sorted_indices is not None:
            hx = _permute(hx, sorted_indices)
        state = self._initial_state(data, hx, batch_sizes[0])
        out, h_n = self._run(data, state, batch_sizes)
        if unsorted_indices is not None:
            h_n = _permute(h_n, unsorted_indices)
        return packed(out, input.batch_sizes, sorted_indices, unsorted_indices), h_n

    def _run(self, input: Tensor, state: Any, batch_sizes: list) -> tuple:
        """Every layer and direction over ``input``: time-major ``(T, N, F)`` when the
        ``batch_sizes`` are None, else packed data whose step ``t`` has ``batch_sizes[t]``
        rows (the sequences still running at ``t``; a finished one keeps its last state)."""
        directions = 2 if self.bidirectional else 1
        lstm = self.mode == "LSTM"
        finals_h, finals_c = [], []
        fused = uses_fused_lstm(self.mode, input, self.proj_size, batch_sizes[0] is not None)
        states = [s.unbind(0) for s in state] if lstm else [state.unbind(0)]  # (as ATen's)
        layer_input = input
        whole = batch_sizes[0] is None
        for layer in range(self.num_layers):
            xs = _steps(layer_input, batch_sizes)
            outputs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                k = layer * directions + d
                h = (states[0][k], states[1][k]) if lstm else states[0][k]
                weights = self._weights(layer, suffix)
                if not whole:  # packed: ATen's packed layers
                    out, h = _packed_direction(self.mode, layer_input, h, batch_sizes, weights, d)
                    outputs.append(out)
                    finals_h.append(h[0] if lstm else h)
                    finals_c += [h[1]] if lstm else []
                    continue
                if whole:  # the input's products for every step at once, as ATen's layers
                    xs = F.linear(layer_input, weights[0], weights[2]).unbind(0)
                order = range(len(xs))
                seq: list = [None] * len(xs)
                for t in reversed(order) if suffix else order:
                    h = _masked_step(self.mode, xs[t], h, batch_sizes[t], weights, whole)
                    out = h[0] if lstm else h
                    seq[t] = out if batch_sizes[t] is None else out[: batch_sizes[t]]
                outputs.append(ops.stack(seq) if batch_sizes[0] is None else ops.cat(seq, 0))
                if fused:
                    # (oneDNN takes a contiguous input: PyTorch's node reads a clone of a
                    # batch-first input's transpose)
                    given = (layer_input.contiguous(), *weights[:4], state[0][k], state[1][k])
                    outputs[-1], h = fused_lstm_layer(outputs[-1], h, given)
                finals_h.append(h[0] if lstm else h)
                if lstm:
                    finals_c.append(h[1])
            layer_input = ops.cat(outputs, -1) if len(outputs) > 1 else outputs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        h_n = ops.stack(finals_h)
        return layer_input, ((h_n, ops.stack(finals_c)) if lstm else h_n)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """An Elman network: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or
    ``relu``), over a sequence ``(L, N, input_size)`` (``(N, L, ...)`` with ``batch_first``,
    or ``(L, input_size)`` unbatched); returns ``(output, h_n)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> rnn = nn.RNN(3, 4, num_layers=2)
    >>> output, h_n = rnn(symgrad.randn(5, 2, 3))
    >>> output.shape, h_n.shape
    (symgrad.Size([5, 2, 4]), symgrad.Size([2, 2, 4]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        *args: Any,
        **kwargs: Any,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory, PyTorch's gates in its order (input, forget, cell, output):
    ``c_t = f * c_{t-1} + i * g``, ``h_t = o * tanh(c_t)`` (projected by ``weight_hr`` when
    ``proj_size > 0``); returns ``(output, (h_n, c_n))``."""

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", input_size, hidden_size, *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit, PyTorch's gates in its order (reset, update, new):
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (h - n) * z + n``; returns
    ``(output, h_n)``."""

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", input_size, hidden_size, *args, **kwargs)


class RNNCellBase(Module):
    """One time step: parameters ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``,
    drawn as the layers' are."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        # PyTorch's cells take any size their weights can have (0 too)
        self.mode, self.input_size, self.hidden_size, self.bias = (
            mode,
            input_size,
            hidden_size,
            bias,
        )
        gates = _GATES[mode] * hidden_size
        shapes = {"weight_ih": (gates, input_size), "weight_hh": (gates, hidden_size)}
        for name, shape in shapes.items():
            setattr(self, name, Parameter(creation.empty(shape, device=device, dtype=dtype)))
        for name in ("bias_ih", "bias_hh"):
            if bias:
                setattr(self, name, Parameter(creation.empty(gates, device=device, dtype=dtype)))
            else:
                self.register_parameter(name, None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter uniformly from ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``
        (zeros without hidden units)."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _step(self, input: Tensor, hx: Any) -> Any:
        lstm = self.mode == "LSTM"
        _check_cell_arguments(type(self).__name__, input, hx, self.input_size, lstm)
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        zeros = creation.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
        if hx is None:
            hx = (zeros, zeros) if lstm else zeros
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        _check_cell_hidden(x, tuple(hx) if lstm else (hx,), self.hidden_size)
        w = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        out = _rnn_step(self.mode, x, hx, *w)
        if batched:
            return out
        return tuple(o.squeeze(0) for o in out) if self.mode == "LSTM" else out.squeeze(0)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH", input_size, hidden_size, bias, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):  # PyTorch checks here, not at __init__
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self.mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        return self._step(input, hx)


class _GatedCell(RNNCellBase):
    _mode = ""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(self._mode, input_size, hidden_size, bias, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        return self._step(input, hx)


class LSTMCell(_GatedCell):
    """One LSTM step: returns ``(h', c')``."""

    _mode = "LSTM"


class GRUCell(_GatedCell):
    """One GRU step: returns ``h'``."""

    _mode = "GRU"
