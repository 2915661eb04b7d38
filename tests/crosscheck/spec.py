"""What a program is: its inputs (:class:`Arg`), the checks that apply (:class:`Program`), and
the registry the ``@program`` decorator fills."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Arg:
    """How to make one input: random floats in ``[lo, hi)`` of ``shape``, or literal ``values``.

    ``kind`` is "float", "int" or "bool"; only float inputs may require grad.
    """

    shape: tuple = ()
    lo: float = -2.0
    hi: float = 2.0
    values: Any = None
    kind: str = "float"
    requires_grad: bool = True

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """The NumPy values of this input (float64 for floats; cast later for float32)."""
        if self.values is not None:
            dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_}[self.kind]
            return np.array(self.values, dtype=dtype)
        return rng.uniform(self.lo, self.hi, self.shape)


def F(*shape: int, lo: float = -2.0, hi: float = 2.0) -> Arg:  # noqa: N802 - reads as a type
    """A random float input that requires grad.

    Examples
    --------
    >>> F(2, 3, lo=0.5).shape
    (2, 3)
    """
    return Arg(shape, lo, hi)


def V(values: Any) -> Arg:  # noqa: N802
    """A float input with literal values that requires grad (for ties and kinks)."""
    return Arg(values=values)


def C(*shape: int, lo: float = -2.0, hi: float = 2.0, values: Any = None) -> Arg:  # noqa: N802
    """A float constant: random or literal values that do not require grad."""
    return Arg(shape, lo, hi, values=values, requires_grad=False)


def I(values: Any) -> Arg:  # noqa: E743, N802
    """An int64 constant (class indices, index tensors)."""
    return Arg(values=values, kind="int", requires_grad=False)


def B(values: Any) -> Arg:  # noqa: N802
    """A bool constant (masks)."""
    return Arg(values=values, kind="bool", requires_grad=False)


@dataclass(frozen=True)
class Program:
    """One program and the checks that apply to it.

    composite: symgrad builds the output from other nodes, so its ``grad_fn`` name may differ
        from PyTorch's without either being wrong (reported, not failed).
    second_order: compare second derivatives through ``autograd.grad(create_graph=True)``.
    float32: also compare in float32 with looser tolerances.
    xfail: known discrepancies, keyed by check ("values", "names", "repr", "second_order",
        "float32"), each with the reason shown by pytest.
    """

    name: str
    fn: Callable[..., Any]
    inputs: tuple[Arg, ...]
    composite: bool = False
    second_order: bool = False
    float32: bool = False
    xfail: dict = field(default_factory=dict)

    def values(self) -> list[np.ndarray]:
        """The input values, the same on every call (seeded by the program's name)."""
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return [arg.sample(rng) for arg in self.inputs]


PROGRAMS: list[Program] = []


def names_differ(ours: str, theirs: str) -> dict:
    """The ``xfail`` entry for an output node that PyTorch names differently."""
    return {"names": f"grad_fn is {ours}; PyTorch names this node {theirs}"}


def program(*inputs: Arg, **flags: Any) -> Callable:
    """Register the decorated ``fn(T, *inputs)`` as a program named after the function."""

    def register(fn: Callable) -> Callable:
        PROGRAMS.append(Program(fn.__name__, fn, inputs, **flags))
        return fn

    return register
