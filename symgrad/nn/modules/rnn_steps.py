"""The arithmetic of the recurrent layers: one time step of each mode (PyTorch's gate order
and formulas), and the steps of a padded or packed sequence; private helpers of
:mod:`symgrad.nn.modules.rnn` (kept apart for the size of that file)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import ops
from symgrad.nn import functional as F
from symgrad.tensor import Tensor

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(
    mode: str, x: Tensor, h: Any, w_ih, w_hh, b_ih, b_hh, w_hr=None, projected: bool = False
) -> Any:
    """One time step of ``mode`` (PyTorch's cell arithmetic): the new hidden state (and,
    for an LSTM, ``(h, c)``). ``projected``: ``x`` is already the input's product with
    ``w_ih`` plus ``b_ih`` (a layer computes it for the whole sequence at once, as ATen's)."""
    igates = x if projected else F.linear(x, w_ih, b_ih)
    if mode == "LSTM":
        hx, cx = h
        # ATen's order: the hidden state's product plus the input's, cut by unsafe_chunk
        gates = F.linear(hx, w_hh, b_hh) + igates
        i, f, g, o = gates.unsafe_chunk(4, -1)
        cy = f.sigmoid() * cx + i.sigmoid() * g.tanh()
        hy = o.sigmoid() * cy.tanh()
        return (hy if w_hr is None else F.linear(hy, w_hr)), cy
    if mode == "GRU":
        ir, iz, in_ = igates.unsafe_chunk(3, -1)
        hr, hz, hn = F.linear(h, w_hh, b_hh).unsafe_chunk(3, -1)
        reset, update = (hr + ir).sigmoid(), (hz + iz).sigmoid()
        new = (in_ + hn * reset).tanh()
        return (h - new) * update + new
    pre = F.linear(h, w_hh, b_hh) + igates
    return pre.tanh() if mode == "RNN_TANH" else pre.relu()


def _mapped(hx: Any, f: Any) -> Any:
    return tuple(f(h) for h in hx) if isinstance(hx, tuple) else f(hx)


def _permute(hx: Any, indices: Tensor) -> Any:
    return _mapped(hx, lambda h: h.index_select(1, indices))


def _steps(input: Tensor, batch_sizes: list) -> list:
    if batch_sizes[0] is None:
        return [input[t] for t in range(input.shape[0])]
    xs, offset = [], 0
    for b in batch_sizes:
        xs.append(input[offset : offset + b])
        offset += b
    return xs


def _packed_direction(
    mode: str, data: Tensor, h0: Any, batch_sizes: list, weights: list, reverse: bool
) -> tuple:
    """One direction of a layer over packed ``data``, as ATen's ``PackedLayer`` (and
    ``ReversedPackedLayer``): the input's products for every step at once, each step on the
    rows still running (a state's finished rows sliced off, or, backwards, joined on), the
    steps' outputs concatenated; returns ``(output, last state)``."""
    x = F.linear(data, weights[0], weights[2])
    starts = np.cumsum([0, *batch_sizes])
    outputs: list = []
    if reverse:
        last = batch_sizes[-1]
        hidden = _rows(h0, 0, last)
        for t in reversed(range(len(batch_sizes))):
            if batch_sizes[t] > last:
                hidden = _joined([hidden, _rows(h0, last, batch_sizes[t])])
            last = batch_sizes[t]
            hidden = _rnn_step(mode, x[starts[t] : starts[t + 1]], hidden, *weights, True)
            outputs.append(hidden[0] if mode == "LSTM" else hidden)
        return ops.cat(outputs[::-1], 0), hidden
    finished, hidden, last = [], h0, batch_sizes[0]
    for t, size in enumerate(batch_sizes):
        if size < last:
            finished.append(_rows(hidden, size, last))
            hidden = _rows(hidden, 0, size)
        last = size
        hidden = _rnn_step(mode, x[starts[t] : starts[t + 1]], hidden, *weights, True)
        outputs.append(hidden[0] if mode == "LSTM" else hidden)
    return ops.cat(outputs, 0), _joined([hidden, *finished[::-1]])


def _rows(state: Any, start: int, stop: int) -> Any:
    return _mapped(state, lambda s: s[start:stop])


def _joined(states: list) -> Any:
    """States of consecutive rows joined (each part of an LSTM's pair apart)."""
    if isinstance(states[0], tuple):
        return tuple(ops.cat(list(parts), 0) for parts in zip(*states))
    return ops.cat(states, 0)


def _masked_step(
    mode: str, x: Tensor, h: Any, active: int | None, weights: list, projected: bool = False
) -> Any:
    """One step for the first ``active`` rows of the state (all when None or when every row is
    active); the other rows keep their state. ``projected`` as :func:`_rnn_step`'s."""
    rows = (h[0] if mode == "LSTM" else h).shape[0] if active is not None else None
    if active is None or active == rows:
        return _rnn_step(mode, x, h, *weights, projected=projected)
    if mode == "LSTM":
        hy, cy = _rnn_step(mode, x, (h[0][:active], h[1][:active]), *weights)
        return ops.cat([hy, h[0][active:]], 0), ops.cat([cy, h[1][active:]], 0)
    return ops.cat([_rnn_step(mode, x, h[:active], *weights), h[active:]], 0)


def _check_cell_hidden(input: Tensor, hidden: tuple, size: int) -> None:
    """ATen's checks of a cell's batched states against its 2-D input: each state's rows and
    columns (a state that would broadcast is still an error, as PyTorch's)."""
    for k, h in enumerate(hidden):
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {h.shape[0]}"
            )
        if h.shape[1] != size:
            raise RuntimeError(
                f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, expected {size}"
            )


def _check_cell_arguments(cell: str, input: Tensor, hx: Any, input_size: int, lstm: bool) -> None:
    """The cell modules' checks, in PyTorch's order: the input's rank, each given state's
    rank, then the input's size."""
    if input.ndim not in (1, 2):
        raise ValueError(f"{cell}: Expected input to be 1D or 2D, got {input.ndim}D instead")
    states = {} if hx is None else dict(enumerate(hx)) if lstm else {None: hx}
    for k, h in states.items():
        if h.dim() not in (1, 2):
            which = "hidden" if k is None else f"hx[{k}]"
            raise ValueError(f"{cell}: Expected {which} to be 1D or 2D, got {h.dim()}D instead")
    if input.shape[-1] != input_size:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[-1]} expected {input_size}"
        )


def _check_size(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")
