"""The functions a formula may call, derived from the op registry.

A formula calls an element-wise primitive of :data:`symgrad.ops.REGISTRY` by name when the
primitive takes one or two tensors and no parameters, and symgrad offers it as a function of the
same name (``exp``, ``maximum``: PyTorch's names), never an in-place one (``exp_``). The
arithmetic ones among them are written as operators (``x + y``, not ``add(x, y)``).
:data:`EXTRAS` declares the few functions a formula may call beyond those. A name in a formula
only ever looks these tables up: it never reaches any other attribute of any module.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import symgrad
from symgrad import ops
from symgrad.ops import REGISTRY
from symgrad.tensor import Tensor

__all__ = ["Function", "EXTRAS", "OPERATOR_OPS", "TABLE", "FUNCTIONS"]


@dataclass(frozen=True)
class Function:
    """A function a formula may call.

    Attributes
    ----------
    arity : int
        Its number of (positional) arguments.
    compute : callable
        Computes it from tensors and numbers.
    """

    arity: int
    compute: Callable[..., Any]


def _on_tensors(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with every number argument entering as an unnamed float64 tensor."""

    def compute(*args: Any) -> Any:
        return function(
            *(
                a if isinstance(a, Tensor) else symgrad.tensor(float(a), dtype=symgrad.float64)
                for a in args
            )
        )

    return compute


# the registry's ops that a formula writes as an operator, not as a call (rsub: number - x)
OPERATOR_OPS = frozenset({"add", "sub", "rsub", "mul", "div", "neg"})

# what a formula may call besides the registry's parameter-free ops
EXTRAS = {
    # the ** operator by name: a number exponent or base stays a number, as with **
    "pow": Function(2, operator.pow),
    # its parameters at PyTorch's defaults, beta=1 and threshold=20
    "softplus": Function(1, _on_tensors(ops.softplus)),
}


def _from_registry() -> dict[str, Function]:
    offered = set(ops.__all__)
    return {
        name: Function(len(prim.inputs), _on_tensors(prim))
        for name, prim in REGISTRY.items()
        if name in offered
        and name not in OPERATOR_OPS
        # a formula computes new values: an in-place name (relu_) is never a function of it
        and not name.endswith("_")
        and not prim.params
        and len(prim.inputs) in (1, 2)
    }


TABLE: dict[str, Function] = {**_from_registry(), **EXTRAS}
# the functions a formula may call, with their number of arguments
FUNCTIONS: dict[str, int] = {name: function.arity for name, function in TABLE.items()}
