"""More activation modules: each keeps its options and calls the :mod:`symgrad.nn.functional`
function of the same name (``inplace=True`` overwrites the input)."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = [
    "ELU",
    "CELU",
    "SELU",
    "GELU",
    "SiLU",
    "Mish",
    "LeakyReLU",
    "Softplus",
    "Hardtanh",
    "ReLU6",
    "Hardswish",
    "Hardsigmoid",
    "LogSigmoid",
    "Softsign",
    "Tanhshrink",
    "Softshrink",
    "Hardshrink",
    "GLU",
    "Softmin",
]


class _Inplace(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with PyTorch's constants.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.SELU()(symgrad.tensor([1.0]))
    tensor([1.0507])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Mish()
    Mish()
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)


class SiLU(_Inplace):
    """``x * sigmoid(x)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.SiLU()(symgrad.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        if self.inplace:
            from symgrad.ops.inplace import inplace

            return inplace(input, "silu_", F.silu)
        return F.silu(input)


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6`` (its repr shows no options, as PyTorch's).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Hardswish(inplace=True)
    Hardswish()
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Hardsigmoid()(symgrad.tensor([0.0]))
    tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class ELU(_Inplace):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.ELU(alpha=0.5)
    ELU(alpha=0.5)
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """``x`` where positive, ``alpha * (exp(x / alpha) - 1)`` elsewhere.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.CELU()
    CELU(alpha=1.0)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class LeakyReLU(_Inplace):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.LeakyReLU()
    LeakyReLU(negative_slope=0.01)
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Hardtanh(_Inplace):
    """``x`` clamped to ``[min_val, max_val]``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.Hardtanh()
    Hardtanh(min_val=-1.0, max_val=1.0)
    """

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__(inplace)
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        extra = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{extra}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``: a :class:`Hardtanh` from 0 to 6, as PyTorch's.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.ReLU6()(symgrad.tensor([8.0]))
    tensor([6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    """The Gaussian error linear unit (``approximate='tanh'`` for the tanh formula).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.GELU()
    GELU(approximate='none')
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.Softplus()
    Softplus(beta=1.0, threshold=20.0)
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _Shrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    """``x -+ lambd`` outside ``[-lambd, lambd]``, 0 inside.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.Softshrink()
    Softshrink(0.5)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Hardshrink(_Shrink):
    """``x`` outside ``[-lambd, lambd]``, 0 inside.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.Hardshrink(1.0)
    Hardshrink(1.0)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class LogSigmoid(Module):
    """``log(sigmoid(x))``, without overflow.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.LogSigmoid()(symgrad.tensor([0.0]))
    tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """``x / (1 + |x|)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Softsign()(symgrad.tensor([1.0]))
    tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Tanhshrink()(symgrad.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class GLU(Module):
    """``a * sigmoid(b)`` for the halves ``a``, ``b`` of ``dim``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.GLU()
    GLU(dim=-1)
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x, dim)``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.Softmin(dim=1)
    Softmin(dim=1)
    """

    def __init__(self, dim: Any = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
