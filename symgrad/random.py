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
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from symgrad._cpu_generator import STATE_BYTES, CpuStream, from_state, to_state
from symgrad._device import as_device
from symgrad._layout import fill_order, is_contiguous
from symgrad._meta import MetaArray
from symgrad._meta_draws import META_DRAWS
from symgrad._tracing import TRACE, draw
from symgrad.tensor import Tensor

__all__ = [
    "Generator",
    "default_generator",
    "in_memory_order",
    "layout_of",
    "normal_values",
    "check_from_to",
    "check_randperm",
    "float_bounds",
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

    def clone_state(self) -> Generator:
        """A new generator in this one's state (and with its initial seed).

        Examples
        --------
        >>> import symgrad
        >>> g = symgrad.Generator().manual_seed(0)
        >>> c = g.clone_state()
        >>> symgrad.equal(symgrad.rand(3, generator=g), symgrad.rand(3, generator=c))
        True
        """
        clone = Generator(self.device)
        clone.set_state(self.get_state())
        return clone

    def get_offset(self) -> int:
        """PyTorch's ``RuntimeError``: offsets belong to counter-based (CUDA) generators.

        Examples
        --------
        >>> import symgrad
        >>> symgrad.Generator().get_offset()
        Traceback (most recent call last):
        RuntimeError: CPU Generator does not use offset
        """
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        """PyTorch's ``RuntimeError``: offsets belong to counter-based (CUDA) generators.

        Examples
        --------
        >>> import symgrad
        >>> symgrad.Generator().set_offset(4)
        Traceback (most recent call last):
        RuntimeError: CPU Generator does not use offset
        """
        raise RuntimeError("CPU Generator does not use offset")

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


def layout_of(t: Tensor) -> tuple | None:
    """The strides (in elements) of the tensor ``t`` that a fill writes into; None where its
    values have no layout (meta, batched)."""
    data = t._data
    if type(data) is not np.ndarray:
        return None
    return tuple(s // data.itemsize for s in data.strides)


def in_memory_order(
    draw: Callable, shape: tuple, strides: tuple | None, *arrays: np.ndarray
) -> np.ndarray:
    """``draw(shape, *arrays)``'s values for a tensor of ``shape`` laid out with ``strides``
    (elements; None: row-major), drawn in the order the tensor's memory holds its elements, as
    PyTorch's kernels fill it (a transposed tensor gets its numbers column by column); the
    result has ``shape``. ``arrays`` (parameters broadcast to ``shape``) follow the same
    order."""
    order = None if strides is None else fill_order(shape, strides)
    if order is None:
        return draw(shape, *arrays)
    along = [np.broadcast_to(a, shape).transpose(order) for a in arrays]
    values = draw(tuple(shape[d] for d in order), *along)
    return values.transpose(np.argsort(order))


def normal_values(
    stream: CpuStream, shape: tuple, dtype: Any, mean: float, std: float, strides: Any = None
) -> np.ndarray:
    """``normal_(mean, std)`` of a tensor of ``shape``, ``dtype`` and ``strides``: PyTorch's
    vectorised sampler for a contiguous one, its scalar kernel (one float64 value at a time,
    in memory order) for any other."""
    if strides is None or is_contiguous(shape, strides) or type(stream) is not CpuStream:
        return stream.normal_fill(shape, dtype, mean, std)
    wide = np.float32 if np.dtype(dtype) == np.float16 else dtype  # (double to half via float)

    def scalar(s: tuple) -> np.ndarray:
        return stream.normals(math.prod(s), mean, std).astype(wide).astype(dtype).reshape(s)

    return in_memory_order(scalar, shape, strides)


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


def check_randperm(n: int, np_dtype: Any, scalar_type: str) -> None:
    """PyTorch's refusals of a permutation of ``n`` whose largest value ``np_dtype`` can't
    hold exactly (``scalar_type`` names the dtype as PyTorch's messages do)."""
    kind = np.dtype(np_dtype)
    if kind.kind == "b":
        raise NotImplementedError(f"\"randperm\" not implemented for '{scalar_type}'")
    if kind.kind == "f":
        digits = np.finfo(kind).nmant + 1
        if n > 2**digits + 1:
            most = "2049" if digits == 11 else f"2^{digits}+1"
            raise RuntimeError(f"n cannot be greater than {most} for {scalar_type} type.")
    elif max(n - 1, 0) > np.iinfo(kind).max:
        raise RuntimeError(f"value cannot be converted to type {kind.name}_t without overflow")


# the C++ names PyTorch's messages give each dtype
_CPP_NAMES = {
    "int8": "signed char",
    "uint8": "unsigned char",
    "int16": "short",
    "uint16": "unsigned short",
    "int32": "int",
    "uint32": "unsigned int",
    "int64": "long",
    "uint64": "unsigned long",
    "bool": "bool",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
}


def check_from_to(low: int, high: int, np_dtype: Any) -> None:
    """PyTorch's checks of integers drawn in ``[low, high)`` into ``np_dtype``: a RuntimeError
    where ``low`` or ``high - 1`` is not a value of the dtype (NumPy would wrap it round), a
    UserWarning where a floating dtype can't hold every integer of the range."""
    kind = np.dtype(np_dtype)
    name = _CPP_NAMES.get(kind.name, kind.name)
    if kind.kind == "f":
        info = np.finfo(kind)
        least, most, digits = float(info.min), float(info.max), info.nmant + 1
    elif kind.kind == "b":
        least, most, digits = 0, 1, None
    else:
        least, most, digits = int(np.iinfo(kind).min), int(np.iinfo(kind).max), None
    for what, bound in (("from", low), ("to - 1", high - 1)):
        if not least <= bound <= most:
            raise RuntimeError(
                f"{what} is out of bounds for {name} (the range [{low}, {high}) must fit in "
                f"{kind.name})"
            )
        if digits is not None and not -(2**digits) <= bound <= 2**digits:
            warnings.warn(
                f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                f"limitations {name} can support discrete uniform distribution only within this "
                "range. This warning will become an error in version 1.7 release, please fix "
                "the code in advance",
                UserWarning,
                stacklevel=4,
            )


def float_bounds(low: int, high: int, np_dtype: Any) -> tuple[int, int]:
    """PyTorch's ``update_from``/``update_to`` for a floating dtype: ``low`` moved up where
    ``low + 1`` rounds below it in the dtype, ``high`` moved down where ``high - 1`` rounds up
    to it, each by one step of the dtype; a RuntimeError where no integer is left between."""
    kind = np.dtype(np_dtype)
    if kind.kind != "f":
        return low, high
    digits = np.finfo(kind).nmant + 1
    with np.errstate(over="ignore"):  # a bound past the dtype's range: check_from_to refuses it
        low_plus_1, high_minus_1 = kind.type(low + 1), kind.type(high - 1)
    if np.isfinite(low_plus_1) and int(low_plus_1) < low:
        low = int(low_plus_1) + (1 << (abs(low + 1).bit_length() - digits))
    if np.isfinite(high_minus_1) and int(high_minus_1) >= high:
        high = int(high_minus_1) - (1 << (abs(high - 1).bit_length() - digits))
    if not low < high:
        raise RuntimeError(
            "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
            f"got from={low} >= to={high}"
        )
    return low, high


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
