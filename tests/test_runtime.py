"""The process-wide switches and small queries at the top level (symgrad._threads,
symgrad._runtime, symgrad._autocast): thread counts, matmul precision, deterministic and
anomaly modes, warn-always, typename, get_device, set_default_tensor_type, flush-denormal and
the autocast queries.

Each case calls the same code with ``T`` either symgrad or torch, restores what it changed,
and is reduced to plain data (or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_table import outcome

import symgrad
from symgrad import _runtime, _threads
from symgrad.prim import blocks


def _threads_round_trip(T):
    before = T.get_num_threads()
    try:
        T.set_num_threads(1)
        one = T.get_num_threads()
    finally:
        T.set_num_threads(before)
    return one, T.get_num_threads() == before


def _precision(T, value):
    try:
        T.set_float32_matmul_precision(value)
        return T.get_float32_matmul_precision()
    finally:
        T.set_float32_matmul_precision("highest")


def _deterministic(T, set_it):
    try:
        set_it(T)
        return (
            T.are_deterministic_algorithms_enabled(),
            T.is_deterministic_algorithms_warn_only_enabled(),
            T.get_deterministic_debug_mode(),
        )
    finally:
        T.use_deterministic_algorithms(False)


def _anomaly(T, *args):
    try:
        T.set_anomaly_enabled(*args)
        return T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()
    finally:
        T.set_anomaly_enabled(False)


def _anomaly_context(T):
    with T.autograd.detect_anomaly():
        inside = T.is_anomaly_enabled()
    return inside, T.is_anomaly_enabled()


def _warn_always(T, value):
    try:
        T.set_warn_always(value)
        return T.is_warn_always_enabled()
    finally:
        T.set_warn_always(False)


def _default_tensor_type(T, t):
    try:
        T.set_default_tensor_type(t(T) if callable(t) else t)
        return str(T.get_default_dtype()).rsplit(".", 1)[-1], T.tensor([1.0]).type()
    finally:
        T.set_default_dtype(T.float32)


def _inference(T):
    with T.inference_mode():
        t = T.ones(1)
    return T.is_inference(t), T.is_inference(T.ones(1)), T.is_inference(input=t)


def _autocast_context(T):
    with T.autocast("cpu", enabled=False):
        return T.is_autocast_enabled("cpu")


def _autocast_nesting(T):
    return T.autocast_increment_nesting(), T.autocast_decrement_nesting()


def _autocast_cache(T):
    try:
        T.set_autocast_cache_enabled(False)
        return T.is_autocast_cache_enabled()
    finally:
        T.set_autocast_cache_enabled(True)


CASES = {
    "threads": (_threads_round_trip, (1, True)),
    "threads_positive": (lambda T: T.get_num_threads() >= 1, True),
    "interop_positive": (lambda T: T.get_num_interop_threads() >= 1, True),
    "threads_zero": (lambda T: T.set_num_threads(0), ("raises", "RuntimeError")),
    "threads_negative": (lambda T: T.set_num_threads(-1), ("raises", "RuntimeError")),
    "threads_float": (lambda T: T.set_num_threads(1.5), ("raises", "RuntimeError")),
    "threads_bool": (lambda T: T.set_num_threads(True), ("raises", "RuntimeError")),
    "interop_zero": (lambda T: T.set_num_interop_threads(0), ("raises", "RuntimeError")),
    "interop_float": (lambda T: T.set_num_interop_threads(2.0), ("raises", "RuntimeError")),
    "init_num_threads": (lambda T: T.init_num_threads(), None),
    "precision_default": (lambda T: T.get_float32_matmul_precision(), "highest"),
    "precision_high": (lambda T: _precision(T, "high"), "high"),
    "precision_medium": (lambda T: _precision(T, "medium"), "medium"),
    "precision_unknown": (lambda T: _precision(T, "HIGH"), "highest"),
    "precision_not_str": (lambda T: _precision(T, 1), ("raises", "RuntimeError")),
    "deterministic_default": (lambda T: _deterministic(T, lambda T: None), (False, False, 0)),
    "deterministic_on": (
        lambda T: _deterministic(T, lambda T: T.use_deterministic_algorithms(True)),
        (True, False, 2),
    ),
    "deterministic_warn_only": (
        lambda T: _deterministic(T, lambda T: T.use_deterministic_algorithms(True, warn_only=True)),
        (True, True, 1),
    ),
    "deterministic_not_bool": (
        lambda T: T.use_deterministic_algorithms(1),
        ("raises", "TypeError"),
    ),
    "deterministic_warn_only_not_bool": (
        lambda T: T.use_deterministic_algorithms(False, warn_only=1),
        ("raises", "TypeError"),
    ),
    "deterministic_missing_mode": (
        lambda T: T.use_deterministic_algorithms(),
        ("raises", "TypeError"),
    ),
    "debug_mode_warn": (
        lambda T: _deterministic(T, lambda T: T.set_deterministic_debug_mode("warn")),
        (True, True, 1),
    ),
    "debug_mode_2": (
        lambda T: _deterministic(T, lambda T: T.set_deterministic_debug_mode(2)),
        (True, False, 2),
    ),
    "debug_mode_default": (
        lambda T: _deterministic(T, lambda T: T.set_deterministic_debug_mode("default")),
        (False, False, 0),
    ),
    "debug_mode_3": (lambda T: T.set_deterministic_debug_mode(3), ("raises", "RuntimeError")),
    "debug_mode_name": (
        lambda T: T.set_deterministic_debug_mode("DEFAULT"),
        ("raises", "RuntimeError"),
    ),
    "debug_mode_float": (
        lambda T: T.set_deterministic_debug_mode(1.0),
        ("raises", "TypeError"),
    ),
    "anomaly_default": (
        lambda T: (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()),
        (False, True),
    ),
    "anomaly_on": (lambda T: _anomaly(T, True), (True, True)),
    "anomaly_no_nan_check": (lambda T: _anomaly(T, True, False), (True, False)),
    "anomaly_not_bool": (lambda T: _anomaly(T, 1), ("raises", "TypeError")),
    "anomaly_missing": (lambda T: T.set_anomaly_enabled(), ("raises", "TypeError")),
    "anomaly_context": (_anomaly_context, (True, False)),
    "is_inference": (_inference, (True, False, True)),
    "is_inference_number": (lambda T: T.is_inference(1), ("raises", "TypeError")),
    "warn_always": (lambda T: _warn_always(T, True), True),
    "warn_always_default": (lambda T: T.is_warn_always_enabled(), False),
    "warn_always_not_bool": (lambda T: _warn_always(T, 1), ("raises", "RuntimeError")),
    "typename_float": (lambda T: T.typename(T.ones(1)), "torch.FloatTensor"),
    "typename_double": (
        lambda T: T.typename(T.ones(1, dtype=T.float64)),
        "torch.DoubleTensor",
    ),
    "typename_long": (lambda T: T.typename(T.tensor([1])), "torch.LongTensor"),
    "typename_bool": (lambda T: T.typename(T.tensor([True])), "torch.BoolTensor"),
    "typename_half": (lambda T: T.typename(T.ones(1, dtype=T.float16)), "torch.HalfTensor"),
    "typename_parameter": (
        lambda T: T.typename(T.nn.Parameter(T.ones(1))),
        "torch.FloatTensor",
    ),
    "typename_int": (lambda T: T.typename(3), "int"),
    "typename_str": (lambda T: T.typename("s"), "str"),
    "typename_none": (lambda T: T.typename(None), "NoneType"),
    "typename_module": (
        lambda T: T.typename(T.nn.Linear(1, 1)).rsplit(".", 1)[-1],
        "Linear",
    ),
    "is_storage_tensor": (lambda T: T.is_storage(T.ones(1)), False),
    "is_storage_number": (lambda T: T.is_storage(3), False),
    "get_device": (lambda T: T.get_device(T.ones(1)), -1),
    "get_device_meta": (lambda T: T.get_device(T.ones(1, device="meta")), -1),
    "get_device_number": (lambda T: T.get_device(3), ("raises", "TypeError")),
    "default_type_double": (
        lambda T: _default_tensor_type(T, lambda T: T.DoubleTensor),
        ("float64", "torch.DoubleTensor"),
    ),
    "default_type_name": (
        lambda T: _default_tensor_type(T, "torch.DoubleTensor"),
        ("float64", "torch.DoubleTensor"),
    ),
    "default_type_half": (
        lambda T: _default_tensor_type(T, lambda T: T.HalfTensor)[0],
        "float16",
    ),
    "default_type_long": (
        lambda T: _default_tensor_type(T, lambda T: T.LongTensor),
        ("raises", "TypeError"),
    ),
    "default_type_long_name": (
        lambda T: _default_tensor_type(T, "torch.LongTensor"),
        ("raises", "TypeError"),
    ),
    "default_type_dtype": (
        lambda T: _default_tensor_type(T, lambda T: T.float64),
        ("raises", "TypeError"),
    ),
    "default_type_number": (lambda T: _default_tensor_type(T, 3), ("raises", "TypeError")),
    "default_type_unknown_module": (
        lambda T: _default_tensor_type(T, "foo"),
        ("raises", "ModuleNotFoundError"),
    ),
    "flush_denormal_not_bool": (lambda T: T.set_flush_denormal(1), ("raises", "RuntimeError")),
    "autocast_enabled": (lambda T: T.is_autocast_enabled(), False),
    "autocast_enabled_cpu": (lambda T: T.is_autocast_enabled("cpu"), False),
    "autocast_enabled_keyword": (lambda T: T.is_autocast_enabled(device_type="cuda"), False),
    "autocast_enabled_bad_device": (
        lambda T: T.is_autocast_enabled("foo"),
        ("raises", "RuntimeError"),
    ),
    "autocast_enabled_number": (lambda T: T.is_autocast_enabled(1), ("raises", "TypeError")),
    "autocast_cpu_enabled": (lambda T: T.is_autocast_cpu_enabled(), False),
    "autocast_ipu_enabled": (lambda T: T.is_autocast_ipu_enabled(), False),
    "autocast_xla_enabled": (lambda T: T.is_autocast_xla_enabled(), False),
    "autocast_set_off": (lambda T: T.set_autocast_enabled("cpu", False), None),
    "autocast_set_off_one_argument": (lambda T: T.set_autocast_enabled(False), None),
    "autocast_set_not_bool": (lambda T: T.set_autocast_enabled(1), ("raises", "TypeError")),
    "autocast_set_nothing": (lambda T: T.set_autocast_enabled(), ("raises", "TypeError")),
    "autocast_cpu_set_off": (lambda T: T.set_autocast_cpu_enabled(False), None),
    "autocast_cache_default": (lambda T: T.is_autocast_cache_enabled(), True),
    "autocast_cache": (_autocast_cache, False),
    "autocast_cache_not_bool": (
        lambda T: T.set_autocast_cache_enabled(1),
        ("raises", "TypeError"),
    ),
    "autocast_nesting": (_autocast_nesting, (1, 0)),
    "autocast_clear_cache": (lambda T: T.clear_autocast_cache(), None),
    "autocast_off_context": (_autocast_context, False),
    "autocast_device_not_str": (lambda T: T.autocast(3), ("raises", "ValueError")),
    "autocast_bad_device": (lambda T: T.autocast("foo"), ("raises", "RuntimeError")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert outcome(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert outcome(torch, fn) == expected


def test_set_num_threads_reaches_the_blas_library():
    if not _threads.blas_controlled():
        pytest.skip("no BLAS library under NumPy that symgrad can control")
    before = symgrad.get_num_threads()
    try:
        symgrad.set_num_threads(1)
        assert [get() for get, _ in _threads._controllers()] == [1] * len(_threads._controllers())
        a = np.random.default_rng(0).standard_normal((64, 64))
        assert np.allclose((symgrad.from_numpy(a) @ symgrad.from_numpy(a)).numpy(), a @ a)
    finally:
        symgrad.set_num_threads(before)
    assert symgrad.get_num_threads() == before


def test_set_num_threads_is_remembered_without_a_library(monkeypatch):
    monkeypatch.setattr(blocks, "_SET", [])
    monkeypatch.setattr(_threads._state, "controllers", [])
    monkeypatch.setattr(_threads._state, "threads", 3)
    assert symgrad.get_num_threads() == 3
    symgrad.set_num_threads(5)
    assert symgrad.get_num_threads() == 5
    assert not _threads.blas_controlled()


def test_set_num_threads_shares_large_element_wise_ops_among_that_many(monkeypatch):
    monkeypatch.setattr(blocks, "_SET", [])
    monkeypatch.setattr(_threads._state, "controllers", [])
    x = symgrad.linspace(0.0, 1.0, 3 * blocks.EAGER_MIN, dtype=symgrad.float64)
    for n in (1, 3):
        symgrad.set_num_threads(n)
        assert blocks.threads() == n
        assert np.array_equal(x.exp().numpy(), np.exp(x.numpy()))


def test_set_num_interop_threads_once(monkeypatch):
    monkeypatch.setattr(_threads._state, "interop_set", False)
    monkeypatch.setattr(_threads._state, "interop", 2)
    symgrad.set_num_interop_threads(3)
    assert symgrad.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
        symgrad.set_num_interop_threads(4)
    assert symgrad.get_num_interop_threads() == 3


def test_unknown_precision_warns():
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        symgrad.set_float32_matmul_precision("fast")
    assert symgrad.get_float32_matmul_precision() == "highest"


def test_set_anomaly_enabled_turns_on_the_detection():
    x = symgrad.tensor([0.0], requires_grad=True)
    symgrad.set_anomaly_enabled(True)
    try:
        with pytest.raises(RuntimeError, match="nan"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x / x).sum().backward()  # 0/0: the backward step returns NaN
    finally:
        symgrad.set_anomaly_enabled(False)
    assert not symgrad.autograd.is_anomaly_enabled()


def test_set_default_tensor_type_warns_as_deprecated():
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            symgrad.set_default_tensor_type("symgrad.DoubleTensor")
        assert symgrad.zeros(1).dtype is symgrad.float64
    finally:
        symgrad.set_default_dtype(symgrad.float32)


def test_unknown_legacy_type_name():
    with pytest.raises(AttributeError, match="no attribute 'Foo'"):
        symgrad.set_default_tensor_type("torch.Foo")


def test_flush_denormal_is_reported_unsupported():
    # NumPy keeps denormal numbers: flushing is refused, keeping them succeeds
    assert symgrad.set_flush_denormal(True) is False
    assert symgrad.set_flush_denormal(False) is True
    tiny = symgrad.tensor([1e-40], dtype=symgrad.float32)
    assert tiny.item() != 0.0


def test_typename_of_symgrad_classes():
    assert symgrad.typename(symgrad.nn.Linear(1, 1)) == "symgrad.nn.modules.linear.Linear"
    assert _runtime.typename(np.float64(1.0)) == "numpy.float64"


def test_deprecated_autocast_queries_warn():
    with pytest.warns(DeprecationWarning, match="is_autocast_enabled\\('cpu'\\)"):
        assert symgrad.is_autocast_cpu_enabled() is False


@pytest.mark.parametrize(
    "turn_on",
    [
        lambda: symgrad.set_autocast_enabled(True),
        lambda: symgrad.set_autocast_enabled("cpu", True),
        lambda: symgrad.autocast("cpu"),
        lambda: symgrad.autocast(device_type="cpu", dtype=symgrad.float16),
    ],
)
def test_turning_autocast_on_says_it_is_not_supported(turn_on):
    with pytest.raises(NotImplementedError, match="does not support autocast"):
        turn_on()
    assert symgrad.is_autocast_enabled("cpu") is False


def test_disabled_autocast_decorates():
    @symgrad.autocast("cpu", enabled=False)
    def double(x):
        return x * 2

    assert double(symgrad.tensor([1.5])).tolist() == [3.0]
