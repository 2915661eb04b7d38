"""Random generators as in ``torch.random``: :class:`Generator` objects with their own seed
and state, and the default generator that ``rand``, ``randn``, ``randint``, ``randperm``,
dropout and shuffling draw from unless given another.

Each generator wraps a NumPy ``Generator`` (PCG64), so seeded runs are reproducible; the
numbers differ from PyTorch's, whose generator is a different algorithm.

Examples
--------
>>> import symgrad
>>> g = symgrad.Generator().manual_seed(0)
>>> a = symgrad.rand(3, generator=g)
>>> _ = g.manual_seed(0)
>>> bool((a == symgrad.rand(3, generator=g)).all())
True
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad._device import as_device
from symgrad._meta import META_DRAWS, MetaArray
from symgrad._tracing import TRACE, draw
from symgrad.tensor import Tensor

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "fork_rng",
]

_SEED_RANGE = 2**64


def _seed_value(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    if not -(2**63) <= int(seed) < _SEED_RANGE:
        raise ValueError("Overflow when unpacking long long")
    return int(seed) % _SEED_RANGE


class Generator:
    """A source of random numbers with its own seed and state (``torch.Generator``).

    ``manual_seed(s)`` restarts it from ``s`` (and returns it, so
    ``Generator().manual_seed(0)`` reads as in PyTorch); ``seed()`` reseeds it from the
    operating system; ``get_state()``/``set_state()`` save and restore it as a tensor of
    byte values.
    """

    def __init__(self, device: Any = "cpu") -> None:
        self.device = as_device(device)
        self.seed()

    def manual_seed(self, seed: Any) -> Generator:
        """Restart from ``seed``; returns the generator."""
        self._initial_seed = _seed_value(seed)
        self._rng = np.random.default_rng(self._initial_seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        value = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The seed the generator last started from."""
        return self._initial_seed

    def get_state(self) -> Tensor:
        """The generator's state for :meth:`set_state`: a ``uint8`` tensor of bytes, as in
        PyTorch (their meaning is symgrad's own)."""
        raw = json.dumps([self._initial_seed, self._rng.bit_generator.state]).encode()
        return Tensor._make(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from :meth:`get_state`; returns the generator."""
        if not isinstance(new_state, Tensor) or new_state.dtype.numpy.kind not in "iu":
            raise TypeError(
                "RNG state must be the integer tensor Generator.get_state() returns, not "
                + (
                    f"a {new_state.dtype} tensor"
                    if isinstance(new_state, Tensor)
                    else type(new_state).__name__
                )
            )
        try:  # JSON (numbers and strings only): a seed and the PCG64 state
            seed, state = json.loads(new_state.numpy().astype(np.uint8).tobytes().decode())
            seed = _seed_value(seed)
            rng = np.random.default_rng()
            rng.bit_generator.state = state
        except Exception as error:
            raise RuntimeError(
                "set_state: the tensor is not a state saved by Generator.get_state() "
                f"({new_state.numel()} bytes)"
            ) from error
        self._initial_seed, self._rng = seed, rng
        return self

    def __repr__(self) -> str:
        return f"<symgrad.Generator object at {id(self):#x}>"


default_generator = Generator()


def numpy_generator(generator: Generator | None, like: Any = None) -> np.random.Generator:
    """The NumPy generator behind ``generator`` (the default one for None); for draws shaped
    like the meta tensor ``like``, one that draws no values (see ``symgrad._meta``)."""
    if like is not None and type(like._data) is MetaArray:
        return META_DRAWS  # type: ignore[return-value]
    if TRACE.log is not None:
        draw()
    if generator is None:
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a symgrad.Generator, not {type(generator).__name__}")
    return generator._rng


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator (``rand``, ``randn``, dropout, shuffling) for reproducible
    runs; returns it."""
    # PyTorch's function reads the seed with int() (1.5, "12" and True are seeds); a
    # Generator's own manual_seed takes ints only
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Reseed the default generator from the operating system; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator last started from."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (a tensor of byte values)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from :func:`get_rng_state`."""
    default_generator.set_state(new_state)


def check_randint(low: Any, high: Any, size: Any) -> None:
    """PyTorch's errors for ``randint(low, high, size)``: a TypeError for a size that is not
    a tuple, a RuntimeError for an empty range."""
    if isinstance(size, (int, np.integer)) or size is None:
        raise TypeError(
            f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}: "
            f"write randint(low, high, ({size},))"
        )
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )


@contextlib.contextmanager
def fork_rng(
    devices: Any = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """A context in which random draws leave no trace: the default generator's state is
    restored on leaving (``enabled=False`` forks nothing). symgrad has only the CPU
    generator, so ``devices`` and ``device_type`` change nothing.

    Examples
    --------
    >>> import symgrad
    >>> state = symgrad.get_rng_state()
    >>> with symgrad.random.fork_rng():
    ...     _ = symgrad.rand(3)
    >>> bool((symgrad.get_rng_state() == state).all())
    True
    """
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)
