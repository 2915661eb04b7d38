"""The Tensor methods whose one argument must be a tensor, as in PyTorch (``t.maximum(2.0)``
is refused where ``t.eq(2.0)`` is not), bound over the plain methods once every op module
has bound its own."""

from symgrad._arguments import tensor_method
from symgrad.ops import elementwise as E
from symgrad.tensor import Tensor, bind_methods

# each method and PyTorch's name of its argument
_ARGUMENT = {
    "maximum": "other",
    "minimum": "other",
    "fmax": "other",
    "fmin": "other",
    "logical_and": "other",
    "logical_or": "other",
    "logical_xor": "other",
    "heaviside": "values",
    "heaviside_": "values",
    "dot": "tensor",
    "mm": "mat2",
    "bmm": "mat2",
    "mv": "vec",
    "outer": "vec2",
    "kron": "other",
    "cross": "other",
    "matmul": "other",
    "take_along_dim": "indices",
    "masked_select": "mask",
}

# with ``self`` a tensor and ``other`` checked, these methods are their primitive: one call
_PRIMITIVE = {"maximum": E.MAXIMUM, "minimum": E.MINIMUM}

bind_methods(
    {
        name: tensor_method(
            _PRIMITIVE.get(name) or getattr(Tensor, name),
            name,
            arg,
            getattr(Tensor, name).__doc__,
            only=name in _PRIMITIVE,
        )
        for name, arg in _ARGUMENT.items()
    }
)
