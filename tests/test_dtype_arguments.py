"""``dtype=`` arguments take what PyTorch's parser takes: a dtype, or Python's ``float``,
``int`` and ``bool`` (float64, int64, bool); a dtype's name ("float64") or a NumPy dtype
(``np.float32``) is PyTorch's TypeError, in every factory and every op with a ``dtype=``.
The expected results are PyTorch 2.13's, kept here so the tests run without it."""

import numpy as np
import pytest

import symgrad

X = [1.0, 2.0]

# each call takes the dtype as its one argument; PyTorch refuses a name or a NumPy dtype
CALLS = {
    "zeros": lambda T, d: T.zeros(2, dtype=d),
    "ones": lambda T, d: T.ones(2, dtype=d),
    "full": lambda T, d: T.full((2,), 1, dtype=d),
    "empty": lambda T, d: T.empty(2, dtype=d),
    "empty_strided": lambda T, d: T.empty_strided((2,), (1,), dtype=d),
    "eye": lambda T, d: T.eye(2, dtype=d),
    "arange": lambda T, d: T.arange(3, dtype=d),
    "linspace": lambda T, d: T.linspace(0, 1, 3, dtype=d),
    "logspace": lambda T, d: T.logspace(0, 1, 3, dtype=d),
    "tensor": lambda T, d: T.tensor(X, dtype=d),
    "as_tensor": lambda T, d: T.as_tensor(X, dtype=d),
    "asarray": lambda T, d: T.asarray(X, dtype=d),
    "rand": lambda T, d: T.rand(2, dtype=d),
    "randint": lambda T, d: T.randint(3, (2,), dtype=d),
    "randperm": lambda T, d: T.randperm(3, dtype=d),
    "tril_indices": lambda T, d: T.tril_indices(3, 3, dtype=d),
    "hann_window": lambda T, d: T.hann_window(4, dtype=d),
    "zeros_like": lambda T, d: T.zeros_like(T.tensor(X), dtype=d),
    "full_like": lambda T, d: T.full_like(T.tensor(X), 2, dtype=d),
    "rand_like": lambda T, d: T.rand_like(T.tensor(X), dtype=d),
    "new_zeros": lambda T, d: T.tensor(X).new_zeros(2, dtype=d),
    "new_full": lambda T, d: T.tensor(X).new_full((2,), 1, dtype=d),
    "new_tensor": lambda T, d: T.tensor(X).new_tensor(X, dtype=d),
    "sum": lambda T, d: T.tensor(X).sum(dtype=d),
    "mean": lambda T, d: T.tensor(X).mean(dtype=d),
    "prod": lambda T, d: T.tensor(X).prod(dtype=d),
    "nansum": lambda T, d: T.tensor(X).nansum(dtype=d),
    "cumsum": lambda T, d: T.tensor(X).cumsum(0, dtype=d),
    "cumprod": lambda T, d: T.tensor(X).cumprod(0, dtype=d),
    "softmax": lambda T, d: T.tensor(X).softmax(0, dtype=d),
    "log_softmax": lambda T, d: T.tensor(X).log_softmax(0, dtype=d),
    "functional_softmax": lambda T, d: T.nn.functional.softmax(T.tensor(X), 0, dtype=d),
    "norm": lambda T, d: T.tensor(X).norm(dtype=d),
    "vector_norm": lambda T, d: T.linalg.vector_norm(T.tensor(X), dtype=d),
    "to": lambda T, d: T.tensor(X).to(d),
    "to_dense": lambda T, d: T.tensor(X).to_dense(d),
    "linear": lambda T, d: T.nn.Linear(2, 2, dtype=d).weight,
}
INTEGER = {"randint", "randperm", "tril_indices"}  # the calls given an integer dtype
NAMES = ["str", "numpy_type", "numpy_dtype"]
# to() reads a string as a device: PyTorch's RuntimeError for an unknown device
REFUSED = [(key, name) for key in CALLS for name in NAMES if (key, name) != ("to", "str")]


def _given(name, integer):
    kind = "int64" if integer else "float64"
    return {"str": kind, "numpy_type": getattr(np, kind), "numpy_dtype": np.dtype(kind)}[name]


@pytest.mark.parametrize("key,name", REFUSED)
def test_a_name_or_numpy_dtype_is_a_type_error(key, name):
    given = _given(name, key in INTEGER)
    message = "argument 'dtype'.* must be torch.dtype, not .*give|to.. received an invalid"
    with pytest.raises(TypeError, match=message):
        CALLS[key](symgrad, given)


@pytest.mark.parametrize("key", list(CALLS))
def test_python_types_stand_for_dtypes(key):
    python_type = int if key in INTEGER else float
    expected = symgrad.int64 if key in INTEGER else symgrad.float64
    assert CALLS[key](symgrad, python_type).dtype is expected


@pytest.mark.torch
@pytest.mark.parametrize("key,name", REFUSED)
def test_pytorch_refuses_them_too(key, name):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        CALLS[key](torch, _given(name, key in INTEGER))


@pytest.mark.torch
@pytest.mark.parametrize("key", list(CALLS))
def test_pytorch_takes_python_types(key):
    torch = pytest.importorskip("torch")
    python_type = int if key in INTEGER else float
    expected = torch.int64 if key in INTEGER else torch.float64
    assert CALLS[key](torch, python_type).dtype is expected


# dtype arguments of the dtype functions, and Tensor.type
CASES = [
    ("finfo_of_float", lambda T: T.finfo(float).bits, 64),
    ("iinfo_of_int", lambda T: T.iinfo(int).bits, 64),
    ("finfo_of_name", lambda T: T.finfo("float32"), TypeError),
    ("promote_python_types", lambda T: str(T.promote_types(float, int)).split(".")[1], "float64"),
    ("promote_bool_int", lambda T: str(T.promote_types(bool, int)).split(".")[1], "int64"),
    ("promote_a_name", lambda T: T.promote_types("float32", T.int64), TypeError),
    ("promote_numpy", lambda T: T.promote_types(T.int64, np.float32), TypeError),
    ("can_cast_python_types", lambda T: T.can_cast(float, int), False),
    ("can_cast_a_name", lambda T: T.can_cast("float32", T.int64), TypeError),
    ("default_dtype_float", lambda T: T.set_default_dtype(float), TypeError),
    ("default_dtype_name", lambda T: T.set_default_dtype("float64"), TypeError),
    ("default_dtype_int64", lambda T: T.set_default_dtype(T.int64), TypeError),
    ("type_float", lambda T: T.ones(2).type(float), ValueError),
    ("type_int", lambda T: T.ones(2).type(int), ValueError),
    ("type_numpy", lambda T: T.ones(2).type(np.float32), ValueError),
    ("type_keyword_float", lambda T: T.ones(2).type(dtype=float), ValueError),
    ("type_not_a_type", lambda T: T.ones(2).type(3), TypeError),
    ("module_to_float", lambda T: _name(T.nn.Linear(2, 2).to(float).weight), "float64"),
    ("module_to_dtype_float", lambda T: _name(T.nn.Linear(2, 2).to(dtype=float).bias), "float64"),
    ("module_to_cpu_float", lambda T: _name(T.nn.Linear(2, 2).to("cpu", float).weight), "float64"),
    ("module_to_a_float", lambda T: _name(T.nn.Linear(2, 2).to(2.5).weight), "float64"),
    ("module_to_int", lambda T: T.nn.Linear(2, 2).to(int), TypeError),
    ("module_to_numpy", lambda T: T.nn.Linear(2, 2).to(np.float64), TypeError),
    ("view_float", lambda T: _name(T.ones(2).view(float)), "float64"),
    (
        "view_int_values",
        lambda T: T.ones(2, dtype=T.float64).view(int).tolist(),
        [4607182418800017408] * 2,
    ),
    ("view_dtype_keyword_bool", lambda T: T.ones(1).view(dtype=bool).shape[0], 4),
    ("view_numpy", lambda T: T.ones(2).view(np.float32), TypeError),
    ("type_legacy_name", lambda T: T.ones(2).type("torch.DoubleTensor").dtype.itemsize, 8),
]


def _name(t):
    return str(t.dtype).split(".")[1]


def _outcome(T, call):
    try:
        return call(T)
    except Exception as error:  # noqa: BLE001 - the type is the result compared
        return type(error)
    finally:
        T.set_default_dtype(T.float32)


@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_dtype_functions(name, call, expected):
    assert _outcome(symgrad, call) == expected


def test_messages_say_what_to_give():
    with pytest.raises(TypeError, match=r"give symgrad.float64 for 'float64'"):
        symgrad.promote_types("float64", symgrad.int64)
    with pytest.raises(ValueError, match="invalid type: 'numpy.float32'"):
        symgrad.ones(2).type(np.float32)
    with pytest.raises(TypeError, match="give symgrad.float32 or symgrad.float64"):
        symgrad.set_default_dtype(symgrad.int64)


@pytest.mark.torch
@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_dtype_functions_match_pytorch(name, call, expected):
    torch = pytest.importorskip("torch")
    assert _outcome(torch, call) == expected
