"""``AdaptiveLogSoftmaxWithLoss``: the adaptive softmax of Grave et al. (2016), "Efficient
softmax approximation for GPUs", with PyTorch's parameters, outputs and errors.

The classes, sorted from the most to the least frequent, are split at ``cutoffs``: the first
``cutoffs[0]`` (the shortlist) get their log-probabilities from one linear ``head``, which also
scores one entry per later cluster; a class in cluster ``i`` adds the log-probability of its
cluster in the head to its log-probability within the cluster, computed by ``tail[i]``, a
projection to ``in_features // div_value ** (i + 1)`` features followed by a linear layer.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad.nn import functional as F
from symgrad.nn.modules.container import ModuleList, Sequential
from symgrad.nn.modules.linear import Linear
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_BAD_CUTOFFS = (
    "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
    "where each value is between 1 and n_classes-1"
)


def _check_cutoffs(cutoffs: list, n_classes: int) -> None:
    if not cutoffs:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    increasing = all(a < b for a, b in zip(cutoffs, cutoffs[1:]))
    integral = all(int(c) == c for c in cutoffs)
    if not (increasing and integral and cutoffs[0] > 0 and cutoffs[-1] <= n_classes - 1):
        raise ValueError(_BAD_CUTOFFS)


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax over ``n_classes`` classes split at ``cutoffs`` (see the module
    notes). Called as ``(input, target)`` with input ``(N, in_features)`` and target ``(N,)``
    (or ``(in_features,)`` and ``()``), it returns the named tuple ``(output, loss)``: each
    target's log-probability and the mean negative log-likelihood. ``log_prob(input)``
    gives every class's log-probability, ``predict(input)`` the most likely class.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6], div_value=2.0)
    >>> [tuple(p.shape) for p in asm.parameters()]
    [(5, 8), (4, 8), (3, 4), (2, 8), (4, 2)]
    >>> x = symgrad.randn(4, 8)
    >>> out = asm(x, symgrad.tensor([0, 4, 9, 2]))
    >>> out.output.shape, type(out.loss.grad_fn).__name__
    (symgrad.Size([4]), 'MeanBackward0')
    >>> symgrad.allclose(asm.log_prob(x).exp().sum(1), symgrad.ones(4))  # probabilities
    True
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        kwargs = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kwargs),
                    Linear(hidden, size, bias=False, **kwargs),
                )
            )

    def reset_parameters(self) -> None:
        """New initial values for the head and every tail layer."""
        self.head.reset_parameters()
        for projection, layer in self.tail:
            projection.reset_parameters()
            layer.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> _ASMoutput:
        batched = self._check_shapes(input, target)
        x = input if batched else input.unsqueeze(0)
        labels = np.asarray(target.detach().numpy()).reshape(-1)
        if labels.size and (labels.min() < 0 or labels.max() >= self.n_classes):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{labels.min()}, {labels.max()}] were found. "
            )
        cluster = np.searchsorted(self.cutoffs, labels, side="right")  # 0: the shortlist
        head_column = np.where(cluster == 0, labels, self.shortlist_size + cluster - 1)
        output = x.new_zeros(labels.size)
        for i in range(1, self.n_clusters + 1):
            rows = np.flatnonzero(cluster == i)
            if rows.size == 0:
                continue
            rows_t = creation.tensor(rows, dtype=dtypes.int64)
            within = creation.tensor(labels[rows] - self.cutoffs[i - 1], dtype=dtypes.int64)
            scores = self.tail[i - 1](x.index_select(0, rows_t))
            picked = F.log_softmax(scores, dim=1).gather(1, within.unsqueeze(1))
            output = output.index_copy(0, rows_t, picked.squeeze(1))
        head_logprob = F.log_softmax(self.head(x), dim=1)
        column = creation.tensor(head_column, dtype=dtypes.int64).unsqueeze(1)
        output = output + head_logprob.gather(1, column).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _check_shapes(self, input: Tensor, target: Tensor) -> bool:
        """PyTorch's errors for mismatched input and target; whether they are batched."""
        if target.ndim == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input.ndim != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input.size()}"
                )
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input.size()}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        return target.ndim == 1

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """Every class's log-probability, from the head's output on ``input``."""
        head_logprob = F.log_softmax(head_output, dim=1)
        out = input.new_empty((head_output.size(0), self.n_classes))
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i in range(self.n_clusters):
            start, stop = self.cutoffs[i], self.cutoffs[i + 1]
            within = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = within + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class, ``(N, n_classes)`` for an input
        ``(N, in_features)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row of ``input`` (as ``log_prob(input).argmax(1)``,
        computing the clusters only for rows whose best head entry is a cluster)."""
        head_output = self.head(input)
        best = head_output.argmax(dim=1)
        in_cluster = np.flatnonzero(best.numpy() >= self.shortlist_size)
        if in_cluster.size == 0:
            return best
        rows = creation.tensor(in_cluster, dtype=dtypes.int64)
        full = self._full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows))
        best[rows] = full.argmax(dim=1)
        return best
