"""``foreach=True`` as PyTorch's optimizers take it on the CPU: ASGD's foreach form rounds
apart from its single-tensor form, most foreach forms refuse ``differentiable=True``, and
Adam's refuses tensor hyperparameters without ``capturable``. Expected values are PyTorch's
(to the last bit where the numbers are exact); each case is cross-checked against PyTorch
when it is installed."""

from __future__ import annotations

import pytest

import symgrad


def _asgd(T, dtype, foreach=True, **kw):
    w = T.nn.Parameter(T.tensor([1.5, -0.25, 0.75], dtype=dtype))
    opt = T.optim.ASGD([w], lr=0.05, lambd=0.01, t0=1, foreach=foreach, **kw)
    for _ in range(4):
        w.grad = w.detach() * 0.6 + 0.1
        opt.step()
    state = opt.state[w]
    return w.tolist(), state["ax"].tolist(), state["eta"].item(), state["mu"].item()


ETA, MU = 0.04992512986063957, 0.3333333432674408
ASGD_CASES = {
    # p -= eta * (g + lambd * p) and ax += mu * (p - ax), each a single rounding
    "float64": (
        "float64",
        {},
        (
            [1.3062037932010253, -0.23997605826901852, 0.6435552854281493],
            [1.3293019147968521, -0.24117078869638886, 0.6562421847283202],
            ETA,
            MU,
        ),
    ),
    "float64_decay_maximize": (
        "float64",
        {"weight_decay": 0.1, "maximize": True},
        (
            [1.6731372046174584, -0.2546653737771172, 0.8469360995912119],
            [1.650715815712274, -0.2540612046150014, 0.8343828070005848],
            ETA,
            MU,
        ),
    ),
    "float32": (
        "float32",
        {},
        (
            [1.3062037229537964, -0.23997604846954346, 0.6435552835464478],
            [1.3293018341064453, -0.24117077887058258, 0.6562421917915344],
            ETA,
            MU,
        ),
    ),
}


@pytest.mark.parametrize("case", ASGD_CASES)
def test_asgd_foreach_takes_pytorchs_foreach_steps(case):
    dtype, kw, want = ASGD_CASES[case]
    assert _asgd(symgrad, getattr(symgrad, dtype), **kw) == want


def test_asgd_single_tensor_steps_differ_from_the_foreach_ones():
    # the single-tensor form scales p by 1 - lambd * eta, then subtracts eta * g
    single = _asgd(symgrad, symgrad.float64, foreach=False)
    assert single[0] == [1.3062038000926255, -0.2399760586254806, 0.6435552892134371]
    assert single[0] != ASGD_CASES["float64"][2][0]


def test_asgd_foreach_follows_a_float64_default_dtype():
    previous = symgrad.get_default_dtype()
    symgrad.set_default_dtype(symgrad.float64)
    try:
        w, ax, eta, mu = _asgd(symgrad, symgrad.float64)
    finally:
        symgrad.set_default_dtype(previous)
    assert (eta, mu) == (0.04992513100982532, 1 / 3)
    assert w == [1.306203800082151, -0.23997605862493884, 0.6435552892076838]


def _foreach_differentiable(T, name, **kw):
    w0 = T.tensor([1.0, 2.0], requires_grad=True)
    w = w0.clone()
    opt = getattr(T.optim, name)([w], foreach=True, differentiable=True, **kw)
    w.grad = T.ones(2)
    opt.step()
    return type(w.grad_fn).__name__


REFUSING = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop"]
REFUSING += ["Rprop", "ASGD"]


@pytest.mark.parametrize("name", REFUSING)
def test_foreach_refuses_differentiable(name):
    with pytest.raises(AssertionError, match="_foreach ops don't support autograd"):
        _foreach_differentiable(symgrad, name)


def test_foreach_sgd_records_its_step():
    assert _foreach_differentiable(symgrad, "SGD", lr=0.1, momentum=0.9) == "AddBackward0"


def _adam_tensor_options(T, case):
    p = T.nn.Parameter(T.ones(2))
    if case == "lr":
        T.optim.Adam([p], lr=T.tensor(0.1), foreach=True)
    elif case == "lr_two_elements":
        T.optim.AdamW([p], lr=T.tensor([0.1, 0.2]), foreach=True)
    elif case == "betas":
        T.optim.Adam([p], betas=(T.tensor(0.9), T.tensor(0.99)), foreach=True)
    elif case == "lr_capturable":
        T.optim.Adam([p], lr=T.tensor(0.1), foreach=True, capturable=True)
    else:  # a tensor lr put in the group after construction
        opt = T.optim.Adam([p], foreach=True)
        opt.param_groups[0]["lr"] = T.tensor(0.1)
        p.grad = T.ones(2)
        opt.step()


ADAM_CASES = {
    "lr": (ValueError, "lr as a Tensor is not supported for capturable=False and foreach=True"),
    "lr_two_elements": (ValueError, "lr as a Tensor is not supported"),
    "betas": (ValueError, r"betas\[0\] as a Tensor is not supported"),
    "lr_later": (RuntimeError, "lr as a Tensor is not supported"),
    "lr_capturable": None,
}


@pytest.mark.parametrize("case", ADAM_CASES)
def test_adam_foreach_refuses_tensor_options(case):
    expected = ADAM_CASES[case]
    if expected is None:
        _adam_tensor_options(symgrad, case)
        return
    with pytest.raises(expected[0], match=expected[1]):
        _adam_tensor_options(symgrad, case)


def _lbfgs_state_keys(T, max_iter):
    p = T.nn.Parameter(T.tensor([1.0, -2.0, 3.0], dtype=T.float64))
    opt = T.optim.LBFGS([p], max_iter=max_iter)

    def closure():
        opt.zero_grad()
        loss = ((p - 0.3) ** 2).sum() * 3 + (p * p * p * p).sum()
        loss.backward()
        return loss

    keys = []
    for _ in range(2):
        opt.step(closure)
        keys.append(list(opt.state[p]))
    keys.append(list(opt.state_dict()["state"][0]))
    return keys


LBFGS_KEYS = ["func_evals", "n_iter", "al", "d", "t", "old_dirs", "old_stps", "ro", "H_diag"]
LBFGS_KEYS += ["prev_flat_grad", "prev_loss"]
ONE_ITER_KEYS = [k for k in LBFGS_KEYS if k != "al"] + ["al"]


@pytest.mark.parametrize(("max_iter", "keys"), [(7, LBFGS_KEYS), (1, ONE_ITER_KEYS)])
def test_lbfgs_state_keys_in_pytorchs_order(max_iter, keys):
    # the curvature pairs join the state at a step's end, after d and t; the recursion's al
    # when it first runs (within the first step unless max_iter is 1)
    first, second, saved = _lbfgs_state_keys(symgrad, max_iter)
    assert second == saved == keys
    assert first == (keys if max_iter > 1 else [k for k in keys if k != "al"])


@pytest.mark.torch
def test_pytorch_gives_the_same():
    torch = pytest.importorskip("torch")
    for dtype, kw, want in ASGD_CASES.values():
        assert _asgd(torch, getattr(torch, dtype), **kw) == want
    assert (
        _asgd(torch, torch.float64, foreach=False)[0]
        == _asgd(symgrad, symgrad.float64, foreach=False)[0]
    )
    for name in REFUSING:
        with pytest.raises(AssertionError, match="_foreach ops don't support autograd"):
            _foreach_differentiable(torch, name)
    assert _foreach_differentiable(torch, "SGD", lr=0.1, momentum=0.9) == "AddBackward0"
    for case, expected in ADAM_CASES.items():
        if expected is None:
            _adam_tensor_options(torch, case)
            continue
        with pytest.raises(expected[0], match=expected[1]):
            _adam_tensor_options(torch, case)
    for max_iter in (7, 1):
        assert _lbfgs_state_keys(torch, max_iter) == _lbfgs_state_keys(symgrad, max_iter)


@pytest.mark.torch
def test_pytorch_gives_the_same_under_a_float64_default():
    torch = pytest.importorskip("torch")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        w, ax, eta, mu = _asgd(torch, torch.float64)
    finally:
        torch.set_default_dtype(previous)
    assert (eta, mu) == (0.04992513100982532, 1 / 3)
    assert w == [1.306203800082151, -0.23997605862493884, 0.6435552892076838]
