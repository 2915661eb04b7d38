"""One step of a recurrent cell with its weights passed in, as ATen's ``torch.lstm_cell``,
``torch.gru_cell``, ``torch.rnn_tanh_cell`` and ``torch.rnn_relu_cell``: PyTorch's checks of
the sizes, then the arithmetic of :class:`symgrad.nn.LSTMCell` (and the others), so the nodes
are the modules' (an LSTM's ``h'`` is a ``MulBackward0``, its ``c'`` an ``AddBackward0``).

Examples
--------
>>> import symgrad
>>> x, h = symgrad.ones(1, 1), symgrad.zeros(1, 1)
>>> symgrad.rnn_relu_cell(x, h, symgrad.tensor([[2.0]]), symgrad.tensor([[1.0]]))
tensor([[2.]])
"""

from __future__ import annotations

from typing import Any

from symgrad.nn.modules.rnn import _rnn_step
from symgrad.nn.modules.rnn_steps import _check_cell_hidden
from symgrad.tensor import Tensor

__all__ = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _check(op: str, input: Any, hidden: tuple, w_ih: Any, w_hh: Any, gates: int) -> None:
    """PyTorch's checks of a cell's input, hidden states and weights, in its order."""
    for position, (name, t) in ((1, ("input", input)), (3, ("w_ih", w_ih)), (4, ("w_hh", w_hh))):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}"
        )
    size = w_hh.shape[1]
    _check_cell_hidden(input, hidden, size)
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.shape[0] != gates * size:
            raise RuntimeError(
                f"{name} first dim must be {gates} * hidden_size = {gates * size}, but got "
                f"{w.shape[0]}"
            )


def _hidden(op: str, hx: Any) -> Tensor:
    if not isinstance(hx, Tensor):
        raise TypeError(
            f"{op}(): argument 'hx' (position 2) must be Tensor, not {type(hx).__name__}"
        )
    return hx


def lstm_cell(
    input: Tensor,
    hx: Any,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple:
    """One LSTM step of a batch ``input`` (N, input_size) from ``hx = (h, c)``: returns
    ``(h', c')`` (gates in PyTorch's order: input, forget, cell, output).

    Examples
    --------
    >>> import symgrad
    >>> x, h, c = symgrad.ones(1, 1), symgrad.zeros(1, 1), symgrad.ones(1, 1)
    >>> w_ih, w_hh = symgrad.zeros(4, 1), symgrad.zeros(4, 1)
    >>> symgrad.lstm_cell(x, (h, c), w_ih, w_hh)
    (tensor([[0.2311]]), tensor([[0.5000]]))
    """
    if not isinstance(hx, (tuple, list)) or not all(isinstance(h, Tensor) for h in hx):
        raise TypeError(
            "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
            f"{type(hx).__name__}"
        )
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check("lstm_cell", input, tuple(hx), w_ih, w_hh, 4)
    return _rnn_step("LSTM", input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """One GRU step of a batch ``input`` (N, input_size) from ``hx`` (N, hidden_size)
    (gates in PyTorch's order: reset, update, new).

    Examples
    --------
    >>> import symgrad
    >>> x, h = symgrad.ones(1, 1), symgrad.ones(1, 1)
    >>> symgrad.gru_cell(x, h, symgrad.zeros(3, 1), symgrad.zeros(3, 1))
    tensor([[0.5000]])
    """
    hx = _hidden("gru_cell", hx)
    _check("gru_cell", input, (hx,), w_ih, w_hh, 3)
    return _rnn_step("GRU", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """``tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh)``, one step of an Elman RNN.

    Examples
    --------
    >>> import symgrad
    >>> x, h = symgrad.ones(1, 1), symgrad.zeros(1, 1)
    >>> symgrad.rnn_tanh_cell(x, h, symgrad.tensor([[1.0]]), symgrad.tensor([[1.0]]))
    tensor([[0.7616]])
    """
    hx = _hidden("rnn_tanh_cell", hx)
    _check("rnn_tanh_cell", input, (hx,), w_ih, w_hh, 1)
    return _rnn_step("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """``relu(input w_ih^T + b_ih + hx w_hh^T + b_hh)``, one step of an Elman RNN.

    Examples
    --------
    >>> import symgrad
    >>> x, h = symgrad.ones(1, 1), symgrad.zeros(1, 1)
    >>> symgrad.rnn_relu_cell(x, h, symgrad.tensor([[-1.0]]), symgrad.tensor([[1.0]]))
    tensor([[0.]])
    """
    hx = _hidden("rnn_relu_cell", hx)
    _check("rnn_relu_cell", input, (hx,), w_ih, w_hh, 1)
    return _rnn_step("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)
