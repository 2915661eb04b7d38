"""What the recurrent layers record around their arithmetic so that the outermost nodes carry
PyTorch's CPU names: a float32 LSTM layer's results pass through ``MkldnnRnnLayerBackward0``
(PyTorch runs it with oneDNN as one fused node per layer and direction; here the results get
one identity node of that name over the recorded steps, so values and gradients are unchanged),
and GRU and RNN turn a ``batch_first`` output around in place (``TransposeBackward1``)."""

from __future__ import annotations

from typing import Any

from symgrad import dtypes
from symgrad.prim.shown_node import shown_node
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor

__all__ = ["fused_lstm_layer", "uses_fused_lstm", "batch_major", "packed_type"]

# the fused node shows the layer's input, w_ih, w_hh, b_ih, b_hh, h_0, c_0 as its next_functions
# (the engine walks the recorded steps), and has no forward-mode rule, as PyTorch's
_NO_JVP = no_forward_rule("mkldnn_rnn_layer")


def uses_fused_lstm(mode: str, input: Tensor, proj_size: int, packed: bool) -> bool:
    """Where PyTorch's CPU LSTM runs oneDNN: float32, no projections, not packed.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.rnn_nodes import uses_fused_lstm
    >>> uses_fused_lstm("LSTM", symgrad.zeros(2), 0, False)
    True
    >>> uses_fused_lstm("LSTM", symgrad.zeros(2, dtype=symgrad.float64), 0, False)
    False
    """
    return mode == "LSTM" and input.dtype is dtypes.float32 and not proj_size and not packed


def fused_lstm_layer(output: Tensor, state: tuple, given: tuple = ()) -> tuple:
    """``output`` and the final ``(h, c)`` of one layer and direction, each through an
    ``MkldnnRnnLayerBackward0`` node, whose ``next_functions`` are PyTorch's fused node's:
    the tensors ``given`` (the layer's input, its four weights and biases, ``h_0``, ``c_0``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.rnn_nodes import fused_lstm_layer
    >>> h = symgrad.ones(2, requires_grad=True) * 1.0
    >>> out, (h_last, c_last) = fused_lstm_layer(h, (h, h))
    >>> out.grad_fn.name(), out.tolist()
    ('MkldnnRnnLayerBackward0', [1.0, 1.0])
    """
    # one node for the layer's output, last h and last c (its outputs 0, 1 and 2, as PyTorch's)
    results = shown_node(
        "mkldnn_rnn_layer", "MkldnnRnnLayerBackward0", (output, *state), given, _NO_JVP
    )
    return results[0], results[1:]


def batch_major(output: Tensor, mode: str) -> Tensor:
    """A time-major output turned batch-major, as PyTorch: the LSTM with ``transpose``, GRU and
    RNN with ``transpose_``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.rnn_nodes import batch_major
    >>> out = symgrad.zeros(5, 2, 3, requires_grad=True) * 1.0
    >>> batch_major(out, "GRU").shape, out.grad_fn.name()
    (symgrad.Size([2, 5, 3]), 'TransposeBackward1')
    """
    return output.transpose(0, 1) if mode == "LSTM" else output.transpose_(0, 1)


def packed_type(value: Any) -> type | None:
    """PackedSequence when ``value`` is one, else None.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.rnn_nodes import packed_type
    >>> packed_type(symgrad.zeros(1)) is None
    True
    """
    from symgrad.nn.utils.rnn import PackedSequence

    return PackedSequence if isinstance(value, PackedSequence) else None
