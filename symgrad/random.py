"""Random generators as in ``torch.random``: :class:`Generator` objects with their own seed
and state, and the default generator that ``rand``, ``randn``, ``randint``, ``randperm``,
dropout and shuffling draw from unless given another.

Each generator is PyTorch's CPU generator (its Mersenne Twister, seeded as PyTorch seeds it,
and its sampling kernels: ``symgrad._cpu_generator``), so a seeded program draws PyTorch's
numbers: ``rand``, ``randn``, ``randint``, ``randperm``, ``uniform_``, ``normal_``,
``bernoulli`` and dropout masks, and with them the layers' initial weights. The states are
PyTorch's 5056 bytes, so a state saved by one library loads into the other.

Examples
--------
>>> import symgrad
>>> _ = symgrad.manual_seed(0)
>>> symgrad.rand(3)
tensor([0.4963, 0.7682, 0.0885])
>>> g = symgrad.Generator().manual_seed(0)
>>> a = symgrad.rand(3, generator=g)
>>> _ = g.manual_seed(0)
>>> bool((a == symgrad.rand(3, generator=g)).all())
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad._cpu_generator import STATE_BYTES, CpuStream, from_state, to_state
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
_DEFAULT_SEED = 67280421310721  # a new Generator's seed in PyTorch


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
    byte values. A new generator starts from PyTorch's fixed seed, 67280421310721.
    """

    def __init__(self, device: Any = "cpu") -> None:
        self.device = as_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: Any) -> Generator:
        """Restart from ``seed``; returns the generator."""
        self._initial_seed = _seed_value(seed)
        rng = getattr(self, "_rng", None)
        if type(rng) is CpuStream:
            rng.reseed(self._initial_seed)
        else:
            self._rng = CpuStream(self._initial_seed)
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
        """The generator's state for :meth:`set_state`: PyTorch's 5056 bytes (a ``uint8``
        tensor), so ``torch.get_rng_state()`` loads here and this state in PyTorch."""
        return Tensor._make(to_state(self._stream(), self._initial_seed))

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from :meth:`get_state` (or PyTorch's); returns the generator."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a symgrad.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype.numpy != np.uint8:
            raise TypeError(
                f"RNG state must be a symgrad.ByteTensor (uint8), not a {new_state.dtype} "
                "tensor: pass what get_state() returned"
            )
        if new_state.numel() != STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                f"RNG state size to be {new_state.numel()}"
            )
        stream = self._stream()
        saved = stream.state
        try:
            self._initial_seed = from_state(stream, np.asarray(new_state.numpy()).reshape(-1))
        except ValueError:
            stream.state = saved
            raise RuntimeError("Invalid mt19937 state") from None
        return self

    def _stream(self) -> CpuStream:
        rng = self._rng
        if type(rng) is not CpuStream:  # inside vmap or a trace: the draw's own error
            rng.uniform_fill  # noqa: B018 - (raises)
        return rng

    def __repr__(self) -> str:
        return f"<symgrad.Generator object at {id(self):#x}>"


default_generator = Generator()
default_generator.seed()  # the default one from the operating system's entropy, as PyTorch's


def numpy_generator(generator: Generator | None, like: Any = None) -> CpuStream:
    """The stream behind ``generator`` (the default one for None): PyTorch's samplers, and
    NumPy's for the others; for draws shaped like the meta tensor ``like``, one that draws no
    values (see ``symgrad._meta``)."""
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
    for name, bound in (("low", low), ("high", high)):
        if isinstance(bound, (float, np.floating)):
            raise TypeError(
                f"randint(): argument '{name}' must be int, not {type(bound).__name__} "
                f"({bound!r}): give an int"
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
