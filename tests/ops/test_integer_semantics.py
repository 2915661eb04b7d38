"""Integer and bool corner cases of the arithmetic operators, as PyTorch computes them."""

import pytest

import symgrad


def test_integer_tensor_to_negative_tensor_powers():
    base = symgrad.tensor([0, 2, -2, 1, -1, -1, 3])
    exponent = symgrad.tensor([-1, -1, -3, -5, -1, -2, 2])
    out = base**exponent
    assert out.dtype == symgrad.int64
    assert out.tolist() == [0, 0, 0, 1, -1, 1, 9]
    assert (2 ** symgrad.tensor([-1, 0, 3])).tolist() == [0, 1, 8]
    assert ((-1) ** symgrad.tensor([-1, -2, 3])).tolist() == [-1, 1, -1]
    small = symgrad.tensor([-3, 2, 7], dtype=symgrad.int8)
    assert (small**small).tolist() == [0, 4, -9]
    assert (small**small).dtype == symgrad.int8
    inplace = symgrad.tensor([2, 1])
    inplace.pow_(symgrad.tensor([-1, -1]))
    assert inplace.tolist() == [0, 1]
    # a floating side is ordinary
    assert (2.5 ** symgrad.tensor([-1, 2])).tolist() == [0.4000000059604645, 6.25]


def test_bool_to_bool_tensor_power_is_refused():
    b = symgrad.tensor([True, False])
    with pytest.raises(NotImplementedError, match="Bool"):
        symgrad.pow(b, b)
    with pytest.raises(NotImplementedError, match="Bool"):
        True**b  # noqa: B018
    assert (b**2).tolist() == [1, 0]
    assert (b**True).tolist() == [True, False]


def test_integer_powers_match_torch():
    torch = pytest.importorskip("torch")
    pairs = [([0, 2, -2, 1, -1, 3, 7], [-1, -1, -3, -5, -1, 2, 3])]
    for base, exponent in pairs:
        for dtype in ("int8", "int32", "int64"):
            ours = symgrad.tensor(base, dtype=getattr(symgrad, dtype)) ** symgrad.tensor(exponent)
            theirs = torch.tensor(base, dtype=getattr(torch, dtype)) ** torch.tensor(exponent)
            assert ours.tolist() == theirs.tolist()
            assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert (3 ** symgrad.tensor(exponent)).tolist() == (3 ** torch.tensor(exponent)).tolist()


@pytest.mark.parametrize(
    "make",
    [
        lambda b: b - symgrad.tensor([1.5, 2.0]),
        lambda b: symgrad.tensor(1.5) - b,
        lambda b: b - 2.5,
        lambda b: 2.5 - b,
        lambda b: symgrad.tensor([1.0]) - True,
        lambda b: symgrad.sub(symgrad.tensor([1.0, 2.0]), b),
        lambda b: symgrad.tensor([1.0, 2.0]).sub_(b),
    ],
)
def test_subtraction_with_a_bool_operand_is_refused(make):
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        make(symgrad.tensor([True, False]))


def test_subtraction_of_two_bools_suggests_xor():
    b = symgrad.tensor([True, False])
    for make in (lambda: b - b, lambda: b - True, lambda: True - b):
        with pytest.raises(RuntimeError, match="two bool tensors.*logical_xor"):
            make()


def test_bool_subtraction_errors_match_torch():
    torch = pytest.importorskip("torch")
    for ours, theirs in (
        (lambda: symgrad.tensor([True]) - 1.5, lambda: torch.tensor([True]) - 1.5),
        (lambda: symgrad.tensor([True]) - True, lambda: torch.tensor([True]) - True),
    ):
        with pytest.raises(RuntimeError) as mine:
            ours()
        with pytest.raises(RuntimeError) as ref:
            theirs()
        assert str(mine.value) == str(ref.value)


def test_reductions_keep_the_integer_dtype_asked_for():
    x = symgrad.arange(6.0).reshape(2, 3) + 0.7
    assert x.sum(dtype=symgrad.int32).dtype == symgrad.int32
    assert x.sum(dtype=symgrad.int32).item() == 15
    assert x.sum(1, dtype=symgrad.int8).dtype == symgrad.int8
    assert x.prod(1, dtype=symgrad.int16).dtype == symgrad.int16
    assert x.cumsum(0, dtype=symgrad.int32).dtype == symgrad.int32
    assert x.cumprod(0, dtype=symgrad.int32).tolist() == [[0, 1, 2], [0, 4, 10]]
    assert x.cumprod(0, dtype=symgrad.int32).dtype == symgrad.int32
    small = symgrad.tensor([100, 100], dtype=symgrad.int8)
    assert small.sum(dtype=symgrad.int8).tolist() == -56  # wraps in int8, as PyTorch
    assert small.sum().dtype == symgrad.int64
    flags = symgrad.tensor([True, False])
    assert flags.sum(dtype=symgrad.bool).tolist() is True
    assert flags.prod(dtype=symgrad.bool).tolist() is False
    with pytest.raises(NotImplementedError, match="cumsum_out_cpu"):
        flags.cumsum(0, dtype=symgrad.bool)
    with pytest.raises(NotImplementedError, match="cumprod_out_cpu"):
        flags.cumprod(0, dtype=symgrad.bool)
    with_nan = symgrad.tensor([1.5, float("nan"), 2.5])
    assert symgrad.nansum(with_nan, dtype=symgrad.float64).dtype == symgrad.float64


def test_reduction_dtypes_match_torch():
    torch = pytest.importorskip("torch")
    calls = [
        ("sum", {"dtype": "int32"}),
        ("sum", {"dim": 1, "dtype": "int8"}),
        ("prod", {"dim": 0, "dtype": "int16"}),
        ("cumsum", {"dim": 1, "dtype": "int32"}),
        ("cumprod", {"dim": 1, "dtype": "int32"}),
        ("nansum", {"dtype": "float64"}),
    ]
    for name, kwargs in calls:
        ours = getattr(symgrad.arange(6.0).reshape(2, 3) + 0.7, name)(
            **{k: getattr(symgrad, v) if k == "dtype" else v for k, v in kwargs.items()}
        )
        theirs = getattr(torch.arange(6.0).reshape(2, 3) + 0.7, name)(
            **{k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
        )
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1], name
        assert ours.double().numpy() == pytest.approx(theirs.double().numpy()), name


def test_nan_to_integer_cast_of_a_grad_tensor_is_silent():
    import warnings

    x = symgrad.tensor([float("nan"), 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.long().dtype == symgrad.int64
        assert x.to(symgrad.int32).dtype == symgrad.int32


def test_alpha_must_fit_the_result_dtype():
    a = symgrad.tensor([1, 2])
    for make in (
        lambda: symgrad.add(a, a, alpha=0.5),
        lambda: symgrad.add(a, 2, alpha=1.0),
        lambda: symgrad.sub(a, a, alpha=2.0),
        lambda: a.clone().add_(a, alpha=0.5),
    ):
        with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha"):
            make()
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        symgrad.add(a.float(), a, alpha=True)
    assert symgrad.add(a, 1.5, alpha=0.5).tolist() == [1.75, 2.75]
    assert symgrad.add(a, a, alpha=2).tolist() == [3, 6]
    assert symgrad.add(a.float(), a, alpha=2.5).tolist() == [3.5, 7.0]


def test_alpha_errors_match_torch():
    torch = pytest.importorskip("torch")
    for alpha in (0.5, True):
        with pytest.raises(RuntimeError) as ours:
            symgrad.add(symgrad.tensor([1, 2]), symgrad.tensor([1, 2]), alpha=alpha)
        with pytest.raises(RuntimeError) as theirs:
            torch.add(torch.tensor([1, 2]), torch.tensor([1, 2]), alpha=alpha)
        assert str(theirs.value).rstrip(".") in str(ours.value)


def test_bool_integer_division_is_refused():
    b = symgrad.tensor([True])
    cases = [
        (lambda: b // True, "div_floor_cpu"),
        (lambda: b % b, "remainder_cpu"),
        (lambda: symgrad.fmod(b, True), "fmod_cpu"),
        (lambda: symgrad.div(b, b, rounding_mode="trunc"), "div_trunc_cpu"),
        (lambda: symgrad.floor_divide(b, symgrad.tensor(True)), "div_floor_cpu"),
    ]
    for make, kernel in cases:
        with pytest.raises(NotImplementedError, match=f"{kernel}.*Bool"):
            make()
    assert (b // 2).tolist() == [0] and (b.float() // True).tolist() == [1.0]


def test_number_divided_by_integer_tensor_rounds_as_torch():
    # PyTorch: number / x is x.reciprocal() * number, the reciprocal rounded to float32 first
    ints = symgrad.tensor([3, 7, 100])
    assert (2.5 / ints).tolist() == [0.8333333730697632, 0.3571428656578064, 0.02499999850988388]
    torch = pytest.importorskip("torch")
    assert (2.5 / ints).tolist() == (2.5 / torch.tensor([3, 7, 100])).tolist()
    assert (1 / symgrad.tensor([0, 2])).tolist() == (1 / torch.tensor([0, 2])).tolist()


def _index_add_alphas(T):
    out = []
    for dtype, alpha in (("int64", 1.5), ("int64", -1.5), ("int32", 2.9), ("uint8", 0.5)):
        x = T.zeros(2, 3, dtype=getattr(T, dtype))
        s = T.full((1, 3), 3, dtype=getattr(T, dtype))
        y = x.index_add(0, T.tensor([0]), s, alpha=alpha)
        out.append((str(y.dtype).split(".")[1], y.tolist()))
    b = T.zeros(3, dtype=T.bool).index_add(0, T.tensor([0]), T.tensor([True]), alpha=2)
    out.append((str(b.dtype).split(".")[1], b.tolist()))
    return out


def test_index_add_reads_alpha_in_the_integer_dtype():
    # PyTorch's kernel converts alpha to the tensor's dtype (toward zero), unlike add's refusal
    assert _index_add_alphas(symgrad) == [
        ("int64", [[3, 3, 3], [0, 0, 0]]),
        ("int64", [[-3, -3, -3], [0, 0, 0]]),
        ("int32", [[6, 6, 6], [0, 0, 0]]),
        ("uint8", [[0, 0, 0], [0, 0, 0]]),
        ("bool", [True, False, False]),
    ]


@pytest.mark.torch
def test_index_add_alphas_match_torch():
    torch = pytest.importorskip("torch")
    assert _index_add_alphas(symgrad) == _index_add_alphas(torch)
