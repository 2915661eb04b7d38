"""PyTorch's process-wide switches and small queries: matmul precision, deterministic
algorithms, anomaly mode, warn-always, flush-denormal, the default tensor type, ``typename``,
``is_storage``, ``get_device``, ``is_inference``.

symgrad computes with NumPy on the CPU, whose results do not depend on these switches:
float32 matrix products are always done in full float32 precision and every op is
deterministic. The switches are kept and reported as PyTorch does, so code that sets and reads
them runs unchanged; each docstring says what a switch changes in symgrad.
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import dtypes
from symgrad._arguments import require_python_bool, require_tensor
from symgrad.autograd import anomaly, grad_mode
from symgrad.legacy_types import tensortype
from symgrad.tensor import Tensor

__all__ = [
    "set_float32_matmul_precision",
    "get_float32_matmul_precision",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "get_deterministic_debug_mode",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
    "is_inference",
    "set_warn_always",
    "is_warn_always_enabled",
    "typename",
    "is_storage",
    "get_device",
    "set_default_tensor_type",
    "set_flush_denormal",
    "is_vulkan_available",
]

is_anomaly_enabled = anomaly.is_anomaly_enabled
is_anomaly_check_nan_enabled = anomaly.is_anomaly_check_nan_enabled

_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = ("default", "warn", "error")


class _State:
    precision = "highest"
    deterministic = False
    warn_only = False
    warn_always = False


_state = _State()


def set_float32_matmul_precision(precision: str) -> None:
    """Record the precision float32 matrix products may use (``"highest"``, ``"high"``,
    ``"medium"``). NumPy always multiplies float32 matrices in full float32 precision, so in
    symgrad every setting computes as ``"highest"``; an unknown name warns and changes
    nothing, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_float32_matmul_precision("high")
    >>> symgrad.get_float32_matmul_precision()
    'high'
    >>> symgrad.set_float32_matmul_precision("highest")
    """
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _state.precision = precision


def get_float32_matmul_precision() -> str:
    """The precision last set by :func:`set_float32_matmul_precision` (``"highest"`` at
    start).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_float32_matmul_precision()
    'highest'
    """
    return _state.precision


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms only (``warn_only``: warn instead of raising where
    an op has none). Every symgrad op is deterministic, so this only sets what
    :func:`are_deterministic_algorithms_enabled` and :func:`get_deterministic_debug_mode`
    report.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.use_deterministic_algorithms(True)
    >>> symgrad.are_deterministic_algorithms_enabled(), symgrad.get_deterministic_debug_mode()
    (True, 2)
    >>> symgrad.use_deterministic_algorithms(False)
    """
    require_python_bool("_set_deterministic_algorithms", "mode", mode)
    require_python_bool("_set_deterministic_algorithms", "warn_only", warn_only, None)
    _state.deterministic = mode
    _state.warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` is on.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.are_deterministic_algorithms_enabled()
    False
    """
    return _state.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was called with ``warn_only=True``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state.warn_only


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """:func:`use_deterministic_algorithms` by level: ``"default"`` or 0 (off), ``"warn"``
    or 1 (on, warn only), ``"error"`` or 2 (on).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_deterministic_debug_mode("warn")
    >>> symgrad.is_deterministic_algorithms_warn_only_enabled()
    True
    >>> symgrad.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    _state.deterministic = debug_mode != 0
    _state.warn_only = debug_mode == 1


def get_deterministic_debug_mode() -> int:
    """0 when deterministic algorithms are off, 1 when on with ``warn_only``, else 2.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_deterministic_debug_mode()
    0
    """
    if not _state.deterministic:
        return 0
    return 1 if _state.warn_only else 2


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off for the whole process, as
    :func:`symgrad.autograd.set_detect_anomaly` does, without a context.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_anomaly_enabled(True, check_nan=False)
    >>> symgrad.is_anomaly_enabled(), symgrad.is_anomaly_check_nan_enabled()
    (True, False)
    >>> symgrad.set_anomaly_enabled(False)
    """
    require_python_bool("set_anomaly_enabled", "enabled", enabled)
    require_python_bool("set_anomaly_enabled", "check_nan", check_nan, 2)
    anomaly._set(enabled, check_nan)


def is_inference(input: Tensor) -> bool:
    """Whether ``input`` is an inference tensor (made in :class:`symgrad.inference_mode`);
    the function form of ``Tensor.is_inference``.

    Examples
    --------
    >>> import symgrad
    >>> with symgrad.inference_mode():
    ...     t = symgrad.ones(2)
    >>> symgrad.is_inference(t), symgrad.is_inference(symgrad.ones(2))
    (True, False)
    """
    require_tensor("is_inference", "input", 1, input)
    return grad_mode.is_inference(input)


def set_warn_always(b: bool) -> None:
    """PyTorch's switch between warning once and warning every time. symgrad's warnings go
    through Python's :mod:`warnings`, whose filters decide how often they show; this records
    the flag for :func:`is_warn_always_enabled`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_warn_always(True)
    >>> symgrad.is_warn_always_enabled()
    True
    >>> symgrad.set_warn_always(False)
    """
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state.warn_always = b


def is_warn_always_enabled() -> bool:
    """The flag set by :func:`set_warn_always` (False at start).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_warn_always_enabled()
    False
    """
    return _state.warn_always


def typename(obj: Any) -> str:
    """The name of ``obj``'s type: a tensor's legacy type (``'torch.FloatTensor'``), else
    the module and qualified name of the object (or of its type), without ``builtins``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.typename(symgrad.ones(2, dtype=symgrad.float64))
    'torch.DoubleTensor'
    >>> symgrad.typename(3), symgrad.typename(symgrad.nn.Linear(1, 1))
    ('int', 'symgrad.nn.modules.linear.Linear')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_storage(obj: Any) -> bool:
    """Whether ``obj`` is a storage object (``Tensor.untyped_storage()``, ``storage()``); a
    tensor is not one, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2)
    >>> symgrad.is_storage(x), symgrad.is_storage(x.untyped_storage())
    (False, True)
    """
    from symgrad.ops.storages import TypedStorage, UntypedStorage

    return isinstance(obj, (UntypedStorage, TypedStorage))


def get_device(input: Tensor) -> int:
    """The index of the device ``input`` is on: -1, the CPU's (and the meta device's), as
    ``Tensor.get_device``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_device(symgrad.ones(2))
    -1
    """
    require_tensor("get_device", "input", 1, input)
    return input.get_device()


_TYPE_ERROR = "only floating-point types are supported as the default type"


def set_default_tensor_type(t: Any) -> None:
    """Set the default floating dtype from a legacy tensor type (``symgrad.DoubleTensor``)
    or its name (``"torch.DoubleTensor"``); deprecated in PyTorch in favour of
    :func:`symgrad.set_default_dtype`, and warns so, as PyTorch does.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.set_default_tensor_type(symgrad.DoubleTensor)
    >>> symgrad.ones(1).dtype
    symgrad.float64
    >>> symgrad.set_default_dtype(symgrad.float32)
    """
    if isinstance(t, str):
        t = _legacy_type_named(t)
    if not isinstance(t, tensortype):
        raise TypeError(f"invalid type object: {_TYPE_ERROR}")
    if not t.dtype.is_floating_point:
        raise TypeError(_TYPE_ERROR)
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    dtypes.set_default_dtype(t.dtype)


def _legacy_type_named(name: str) -> tensortype:
    """The legacy type called ``name`` (``"torch.FloatTensor"``, ``"symgrad.FloatTensor"``),
    looked up in a fixed table, never imported."""
    from symgrad import legacy_types

    module, _, short = name.rpartition(".")
    if module not in ("torch", "symgrad"):
        raise ModuleNotFoundError(f"No module named '{module or name}'")
    found = getattr(legacy_types, short, None) if short in legacy_types.__all__ else None
    if not isinstance(found, tensortype):
        raise AttributeError(f"module '{module}' has no attribute '{short}'")
    return found


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal floats to zero is set to ``mode``: NumPy keeps denormal
    numbers and symgrad can't change that, so asking to flush them returns False (not
    supported, as PyTorch reports on CPUs without it) and asking to keep them returns True.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_flush_denormal(True), symgrad.set_flush_denormal(False)
    (False, True)
    """
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return not mode


def is_vulkan_available() -> bool:
    """Whether the Vulkan backend can be used: never, symgrad runs on NumPy.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_vulkan_available()
    False
    """
    return False
