"""The module-level in-place functions PyTorch has (``torch.relu_(x)``, ``torch.clamp_(x, 0,
1)``): each is the Tensor method of the same name called with the tensor first, so it writes
into ``input``, records the method's node (``ReluBackward0``) and bumps the version counter.

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([-1.0, 2.0], requires_grad=True) * 1
>>> symgrad.relu_(x)
tensor([0., 2.], grad_fn=<ReluBackward0>)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.nn import activations
from symgrad.tensor import Tensor

__all__ = [
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "celu_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_",
    "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "index_put_", "log10_", "log1p_",
    "log2_", "log_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
    "round_", "rsqrt_", "selu_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_", "zero_", "logit_", "conj_physical_", "i0_",
    "ldexp_",
]  # fmt: skip

# the arguments of each example beyond the tensor, where the function needs some
_EXAMPLE_ARGS = {
    "addmv_": ", symgrad.ones(2, 3), symgrad.ones(3)",
    "clamp_": ", 0.3, 0.4",
    "clamp_max_": ", 0.3",
    "clamp_min_": ", 0.3",
    "clip_": ", 0.3, 0.4",
    "fill_": ", 1.0",
    "index_put_": ", (symgrad.tensor([0]),), symgrad.tensor(1.0)",
    "xlogy_": ", symgrad.tensor([2.0, 3.0])",
    "ldexp_": ", symgrad.tensor([2.0, 3.0])",
}


def _doc(name: str) -> str:
    values = "1.25, 1.5" if name in ("acosh_", "arccosh_") else "0.25, 0.5"
    return f"""In place: ``input.{name}(...)``, writing into ``input`` and returning it.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([{values}])
    >>> symgrad.{name}(x{_EXAMPLE_ARGS.get(name, "")}) is x
    True
    """


def _function(name: str, method: Callable | None = None) -> Callable:
    """``symgrad.name(input, *args)``: the method ``input.name(*args)`` (or ``method``)."""

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        if method is not None:
            return method(input, *args, **kwargs)
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = _doc(name)
    return function


abs_ = _function("abs_")
acos_ = _function("acos_")
acosh_ = _function("acosh_")
addmv_ = _function("addmv_")
arccos_ = _function("arccos_")
arccosh_ = _function("arccosh_")
arcsin_ = _function("arcsin_")
arcsinh_ = _function("arcsinh_")
arctan_ = _function("arctan_")
arctanh_ = _function("arctanh_")
asin_ = _function("asin_")
asinh_ = _function("asinh_")
atan_ = _function("atan_")
atanh_ = _function("atanh_")
ceil_ = _function("ceil_")
celu_ = _function("celu_", activations.celu_)
clamp_ = _function("clamp_")
clamp_max_ = _function("clamp_max_")
clamp_min_ = _function("clamp_min_")
clip_ = _function("clip_")
cos_ = _function("cos_")
cosh_ = _function("cosh_")
deg2rad_ = _function("deg2rad_")
detach_ = _function("detach_")
conj_physical_ = _function("conj_physical_")
erf_ = _function("erf_")
erfc_ = _function("erfc_")
exp2_ = _function("exp2_")
exp_ = _function("exp_")
expm1_ = _function("expm1_")
fill_ = _function("fill_")
fix_ = _function("fix_")
floor_ = _function("floor_")
frac_ = _function("frac_")
index_put_ = _function("index_put_")
log10_ = _function("log10_")
log1p_ = _function("log1p_")
log2_ = _function("log2_")
log_ = _function("log_")
nan_to_num_ = _function("nan_to_num_")
neg_ = _function("neg_")
negative_ = _function("negative_")
rad2deg_ = _function("rad2deg_")
reciprocal_ = _function("reciprocal_")
relu_ = _function("relu_")
round_ = _function("round_")
rsqrt_ = _function("rsqrt_")
selu_ = _function("selu_", activations.selu_)
sigmoid_ = _function("sigmoid_")
sin_ = _function("sin_")
sinc_ = _function("sinc_")
sinh_ = _function("sinh_")
sqrt_ = _function("sqrt_")
square_ = _function("square_")
tan_ = _function("tan_")
tanh_ = _function("tanh_")
trunc_ = _function("trunc_")
xlogy_ = _function("xlogy_")
zero_ = _function("zero_")
logit_ = _function("logit_")
i0_ = _function("i0_")
ldexp_ = _function("ldexp_")
