"""A floating number's parts: ``frexp`` (the mantissa and the exponent of 2), with PyTorch's
node name and gradient."""

from __future__ import annotations

import numpy as np

from symgrad.ops.determinants import return_type
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__ = ["frexp"]

# the mantissa input / 2**exponent, the exponent held fixed (its derivative is 0 almost
# everywhere); NumPy's frexp is the exact kernel, the scale 2**-exponent the rule, in both modes
# (the kernel is no linear map: the tangent is scaled, not split in parts of its own)
_FREXP = Structural(
    "frexp",
    lambda xp, a, scale: a * xp.constant(scale),
    lambda xp, g, c: (g * xp.constant(c.params["scale"]),),
    backward="FrexpBackward0",
    kernel=lambda xp, a, scale: np.frexp(a)[0],
    jvp=lambda xp, tangents, c: tangents[0] * xp.constant(c.params["scale"]),
)


def frexp(input: Tensor) -> tuple:
    """The mantissa (in ``[0.5, 1)`` in absolute value, ``input``'s dtype) and the exponent
    (``int32``) with ``input = mantissa * 2 ** exponent``; 0, infinities and nan have exponent
    0. Gradients flow through the mantissa (``FrexpBackward0``: ``grad / 2 ** exponent``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.frexp(symgrad.tensor([1.5, -8.0, 0.0]))
    symgrad.return_types.frexp(
    mantissa=tensor([ 0.7500, -0.5000,  0.0000]),
    exponent=tensor([1, 4, 0], dtype=symgrad.int32))
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"frexp(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError("symgrad.frexp() only supports floating-point dtypes")
    exponent = np.frexp(input._data)[1].astype(np.int32)
    scale = np.ldexp(np.ones((), input._data.dtype), -exponent)
    mantissa = _FREXP(input, scale=scale)
    return return_type("frexp", ("mantissa", "exponent"))(mantissa, Tensor._make(exponent))


def _frexp_method(self: Tensor) -> tuple:
    return frexp(self)


_frexp_method.__doc__ = frexp.__doc__
bind_methods({"frexp": _frexp_method})
