"""A Python number (or None) where PyTorch wants a tensor, and where it takes one: each call
raises PyTorch's exception type with its message, or computes as PyTorch does.

The expected outcomes are PyTorch 2.13's, kept here so the tests run without it; the last
test checks the table against PyTorch itself when it is installed.
"""

import pytest

import symgrad

# one-tensor functions: `f(2.0)` is refused, the input must be a tensor
UNARY = (
    "abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan "
    "atanh ceil celu cos cosh deg2rad digamma erf erfc erfinv exp exp2 expm1 fix floor frac "
    "isfinite isinf isnan lgamma log log10 log1p log2 logical_not logit neg negative rad2deg "
    "reciprocal relu round rsqrt selu sigmoid sign sin sinc sinh sqrt square tan tanh trunc"
).split()

# two-tensor functions and the name of their second argument: no number on either side
BINARY = {
    "maximum": "other",
    "minimum": "other",
    "fmax": "other",
    "fmin": "other",
    "logical_and": "other",
    "logical_or": "other",
    "logical_xor": "other",
    "heaviside": "values",
    "dot": "tensor",
    "mm": "mat2",
    "bmm": "mat2",
    "mv": "vec",
    "outer": "vec2",
    "kron": "other",
    "cross": "other",
    "matmul": "other",
    "take_along_dim": "indices",
    "masked_select": "mask",
    "prelu": "weight",
}

# functions whose tensor arguments have other names: (first, second), second None if any
NAMED = {
    "cdist": ("x1", "x2"),
    "embedding": ("weight", "indices"),
    "vander": ("x", None),
    "norm_except_dim": ("v", None),
}

# functions of a tensor and more arguments: `f(2.0, t)` is refused
TENSOR_FIRST = (
    "amax amin argmax argmin bincount channel_shuffle combinations cummax cummin cumprod cumsum "
    "diag diag_embed diagonal diff flatten flip full_like group_norm hinge_embedding_loss histc "
    "kthvalue log_softmax logcumsumexp logsumexp median mode nan_to_num nanmean nanmedian nansum "
    "native_channel_shuffle pdist permute prelu roll rot90 softmax take_along_dim tile topk tril "
    "triu unbind unsqueeze"
).split()

# functions of a tensor alone (and keyword or optional arguments): `f(2.0)` is refused
TENSOR_ALONE = (
    "argsort count_nonzero mean prod sort squeeze sum aminmax argwhere clone corrcoef cov fliplr "
    "flipud gradient msort nonzero numel ones_like zeros_like positive ravel t trace "
    "unique_consecutive"
).split()

# the same refusal, which PyTorch words as "received an invalid combination of arguments"
# (these have several overloads); symgrad names the argument instead
TENSOR_ALONE_OVERLOADED = "all any std var std_mean var_mean quantile tensor_split".split()
SPLITS = "hsplit vsplit dsplit".split()  # the same, given the sections

# functions of any number of tensors: a number among them is refused
TENSOR_SEQUENCE = "block_diag broadcast_tensors cartesian_prod chain_matmul meshgrid".split()

# int arguments: a float (or a bool) is refused; PyTorch names the position of a positional
# argument, symgrad names none (one function serves as the method too, where it differs)
INT_ARGUMENT = {
    "tril": "diagonal",
    "triu": "diagonal",
    "diagonal": "offset",
    "diag": "diagonal",
    "diag_embed": "offset",
    "rot90": "k",
    "kthvalue": "k",
}

# bool arguments: a number (or None) is refused; positions as for the int arguments
BOOL_ARGUMENT = {"cholesky": "upper", "qr": "some", "svd": "some"}

# functions with a number overload for a later argument, never for the first
NUMBER_LATER = (
    "eq ne lt le gt ge greater greater_equal less less_equal not_equal "
    "clamp clip clamp_min clamp_max max min"
).split()


def _vector(T):
    return T.tensor([0.5, 1.5, 2.5])


def _must_be_tensor(op, arg, position, kind="float"):
    return f"{op}(): argument '{arg}' (position {position}) must be Tensor, not {kind}"


def _cases():
    cases = []
    for op in UNARY:
        call = lambda T, op=op: getattr(T, op)(2.0)  # noqa: E731
        cases.append((f"{op}(2.0)", call, TypeError, _must_be_tensor(op, "input", 1)))
    cases.append(("exp(None)", lambda T: T.exp(None), TypeError, "not NoneType"))
    cases.append(("abs(True)", lambda T: T.abs(True), TypeError, "not bool"))
    cases.append(
        ("neg(2)", lambda T: T.neg(2), TypeError, _must_be_tensor("neg", "input", 1, "int"))
    )
    for op, other in BINARY.items():
        first = lambda T, op=op: getattr(T, op)(2.0, _vector(T))  # noqa: E731
        second = lambda T, op=op: getattr(T, op)(_vector(T), 2)  # noqa: E731
        method = lambda T, op=op: getattr(_vector(T), op)(2.0)  # noqa: E731
        cases.append((f"{op}(2.0, t)", first, TypeError, _must_be_tensor(op, "input", 1)))
        cases.append((f"{op}(t, 2)", second, TypeError, _must_be_tensor(op, other, 2, "int")))
        cases.append((f"t.{op}(2.0)", method, TypeError, _must_be_tensor(op, other, 1)))
    cases.append(
        ("maximum(t, None)", lambda T: T.maximum(_vector(T), None), TypeError, "not NoneType")
    )
    for op, (first, second) in NAMED.items():
        call = lambda T, op=op: getattr(T, op)(2.0, _vector(T))  # noqa: E731
        cases.append((f"{op}(2.0, t)", call, TypeError, _must_be_tensor(op, first, 1)))
        if second is not None:
            call = lambda T, op=op: getattr(T, op)(_vector(T), None)  # noqa: E731
            message = _must_be_tensor(op, second, 2, "NoneType")
            cases.append((f"{op}(t, None)", call, TypeError, message))
    for op in TENSOR_FIRST:
        call = lambda T, op=op: getattr(T, op)(2.0, _vector(T))  # noqa: E731
        cases.append((f"{op}(2.0, t)", call, TypeError, _must_be_tensor(op, "input", 1)))
    for op in TENSOR_ALONE:
        call = lambda T, op=op: getattr(T, op)(None)  # noqa: E731
        message = _must_be_tensor(op, "input", 1, "NoneType")
        cases.append((f"{op}(None)", call, TypeError, message))
    for op in TENSOR_ALONE_OVERLOADED:
        call = lambda T, op=op: getattr(T, op)(2.0)  # noqa: E731
        cases.append((f"{op}(2.0)", call, TypeError, f"{op}()"))
    for op in SPLITS:
        call = lambda T, op=op: getattr(T, op)(2.0, 2)  # noqa: E731
        cases.append((f"{op}(2.0, 2)", call, TypeError, f"{op}()"))
    for op in TENSOR_SEQUENCE:
        call = lambda T, op=op: getattr(T, op)(_vector(T), 2.0)  # noqa: E731
        message = "expected Tensor as element 1 in argument 0, but got float"
        cases.append((f"{op}(t, 2.0)", call, TypeError, message))
    for op in ("trapz", "cumulative_trapezoid"):
        call = lambda T, op=op: getattr(T, op)(2.0)  # noqa: E731
        cases.append((f"{op}(2.0)", call, TypeError, _must_be_tensor(op, "y", 1)))
    for op, arg in INT_ARGUMENT.items():
        call = lambda T, op=op: getattr(T, op)(T.ones(2, 2), 2.0)  # noqa: E731
        message = (f"{op}(): argument '{arg}'", "must be int, not float")
        cases.append((f"{op}(t, 2.0)", call, TypeError, message))
    cases.append(("t.tril(True)", lambda T: T.ones(2, 2).tril(True), TypeError, "not bool"))
    for op, arg in BOOL_ARGUMENT.items():
        call = lambda T, op=op: getattr(T, op)(T.eye(2), 2.0)  # noqa: E731
        message = (f"{op}(): argument '{arg}'", "must be bool, not float")
        cases.append((f"{op}(t, 2.0)", call, TypeError, message))
        call = lambda T, op=op: getattr(T.eye(2), op)(1)  # noqa: E731
        cases.append((f"t.{op}(1)", call, TypeError, "must be bool, not int"))
    for op in NUMBER_LATER:
        call = lambda T, op=op: getattr(T, op)(2.0, _vector(T))  # noqa: E731
        message = f"{op}() received an invalid combination of arguments - got (float, Tensor)"
        cases.append((f"{op}(2.0, t)", call, TypeError, message))
    cases.append(
        ("eq(None, t)", lambda T: T.eq(None, _vector(T)), TypeError, "got (NoneType, Tensor)")
    )
    cases.append(
        (
            "where(2.0, t)",
            lambda T: T.where(2.0, _vector(T)),
            TypeError,
            "where() received an invalid combination of arguments - got (float, Tensor)",
        )
    )
    mask = lambda T: _vector(T) > 1  # noqa: E731
    invalid = "received an invalid combination of arguments - got"
    cases += [
        (
            "where(b, 2.0)",
            lambda T: T.where(mask(T), 2.0),
            TypeError,
            f"where() {invalid} (Tensor, float)",
        ),
        (
            "where(b, None, t)",
            lambda T: T.where(mask(T), None, _vector(T)),
            TypeError,
            "(Tensor, NoneType, Tensor)",
        ),
        (
            "einsum(2.0, t)",
            lambda T: T.einsum(2.0, _vector(T)),
            TypeError,
            "einsum(): argument 'equation' (position 1) must be str, not float",
        ),
        (
            "can_cast(2.0, float32)",
            lambda T: T.can_cast(2.0, T.float32),
            TypeError,
            "can_cast(): argument 'from_' (position 1) must be torch.dtype, not float",
        ),
        (
            "can_cast(float32, 2)",
            lambda T: T.can_cast(T.float32, 2),
            TypeError,
            "can_cast(): argument 'to' (position 2) must be torch.dtype, not int",
        ),
        (
            "searchsorted(2.0, t)",
            lambda T: T.searchsorted(2.0, _vector(T)),
            TypeError,
            f"searchsorted() {invalid} (float, Tensor)",
        ),
        (
            "repeat_interleave(2.0)",
            lambda T: T.repeat_interleave(2.0),
            TypeError,
            _must_be_tensor("repeat_interleave", "repeats", 1),
        ),
        (
            "repeat_interleave(2.0, t)",
            lambda T: T.repeat_interleave(2.0, _vector(T)),
            TypeError,
            f"repeat_interleave() {invalid} (float, Tensor)",
        ),
    ]
    return cases


# the numbers PyTorch takes: these must keep computing
ACCEPTED = [
    ("add(2.0, t)", lambda T: T.add(2.0, _vector(T))),
    ("sub(2, t)", lambda T: T.sub(2, _vector(T))),
    ("mul(t, 2)", lambda T: T.mul(_vector(T), 2)),
    ("pow(2.0, t)", lambda T: T.pow(2.0, _vector(T))),
    ("eq(t, 2.0)", lambda T: T.eq(_vector(T), 2.0)),
    ("t.eq(2.0)", lambda T: _vector(T).eq(2.0)),
    ("t.lt(2)", lambda T: _vector(T).lt(2)),
    ("gt(t, True)", lambda T: T.gt(_vector(T), True)),
    ("clamp(t, 0.0, 1.0)", lambda T: T.clamp(_vector(T), 0.0, 1.0)),
    ("t.clamp(min=1)", lambda T: _vector(T).clamp(min=1)),
    ("clamp_min(t, 1.0)", lambda T: T.clamp_min(_vector(T), 1.0)),
    ("where(t > 1, 2.0, t)", lambda T: T.where(_vector(T) > 1, 2.0, _vector(T))),
    ("where(t > 1, t, 0)", lambda T: T.where(_vector(T) > 1, _vector(T), 0)),
    ("maximum(t, t)", lambda T: T.maximum(_vector(T), _vector(T))),
    ("t.fmin(t)", lambda T: _vector(T).fmin(_vector(T))),
    ("logical_and(t, t)", lambda T: T.logical_and(_vector(T), _vector(T))),
    ("heaviside(t, tensor)", lambda T: T.heaviside(_vector(T), T.tensor(0.5))),
    ("dot(t, t)", lambda T: T.dot(_vector(T), _vector(T))),
    ("t.outer(t)", lambda T: _vector(T).outer(_vector(T))),
    ("exp(t)", lambda T: T.exp(_vector(T))),
    ("t.exp()", lambda T: _vector(T).exp()),
    ("exp(parameter)", lambda T: T.exp(T.nn.Parameter(_vector(T)))),
    ("maximum(parameter, t)", lambda T: T.maximum(T.nn.Parameter(_vector(T)), _vector(T))),
    ("t.round(decimals=1)", lambda T: _vector(T).round(decimals=1)),
    ("t.tril(-1)", lambda T: T.ones(2, 2).tril(-1)),
    ("qr(t, False)", lambda T: T.qr(T.eye(2), False)[0]),
    ("t.cholesky(upper=True)", lambda T: T.eye(2).cholesky(upper=True)),
    ("where(b)", lambda T: T.where(_vector(T) > 1)[0]),
    ("searchsorted(t, 2.0)", lambda T: T.searchsorted(_vector(T), 2.0)),
    ("repeat_interleave(t, 2)", lambda T: T.repeat_interleave(_vector(T), 2)),
    ("einsum('i,i->', t, t)", lambda T: T.einsum("i,i->", _vector(T), _vector(T))),
    ("diag(t, 1)", lambda T: T.diag(_vector(T), 1)),
    ("sum(t)", lambda T: T.sum(_vector(T))),
    ("t.sum(0)", lambda T: _vector(T).sum(0)),
    ("softmax(t, 0)", lambda T: T.softmax(_vector(T), 0)),
    ("cumsum(parameter, 0)", lambda T: T.cumsum(T.nn.Parameter(_vector(T)), 0)),
]

CASES = _cases() + [(name, call, None, "") for name, call in ACCEPTED]


@pytest.mark.parametrize("name,call,expected,message", CASES, ids=[c[0] for c in CASES])
def test_number_argument_is_treated_as_pytorch_does(name, call, expected, message):
    if expected is None:
        assert isinstance(call(symgrad), symgrad.Tensor)
        return
    with pytest.raises(expected) as caught:
        call(symgrad)
    assert type(caught.value) is expected
    for fragment in (message,) if isinstance(message, str) else message:
        assert fragment in str(caught.value)


def test_number_checks_keep_batched_tensors():
    x = symgrad.tensor([[0.5, 1.5], [2.5, 3.5]])
    y = symgrad.func.vmap(lambda row: symgrad.maximum(symgrad.exp(row), row))(x)
    assert y.shape == (2, 2)


@pytest.mark.torch
@pytest.mark.parametrize("name,call,expected,message", CASES, ids=[c[0] for c in CASES])
def test_the_table_is_pytorchs(name, call, expected, message):
    torch = pytest.importorskip("torch")
    if expected is None:
        assert isinstance(call(torch), torch.Tensor)
        return
    with pytest.raises(expected) as caught:
        call(torch)
    assert type(caught.value) is expected
    for fragment in (message,) if isinstance(message, str) else message:
        assert fragment in str(caught.value)
