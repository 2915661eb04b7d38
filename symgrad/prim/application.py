"""Calling an element-wise primitive on tensors: the path every ``x * y`` and ``x.exp()``
takes, kept apart from the primitive's declaration (:mod:`symgrad.prim.elementwise`).

The common case (floating tensors of one dtype with Python numbers, nothing special switched
on) is one pass over the arguments and one kernel call with NumPy's warnings switched off
inline; everything else (promotion, integer inputs, vmap, forward mode, anomaly mode, errors)
takes the general path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import INT_ARG_END, INT_ARG_MIN, check_broadcast, in_dtype
from symgrad._layout import output_strides
from symgrad._memory_format import laid_out_as_inputs
from symgrad._meta import MetaArray, check_devices, meta_array
from symgrad._silent import cast, silencer
from symgrad.autograd import anomaly, dual, grad_mode
from symgrad.prim import blocks, tangents
from symgrad.prim.batch_rules import batched_call
from symgrad.prim.batching import STATE as _batch_state
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.primitive import as_operand, int_overflow, recorded, with_origin
from symgrad.tensor import NAMES, Tensor

__all__ = ["Application"]
_grad_state = grad_mode._state
_anomaly_state = anomaly._state
_dual_state = dual.STATE
_silent_set, _silent_reset, _SILENT = silencer()
_EAGER_MIN = blocks.EAGER_MIN
_WIDE = "fd"  # float32 and float64: the fast path's dtypes (float16 is computed in float32)
_HALF, _SINGLE = np.dtype(np.float16), np.dtype(np.float32)


class Application:
    """How an element-wise primitive is called (mixed into
    :class:`~symgrad.prim.elementwise.Elementwise`, which provides ``numeric``, ``name`` and
    ``promote``, and sets ``_raw`` when it builds ``numeric``)."""

    _raw: Any = None  # the forward kernel itself, once built (None: not yet, or old NumPy)
    half_in_float32 = True  # float16 operands computed in float32 (False: in float16)
    name: str
    promote: str

    def __call__(self, *args: Any, params: tuple = ()) -> Tensor:
        raw = self._raw
        if (
            raw is not None
            and not _batch_state.depth
            and _dual_state.level is None
            and not _anomaly_state.enabled
            and (not params or _plain(params))
        ):
            # the common case: floating tensors of one dtype with Python numbers (which never
            # upcast), nothing special switched on; anything else, or a kernel that raises,
            # takes the general path below (which names the error). One and two arguments
            # (nearly every op) are read without a loop, and the kernel is called inline: this
            # runs once per op.
            n = len(args)
            operands, mixed = None, False
            if n == 1:
                a = args[0]
                if type(a) is Tensor:
                    d = a._data
                    if type(d) is np.ndarray and d.dtype.char in _WIDE:
                        operands = (d, *params) if params else (d,)
                        dtype, requires, big = d.dtype, a._requires_grad, d.size >= _EAGER_MIN
            elif n == 2:
                a, b = args
                ta, tb = type(a), type(b)
                if ta is Tensor:
                    d = a._data
                    if type(d) is np.ndarray and d.dtype.char in _WIDE:
                        dtype = d.dtype
                        if tb is Tensor:
                            e = b._data
                            if type(e) is np.ndarray and (e.dtype is dtype or e.dtype == dtype):
                                operands = (d, e, *params)
                                requires = a._requires_grad or b._requires_grad
                                big = d.size >= _EAGER_MIN or e.size >= _EAGER_MIN
                                mixed = not (d.flags.c_contiguous and e.flags.c_contiguous)
                        elif tb is float or (tb is int and INT_ARG_MIN <= b < INT_ARG_END):
                            operands = (d, b, *params)
                            requires, big = a._requires_grad, d.size >= _EAGER_MIN
                elif tb is Tensor and (
                    ta is float or (ta is int and INT_ARG_MIN <= a < INT_ARG_END)
                ):
                    e = b._data
                    if type(e) is np.ndarray and e.dtype.char in _WIDE:
                        operands = (a, e, *params)
                        dtype, requires, big = e.dtype, b._requires_grad, e.size >= _EAGER_MIN
            else:
                result = self._fast_many(raw, args, params)
                if result is not None:
                    return result
            if operands is not None:
                if big:
                    out = _big(raw, operands)
                else:
                    token = _silent_set(_SILENT)
                    try:
                        out = raw(*operands)
                    except Exception:
                        out = None  # (the general path calls it again and names the error)
                    finally:
                        _silent_reset(token)
                if mixed:  # (a one-input kernel keeps its input's layout in NumPy)
                    out = laid_out_as_inputs(out, operands)
                if (
                    requires
                    and type(out) is np.ndarray
                    and out.dtype is dtype
                    and _grad_state.enabled
                ):
                    return recorded(self, args, params, out)
                return self._result(out, dtype, requires, args, params)
        return self._general(args, params)

    def _result(
        self, out: Any, dtype: np.dtype, requires: bool, args: tuple, params: tuple
    ) -> Tensor:
        """The fast path's result tensor for the kernel's ``out`` (recorded where it needs a
        gradient), or the general path's where the kernel raised or gave something else."""
        if type(out) is not np.ndarray:
            if isinstance(out, np.generic) and _all_zero_dim(args):
                out = np.asarray(out)  # a ufunc of 0-d arrays gives a NumPy scalar
            else:
                return self._general(args, params)
        if out.dtype is not dtype and out.dtype != dtype:
            out = cast(out, dtype)
        if requires and _grad_state.enabled:
            return recorded(self, args, params, out)
        if NAMES.used:
            return with_origin(self, args, params, Tensor._make(out))
        return Tensor._make(out)

    def _fast_many(self, raw: Any, args: tuple, params: tuple) -> Tensor | None:
        """The fast path of three or more arguments (None: take the general path)."""
        dtype = None
        datas = []
        requires = False
        for a in args:
            t = type(a)
            if t is Tensor:
                d = a._data
                if type(d) is not np.ndarray:
                    return None  # a meta tensor: the general path
                if dtype is None:
                    dtype = d.dtype
                elif d.dtype != dtype:
                    return None
                datas.append(d)
                if a._requires_grad:
                    requires = True
            elif t is float or (t is int and INT_ARG_MIN <= a < INT_ARG_END):
                datas.append(a)
            else:
                return None
        if dtype is None or dtype.char not in _WIDE:
            return None
        out = laid_out_as_inputs(_quiet(raw, (*datas, *params)), datas)
        return self._result(out, dtype, requires, args, params)

    def _general(self, args: tuple, params: tuple) -> Tensor:
        """Any call: promotion, integer inputs, vmap, forward mode, anomaly mode, errors."""
        if _batch_state.depth and any(type(a) is BatchedTensor for a in args):
            return batched_call(self, args, params, "elementwise")
        datas = []
        requires = False
        for a in args:
            t = type(a)
            if t is Tensor:
                datas.append(a._data)
                requires = requires or a._requires_grad
            elif t is float or (t is int and INT_ARG_MIN <= a < INT_ARG_END):
                datas.append(a)
            else:
                break
        else:
            return self._finish(args, datas, params, requires)
        args = tuple(a if isinstance(a, Tensor) else as_operand(a, self.name) for a in args)
        datas = [a._data if isinstance(a, Tensor) else a for a in args]
        requires = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        return self._finish(args, datas, params, requires)

    def _finish(self, args: tuple, datas: list, params: tuple, requires: bool) -> Tensor:
        dtype = self._result_dtype(args + params if params else args)
        numbers = params
        operands = datas  # the layout is the operands', before a cast fills in broadcast ones
        if dtype is _HALF and self.half_in_float32:  # rounded once, as PyTorch's kernels
            datas = [_single(_half_number(d, k, self.name)) for k, d in enumerate(datas)]
            if params and self.name in _HALF_PARAMS:  # (the node keeps the exact ones)
                numbers = tuple(_half_param(p) for p in params)
        else:
            datas = [in_dtype(d, dtype) for d in datas]
        if _has_meta(datas) and check_devices(args):
            return self._finish_meta(args, datas, params, requires, dtype)
        try:
            out = self.numeric(*datas, *numbers)
        except ValueError:
            check_broadcast(self.name, datas)
            raise
        except OverflowError:  # a Python int the integer tensor's dtype can't hold
            raise int_overflow(self.name, datas + list(params), dtype) from None
        if not isinstance(out, np.ndarray):  # (a meta tensor's array is a subclass)
            # a formula that is constant in its inputs (the VJP of sign) gives a bare number
            shape = np.broadcast_shapes(*(np.shape(d) for d in datas))
            out = np.full(shape, out, dtype=dtype)
        elif out.dtype != dtype:
            out = cast(out, dtype)
        if len(datas) > 1:  # (a one-input kernel keeps its input's layout, as on the fast path)
            out = laid_out_as_inputs(out, operands)
        if _anomaly_state.enabled:
            anomaly.check_forward(self, out, datas, params)
        if requires and _grad_state.enabled:
            result = recorded(self, args, params, out)
        elif NAMES.used:
            result = with_origin(self, args, params, Tensor._make(out))
        else:
            result = Tensor._make(out)
        if _dual_state.level is not None and dual.active():
            return tangents.propagate(self, args, params, result)
        return result

    def _finish_meta(
        self, args: tuple, datas: list, params: tuple, requires: bool, dtype: np.dtype
    ) -> Tensor:
        """The meta tensor of the result's shape and dtype, with the node recorded."""
        try:
            shape = np.broadcast_shapes(*(np.shape(d) for d in datas))
        except ValueError:
            check_broadcast(self.name, datas)  # PyTorch's RuntimeError
            raise
        out = meta_array(shape, dtype, output_strides(datas, shape))  # PyTorch's layout
        if requires and _grad_state.enabled:
            return recorded(self, args, params, out)
        return Tensor._make(out)

    def _result_dtype(self, args: tuple) -> np.dtype:
        # fast path: floating tensors of one dtype, with Python numbers (which never upcast)
        first = args[0]
        if type(first) is Tensor:
            dtype = first._data.dtype
            if dtype.kind == "f":
                for a in args:
                    if type(a) is Tensor:
                        if a._data.dtype != dtype:
                            break
                    elif type(a) is not float and type(a) is not int:
                        break
                else:
                    return dtype
        d = dtypes.result_type(*args)
        if self.promote == "float" and not d.is_floating_point:
            d = dtypes.get_default_dtype()
        if d in dtypes.LIMITED:
            dtypes.check_limited(d, self.name)
        return d.numpy


def _half_number(data: Any, position: int, name: str) -> Any:
    """A number (or another dtype's 0-d array) operand of a float16 op, rounded to float16
    first as PyTorch casts it, except the second factor of a product or quotient, which its
    kernels take at full precision."""
    if position == 1 and name in ("mul", "div"):
        return data
    kind = type(data)
    if kind is float or kind is int or (kind is np.ndarray and data.ndim == 0):
        return _to_half(data)
    return data


def _to_half(value: Any) -> Any:
    """``value`` rounded to float16 (beyond its range: inf, as PyTorch's cast)."""
    try:
        with np.errstate(over="ignore"):
            return np.float16(value)
    except OverflowError:  # an int beyond even float64's range: the kernel's own error
        return value


def _half_param(value: Any) -> Any:
    """A number parameter as a float16 kernel of PyTorch reads it (ints it holds exactly stay
    ints)."""
    if type(value) is bool or (type(value) is int and -2048 <= value <= 2048):
        return value
    half = _to_half(value)
    return float(half) if type(half) is np.float16 else half


# the number parameters PyTorch's float16 kernels take as float16 numbers: the exponent and
# base of pow, the alpha of add and sub (other parameters, lerp's weight, stay exact)
_HALF_PARAMS = frozenset(
    (
        "pow",
        "pow_scalar_base",
        "add_scaled",
        "sub_scaled",
        "sub_number",
        "rsub_tensor",
        "rsub_number",
    )
)


def _single(data: Any) -> Any:
    """An operand of a float16 op in float32, the type PyTorch's kernels compute in."""
    return data.astype(_SINGLE) if type(data) is np.ndarray else in_dtype(data, _SINGLE)


def _plain(params: tuple) -> bool:
    """Whether ``params`` are Python numbers, which never upcast."""
    for p in params:
        t = type(p)
        if t is not float and t is not int:
            return False
    return True


def _has_meta(datas: list) -> bool:
    for d in datas:
        if type(d) is MetaArray:
            return True
    return False


def _all_zero_dim(args: tuple) -> bool:
    """Whether the tensors among ``args`` are all 0-d."""
    for a in args:
        if type(a) is Tensor and a._data.ndim:
            return False
    return True


def _quiet(raw: Any, operands: tuple) -> Any:
    """``raw(*operands)`` with NumPy's floating-point warnings off; None where it raises (the
    general path then calls it again and names the error)."""
    token = _silent_set(_SILENT)
    try:
        return raw(*operands)
    except Exception:
        return None
    finally:
        _silent_reset(token)


def _big(raw: Any, operands: tuple) -> Any:
    """As :func:`_quiet`, on large arrays: block by block on every core where the operands
    allow it (:func:`symgrad.prim.blocks.call`)."""
    return _quiet(blocks.call, (raw, operands))
