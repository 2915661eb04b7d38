"""Random samples whose parameters may be tensors: ``normal``, ``bernoulli`` and the in-place
``Tensor.bernoulli_``, ``normal_`` and ``uniform_``.

A sample is one primitive, ``sample``, whose drawn values are a parameter of its node: the
forward returns them on every interpreter, and the gradient to every input is zero, as in
PyTorch (``NormalBackward3``, ``BernoulliBackward0``, ...: the samples are not
reparameterized). Numbers come from symgrad's generators (:mod:`symgrad.random`), so
``manual_seed`` makes them reproducible.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.inplace import inplace
from symgrad.prim.structural import Structural
from symgrad.random import in_memory_order, layout_of, normal_values, numpy_generator
from symgrad.tensor import Tensor

__all__ = ["normal", "bernoulli"]


def _zero_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return tuple(
        xp.constant(np.zeros(shape)) if need else None for need, shape in zip(c.needs, c.shapes)
    )


_SAMPLE = Structural(
    "sample",
    lambda xp, *inputs, values, node: xp.constant(values),
    _zero_vjp,
    backward=lambda params, inputs: params["node"],
    text="a random sample (zero derivative)",
)


def _sample(inputs: tuple, values: np.ndarray, node: str) -> Tensor:
    """``values`` as the output of a node over ``inputs`` (recorded only when one of them
    requires grad)."""
    if not any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        return Tensor._make(values)
    return _SAMPLE(*inputs, values=values, node=node)


def _floating(t: Tensor, kernel: str) -> None:
    if not t.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{t.dtype.scalar_type}': sample floating "
            "tensors (convert with .float())"
        )


# -- normal ----------------------------------------------------------------------------------
def _check_std(std: Any) -> None:
    if isinstance(std, Tensor):
        if bool((std._data < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples of the normal distribution N(``mean``, ``std``²), element by element.

    ``mean`` and ``std`` are tensors (broadcast together) or numbers; with two numbers,
    ``size`` gives the shape. The samples' gradient is zero, as in PyTorch
    (``NormalBackward1``/``2``/``3`` for a tensor mean, std, or both).

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.normal(symgrad.zeros(3), 0.0)
    >>> x
    tensor([0., 0., 0.])
    >>> symgrad.normal(2.0, 0.5, (2, 3)).shape
    symgrad.Size([2, 3])
    """
    mean_tensor, std_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_tensor and not std_tensor:
        return _normal_numbers(mean, std, size, generator, dtype, device, requires_grad)
    if size is not None:
        raise TypeError("normal(): size= is only taken with a number mean and std")
    for t in (mean, std):
        if isinstance(t, Tensor):
            _floating(t, "normal_kernel_cpu")
    _check_std(std)
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    d = tensors[0].dtype if len(tensors) == 1 else dtypes.promote_types(mean.dtype, std.dtype)
    m = mean._data if mean_tensor else float(mean)
    s = std._data if std_tensor else float(std)
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    # PyTorch's order: normal_(0, std) then + mean for a number std, else normal_(0, 1),
    # * std, + mean, each rounded in the result's dtype
    stream = numpy_generator(generator, tensors[0])
    kind = d.numpy
    if std_tensor:
        z = stream.normal_fill(shape, kind) * np.asarray(s, kind)
    else:
        z = stream.normal_fill(shape, kind, 0.0, s)
    values = np.asanyarray(z + np.asarray(m, kind)).astype(kind)
    node = (
        "NormalBackward3"
        if mean_tensor and std_tensor
        else ("NormalBackward1" if mean_tensor else "NormalBackward2")
    )
    return _sample(tuple(tensors), values, node)


def _normal_numbers(mean, std, size, generator, dtype, device, requires_grad) -> Tensor:
    from symgrad import creation

    if size is None:
        raise TypeError(
            "normal() received an invalid combination of arguments - got (float, float): "
            "with a number mean and std give the size, normal(mean, std, size)"
        )
    if isinstance(size, numbers.Integral):
        raise TypeError(
            f"normal(): argument 'size' must be tuple of ints, not {type(size).__name__}: "
            f"give a shape such as ({size},)"
        )
    _check_std(std)
    # PyTorch's normal_(mean, std) of a new tensor: its scalar kernel (under 16 values)
    # rounds z * std + mean once from float64
    out = creation.empty(size, dtype=dtype, device=device)
    normal_(out, float(mean), float(std), generator=generator)
    return out.requires_grad_(requires_grad)


# -- bernoulli -------------------------------------------------------------------------------
def _check_p(p: float) -> float:
    if not isinstance(p, numbers.Real):
        raise TypeError(f"bernoulli_(): p must be a number or a Tensor, not {type(p).__name__}")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return float(p)


def _draw(
    x: Tensor, p: Any, generator: Any, d: dtypes.dtype, strides: tuple | None = None
) -> np.ndarray:
    """Bernoulli draws of probability ``p`` (a number or an array of ``x``'s shape) in ``x``'s
    shape, in the memory order of ``strides`` (an in-place fill's; None: row-major)."""
    stream = numpy_generator(generator, x)
    if isinstance(p, np.ndarray):
        values = in_memory_order(stream.bernoulli_draws, tuple(x.shape), strides, p)
    else:
        values = in_memory_order(lambda s: stream.bernoulli_draws(s, p), tuple(x.shape), strides)
    return values.astype(d.numpy)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """1 with probability ``input`` (element by element), else 0, in ``input``'s dtype; with
    a number ``p``, 1 with probability ``p`` in ``input``'s shape. The gradient is zero
    (``BernoulliBackward0``), as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.bernoulli(symgrad.tensor([0.0, 1.0, 1.0]))
    tensor([0., 1., 1.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be Tensor, not {type(input).__name__}")
    if p is not None:
        if isinstance(p, Tensor):
            raise TypeError("bernoulli(): p must be a number; use bernoulli(p_tensor) instead")
        # PyTorch records a node without a derivative here; symgrad records nothing
        return Tensor._make(_draw(input, _check_p(p), generator, input.dtype))
    _floating(input, "bernoulli_tensor_cpu_p_")
    probs = input._data
    if type(probs) is np.ndarray and not bool(((probs >= 0) & (probs <= 1)).all()):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false: bernoulli's input holds "
            "the probabilities, each in [0, 1]"
        )
    return _sample((input,), _draw(input, probs, generator, input.dtype), "BernoulliBackward0")


def _bernoulli_method(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """``bernoulli(self)``, or with a number ``p``, samples of probability ``p``."""
    return bernoulli(self, p, generator=generator)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill ``self`` with 1 with probability ``p`` (a number or a tensor of probabilities that
    broadcasts to ``self``), else 0; any dtype."""
    strides = layout_of(self)  # (drawn in its memory order, as PyTorch fills it)
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, self.shape)

        def compute(x: Tensor) -> Tensor:
            values = _draw(x, probs, generator, x.dtype, strides)
            return _sample((x, p), values, "BernoulliBackward1")

        return inplace(self, "bernoulli_", compute, p)
    p = _check_p(p)
    return inplace(
        self,
        "bernoulli_",
        lambda x: _sample((x,), _draw(x, p, generator, x.dtype, strides), "BernoulliBackward2"),
    )


# -- in-place fills --------------------------------------------------------------------------
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None):
    """Fill ``self`` with samples of N(``mean``, ``std``²) (``NormalBackward0``)."""
    _floating(self, "normal_kernel_cpu")
    _check_std(std)

    strides = layout_of(self)  # (not contiguous: PyTorch's scalar kernel, in memory order)

    def compute(x: Tensor) -> Tensor:
        stream = numpy_generator(generator, x)
        values = normal_values(stream, tuple(x.shape), x._data.dtype, mean, std, strides)
        return _sample((x,), values, "NormalBackward0")

    return inplace(self, "normal_", compute)


def _check_range(a: float, b: float, d: dtypes.dtype) -> None:
    """PyTorch's ``check_uniform_bounds``: each bound a finite value of ``d``, ``a <= b``, and
    ``b - a`` finite in ``d`` (its numbers printed as C++ prints doubles)."""
    most = float(np.finfo(d.numpy).max)
    for name, bound in (("from", a), ("to", b)):
        if not -most <= bound <= most:
            raise RuntimeError(f"{name} is out of bounds for {dtypes.cpp_name(d)}")
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )
    if b - a > most:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{d.scalar_type}>::max(), but "
            f"found to={b:g} and from={a:g} which result in to-from to exceed the limit"
        )


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None, **bounds):
    """Fill ``self`` with samples uniform in [``a``, ``b``) (PyTorch's ``from``/``to``;
    ``UniformBackward0``)."""
    a, b = bounds.pop("from", a), bounds.pop("to", b)
    if bounds:
        raise TypeError(f"uniform_() got unexpected keyword arguments {sorted(bounds)}")
    _floating(self, "check_uniform_bounds")
    _check_range(a, b, self.dtype)

    strides = layout_of(self)  # (drawn in its memory order, as PyTorch fills it)

    def compute(x: Tensor) -> Tensor:
        stream = numpy_generator(generator, x)
        dtype = x._data.dtype
        values = in_memory_order(lambda s: stream.uniform_fill(s, dtype, a, b), x.shape, strides)
        return _sample((x,), values, "UniformBackward0")

    return inplace(self, "uniform_", compute)


METHODS = {
    "bernoulli": _bernoulli_method,
    "bernoulli_": bernoulli_,
    "normal_": normal_,
    "uniform_": uniform_,
}
