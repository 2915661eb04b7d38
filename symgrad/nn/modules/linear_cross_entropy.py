"""``LinearCrossEntropyLoss`` (PyTorch 2.13): a linear layer to logits and the cross entropy
of those logits, in one module; and ``LinearCrossEntropyOptions``, the chunking options
PyTorch's batch-chunked kernel takes (symgrad validates them and computes the reference)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from symgrad import dtypes
from symgrad.nn.linear_cross_entropy import linear_cross_entropy
from symgrad.nn.modules.linear import Linear
from symgrad.nn.modules.loss import _WeightedLoss
from symgrad.tensor import Tensor

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]

_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How PyTorch's chunked ``linear_cross_entropy`` splits the batch: ``batch_chunk_size``
    rows at a time (``None``: one chunk), or a size picked by ``chunking_method`` (``"auto"``,
    ``"aspect_ratio"``, ``"aspect_ratio:N"`` or ``None``); ``acc_policy`` and ``acc_dtype``
    choose the precision of its sums. The values are checked as PyTorch checks them
    (``ValueError``); symgrad computes the unchunked reference whatever they are, so the
    loss and gradients are the reference's.

    Examples
    --------
    >>> from symgrad import nn
    >>> options = nn.LinearCrossEntropyOptions(batch_chunk_size=64)
    >>> options.batch_chunk_size, options.chunking_method, options.acc_policy
    (64, 'auto', 'auto')
    >>> nn.LinearCrossEntropyOptions(acc_policy="fast")
    Traceback (most recent call last):
    ...
    ValueError: invalid acc_policy: 'fast'
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method not in (None, "auto"):
            name, colon, factor = str(self.chunking_method).partition(":")
            factor = factor if colon else "1"
            if name != "aspect_ratio" or not factor.isdigit() or int(factor) <= 0:
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and (type(size) is not int or size <= 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        floats = (dtypes.float16, dtypes.float32, dtypes.float64)
        if self.acc_dtype is not None and self.acc_dtype not in floats:
            raise ValueError(
                "acc_dtype must be one of {None, float16, bfloat16, float32, float64}, got "
                f"{self.acc_dtype!r}. Pass acc_dtype=None to let the op pick automatically."
            )

    def _adjust(self, num_batches: int, in_features: int, num_classes: int, *_: Any, **__: Any):
        """These options for a call, as PyTorch's chunked kernel checks them: an explicit
        ``batch_chunk_size`` must be the size ``chunking_method`` picks (``ValueError``)."""
        method = self.chunking_method
        if method in (None, "auto"):  # "auto" yields to an explicit size
            return self
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        target = -(-num_batches // -(-num_classes // in_features))
        size = min((1 << (target - 1).bit_length()) // factor, num_batches)
        if self.batch_chunk_size is not None and self.batch_chunk_size != size:
            raise ValueError(
                f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                f"('{method}') give different chunk sizes ({self.batch_chunk_size} vs {size}); "
                "pass only one."
            )
        return self


class LinearCrossEntropyLoss(_WeightedLoss):
    """The cross entropy of ``linear(input)``: a bias-free (by default) ``Linear`` layer
    ``in_features -> num_classes * prod(out_features)``, kept as ``self.linear``, whose
    output is read as logits ``(N, C, *out_features)``; then
    :func:`~symgrad.nn.functional.linear_cross_entropy` with the loss options.
    ``ignore_index=None`` means -100 for class indices (and may not be given with class
    probabilities).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> loss = nn.LinearCrossEntropyLoss(2, 3)
    >>> with symgrad.no_grad():
    ...     _ = loss.linear.weight.zero_()
    >>> loss(symgrad.ones(4, 2), symgrad.tensor([0, 1, 2, 0]))  # log 3: uniform logits
    tensor(1.0986, grad_fn=<NllLossBackward0>)
    """

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if not 0 <= label_smoothing <= 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight, None, None, reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # stored flat, as PyTorch: the logits' dimensions are restored in forward
        rows = math.prod(out_features, start=num_classes)
        self.linear = Linear(in_features, rows, bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return linear_cross_entropy(
            input,
            self.linear.weight.reshape((*shape, self.linear.in_features)),
            target,
            linear_bias=None if bias is None else bias.reshape(shape),
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )
