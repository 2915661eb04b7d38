"""``Tensor._fw_primal(level)``: the tensor's values without its tangent, a view of it
recorded, where it requires grad, as PyTorch's ``Identity`` node (a ``CppFunction``): what
:func:`symgrad.autograd.forward_ad.unpack_dual` gives as the primal inside a dual level.

Examples
--------
>>> import symgrad
>>> import symgrad.autograd.forward_ad as fwAD
>>> x = symgrad.ones(2, requires_grad=True)
>>> with fwAD.dual_level():
...     primal = fwAD.unpack_dual(fwAD.make_dual(x, symgrad.ones(2))).primal
>>> primal
tensor([1., 1.], grad_fn=<Identity>)
>>> type(primal.grad_fn).__name__, primal.grad_fn.name()
('CppFunction', 'torch::autograd::Identity')
"""

from __future__ import annotations

from typing import Any

from symgrad.autograd import dual
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, bind_methods

__all__: list[str] = []

_FW_PRIMAL = Structural(
    "_fw_primal",
    lambda xp, a: a,
    lambda xp, g, c: (g,),
    backward="CppFunction",
    jvp="linear",
    text=COPIES,
    batch="elementwise",
)
_FW_PRIMAL.cpp_name = "Identity"  # its node's name(): a C++ node without a class of its own


def _fw_primal(self: Tensor, level: Any) -> Tensor:
    """A view of this tensor's values without a tangent (PyTorch's ``Identity`` node)."""
    with dual.disabled():
        return _FW_PRIMAL(self)


bind_methods({"_fw_primal": _fw_primal})
