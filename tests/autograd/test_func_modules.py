"""``vmap`` over pytrees, ``functional_call``, ``stack_module_state`` and
``replace_all_batch_norm_modules_``: torch.func's structures, values and errors."""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

import symgrad
from symgrad import func, nn
from symgrad.func._pytree import tree_flatten

Pair = namedtuple("Pair", "w b")
A = np.arange(6.0).reshape(2, 3)
B = np.arange(3.0)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same(ours, expected):
    leaves, spec = tree_flatten(ours)
    want, want_spec = tree_flatten(expected)
    assert str(spec) == str(want_spec)
    for a, b in zip(leaves, want):
        if isinstance(b, float):
            assert a == b
        else:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-12)


def _vmap_cases(T, F):
    X, Y = T.tensor(A), T.tensor(B)
    found = {
        "dict": F.vmap(lambda d: d["a"] * d["b"])({"a": X, "b": X}),
        "dict_dims": F.vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
            {"a": X, "b": Y}
        ),
        "nested": F.vmap(lambda v: v[0] + v[1][0], in_dims=([0, (None,)],))([X, (Y,)]),
        "namedtuple": F.vmap(lambda p: p.w * p.b, in_dims=(Pair(0, None),))(Pair(X, Y)),
        "not_a_tensor": F.vmap(lambda a, b: a * b, in_dims=(0, None))(X, 2.0),
        "out_dict": F.vmap(lambda a: {"s": a.sum(), "d": a * 2}, out_dims={"s": 0, "d": 1})(X),
        "out_tuple": F.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(X),
        "out_none": F.vmap(lambda a: (a, Y, 3.0), out_dims=(0, None, None))(X),
        "out_list": F.vmap(lambda a: [a, a * 2])(X),
        "chunks": F.vmap(lambda a: {"x": a * 2, "y": Y}, chunk_size=1, out_dims=(0))(X),
        "chunks_dim": F.vmap(lambda a: a.sum(0), in_dims=1, chunk_size=2)(X),
        "negative": F.vmap(lambda a: a, in_dims=-1, out_dims=-1)(X),
        "kwargs": F.vmap(lambda a, k: a * k)(X, k=Y),
        "tuple_arg": F.vmap(lambda t: t[0] + t[1], in_dims=(0,))((X, X)),
    }
    return found


EXPECTED_VMAP = {
    "dict": A * A,
    "dict_dims": A * B,
    "nested": A + B,
    "namedtuple": A * B,
    "not_a_tensor": A * 2.0,
    "out_dict": {"s": A.sum(1), "d": (A * 2).T},
    "out_tuple": (A.T, A.sum(1)),
    "out_none": (A, B, 3.0),
    "out_list": [A, A * 2],
    "chunks": {"x": A * 2, "y": np.stack([B, B])},
    "chunks_dim": A.sum(0),
    "negative": A,
    "kwargs": A * B,
    "tuple_arg": A + A,
}


@pytest.mark.parametrize("case", sorted(EXPECTED_VMAP))
def test_vmap_of_pytrees(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(_vmap_cases(symgrad, func)[case], EXPECTED_VMAP[case])


def test_vmap_against_torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _vmap_cases(symgrad, func), _vmap_cases(torch, torch.func)
    for key in theirs:
        _same(ours[key], theirs[key])


def test_vmap_reads_a_dict_of_in_dims_by_key():
    # PyTorch 2.13 pairs a dict of in_dims with the inputs in the in_dims' key order; symgrad
    # pairs them by key: "a" mapped, "b" not, whatever order the keys are written in
    X, Y = symgrad.tensor(A), symgrad.tensor(B)
    out = func.vmap(lambda d: d["a"] + d["b"], in_dims=({"b": None, "a": 0},))({"a": X, "b": Y})
    np.testing.assert_allclose(out.numpy(), A + B)


def test_vmap_errors_as_pytorch():
    X, Y = symgrad.tensor(A), symgrad.tensor(B)
    cases = [
        (lambda: func.vmap(lambda d: d["a"], in_dims=({"a": 0},))({"a": X, "b": Y}), "in_dims is "
         "not compatible with the structure of `inputs`. in_dims has structure \\({'a': \\*},\\) "
         "but inputs has structure \\({'a': \\*, 'b': \\*},\\)"),
        (lambda: func.vmap(lambda a, b: a, in_dims=[0, None])(X, Y), "int or a \\(potentially "
         "nested\\) tuple"),
        (lambda: func.vmap(lambda a: a, in_dims=(0.5,))(X), "in_dim must be either an integer"),
        (lambda: func.vmap(lambda a, b: a * b)(X, 2.0), "cannot vmap over non-Tensor arguments"),
        (lambda: func.vmap(lambda a, b: a)(X, None), "input is of type <class 'NoneType'>"),
        (lambda: func.vmap(lambda p: p.w, in_dims=((0, None),))(Pair(X, Y)), "P?a?i?r?\\(w=\\*"),
        (lambda: func.vmap(lambda a: (a, a), out_dims=(0, None))(X), "can not return a "
         "BatchedTensor when out_dim is None"),
        (lambda: func.vmap(lambda a: (a, a), out_dims=(0,))(X), "out_dims is not compatible"),
        (lambda: func.vmap(lambda a: (a, 3.0))(X), "must only return Tensors, got type <class "
         "'float'>"),
        (lambda: func.vmap(lambda: 1)(), "got no inputs"),
        (lambda: func.vmap(lambda a: a, in_dims=(None,))(X), "at least one non-None value"),
        (lambda: func.vmap(lambda a: a, chunk_size=0), "chunk_size should be None or greater"),
        (lambda: func.jacrev(lambda a: a, chunk_size=0), "^jacrev: `chunk_size` should be "
         "greater than 0.$"),
    ]  # fmt: skip
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()


def test_vmap_in_the_loop_checks_out_dims_none_and_structures(monkeypatch):
    # sorting has no batching rule: the loop runs, and keeps PyTorch's rules
    X = symgrad.tensor([[2.0, 1.0], [0.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = func.vmap(lambda a: (a.sort().values, X), out_dims=(0, None))(X)
        assert out[1] is X and out[0].tolist() == [[1.0, 2.0], [0.0, 3.0]]
        with pytest.raises(ValueError, match="can not return a BatchedTensor"):
            func.vmap(lambda a: (a.sort().values,), out_dims=None)(X)


# -- functional_call, stack_module_state, replace_all_batch_norm_modules_ -------------------------
class _Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


def test_functional_call_dicts_ties_and_strict():
    lin = nn.Linear(2, 1)
    x = symgrad.ones(1, 2)
    w, b = symgrad.tensor([[1.0, 2.0]]), symgrad.tensor([0.5])
    assert func.functional_call(lin, ({"weight": w}, {"bias": b}), (x,)).tolist() == [[3.5]]
    assert func.functional_call(lin, [{"weight": w}, {"bias": b}], x).tolist() == [[3.5]]
    out = func.functional_call(lin, {"weight": w, "bias": b}, kwargs={"input": x})
    assert out.tolist() == [[3.5]]
    assert func.functional_call(lin, {"weight": w, "bias": b, "extra": w}, (x,)).tolist() == [[3.5]]
    assert not hasattr(lin, "extra") and lin.weight is not w
    tied = _Tied()
    two = symgrad.eye(2) * 2
    assert func.functional_call(tied, {"a.weight": two}, (x,)).tolist() == [[4.0, 4.0]]
    assert func.functional_call(tied, {"a.weight": two, "b.weight": two}, (x,)).tolist() == [
        [4.0, 4.0]
    ]
    assert func.functional_call(tied, {"a.weight": two}, (x,), strict=True).tolist() == [[4.0, 4.0]]
    expected = (x @ tied.a.weight.detach().T * 2).tolist()  # only a's name swapped
    untied = func.functional_call(tied, {"a.weight": two}, (x,), tie_weights=False)
    np.testing.assert_allclose(untied.detach().numpy(), expected)


def test_functional_call_errors_as_pytorch():
    lin, x, w = nn.Linear(2, 1), symgrad.ones(1, 2), symgrad.ones(1, 2)
    cases = [
        (ValueError, lambda: func.functional_call(lin, ({"weight": w}, {"weight": w}), (x,)),
         "\\['weight'\\] appeared in multiple dictionaries"),
        (RuntimeError, lambda: func.functional_call(lin, {"weight": w}, (x,), strict=True),
         "Error\\(s\\) in reparametrizing for Linear:\n\tMissing key\\(s\\): 'bias'."),
        (RuntimeError, lambda: func.functional_call(lin, {"weight": w, "bias": w, "foo": w}, x,
                                                     strict=True), "Unexpected key\\(s\\): 'foo'."),
        (ValueError, lambda: func.functional_call(lin, 3, (x,)), "to be a dict, or a list/tuple"),
        (ValueError, lambda: func.functional_call(lin, [("weight", w)], (x,)), "to be dictionar"),
        (AttributeError, lambda: func.functional_call(lin, {"foo.bar": w}, (x,)),
         "Linear has no attribute `foo`"),
        (ValueError, lambda: func.functional_call(_Tied(), {"a.weight": w, "b.weight": w * 3},
                                                   (x,)), "which are tied"),
        (RuntimeError, lambda: func.functional_call(_Tied(), {"a.weight": w}, x, strict=True,
                                                     tie_weights=False), "Missing key"),
    ]  # fmt: skip
    for kind, call, message in cases:
        with pytest.raises(kind, match=message):
            call()
    assert lin.weight.shape == (1, 2) and "foo" not in lin.__dict__


def _ensemble(T, F):
    T.manual_seed(0)
    models = [T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2)) for _ in range(3)]
    with T.no_grad():
        for k, m in enumerate(models):
            for p in m.parameters():
                p.copy_(T.arange(p.numel(), dtype=p.dtype).reshape(p.shape) * 0.1 * (k + 1))
            m[1].running_mean.fill_(0.5 * k)
    params, buffers = F.stack_module_state(models)

    def call(p, b, x):
        return F.functional_call(models[0], (p, b), (x,))

    x = T.tensor([[1.0, -1.0, 2.0], [0.5, 0.0, 1.0]])
    for m in models:
        m.eval()
    p_eval, b_eval = F.stack_module_state(models)
    out = F.vmap(call, in_dims=(0, 0, None))(p_eval, b_eval, x)
    grads = F.grad(lambda p: F.vmap(call, in_dims=(0, 0, None))(p, b_eval, x).sum())(p_eval)
    return params, buffers, out, grads


def test_stack_module_state_and_vmap_of_an_ensemble():
    params, buffers, out, grads = _ensemble(symgrad, func)
    assert list(params) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert list(buffers) == ["1.running_mean", "1.running_var", "1.num_batches_tracked"]
    for v in params.values():
        assert v.requires_grad and v.is_leaf and v.grad_fn is None and type(v) is symgrad.Tensor
    assert params["0.weight"].shape == (3, 2, 3) and buffers["1.running_var"].shape == (3, 2)
    assert not buffers["1.running_mean"].requires_grad
    assert buffers["1.num_batches_tracked"].dtype == symgrad.int64
    assert out.shape == (3, 2, 2) and set(grads) == set(params)
    np.testing.assert_allclose(
        grads["0.bias"].detach().numpy(),
        np.array([[0.0, 0.2], [0.0, 0.4], [0.0, 0.6]]) / np.sqrt(1 + 1e-5),  # 2 rows x gamma
        rtol=1e-5,
    )


def test_stack_module_state_against_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _ensemble(symgrad, func), _ensemble(torch, torch.func)
    for a, b in zip(ours, theirs):
        _same(a, b)


def test_stack_module_state_errors_as_pytorch():
    frozen = nn.Linear(2, 2)
    frozen.weight.requires_grad_(False)
    cases = [
        ([], "Expected at least one model, got 0"),
        ([nn.Linear(2, 2), nn.Linear(2, 2).eval()], "same training/eval mode"),
        ([nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2))], "same class"),
        ([frozen, nn.Linear(2, 2)], "Expected weight from each model to have the same"),
    ]
    for models, message in cases:
        with pytest.raises(RuntimeError, match=message):
            func.stack_module_state(models)
    params, _ = func.stack_module_state(nn.ModuleList([frozen]))
    assert not params["weight"].requires_grad and params["bias"].requires_grad


def test_replace_all_batch_norm_modules_drops_running_statistics():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.BatchNorm1d(2)), nn.BatchNorm1d(2))
    assert func.replace_all_batch_norm_modules_(net) is net
    for bn in (net[1][0], net[2]):
        assert bn.running_mean is None and bn.running_var is None
        assert bn.num_batches_tracked is None and not bn.track_running_stats
    net.eval()  # eval mode now normalizes with the batch's own statistics
    x = symgrad.tensor([[1.0, 2.0], [3.0, 5.0]])
    out = func.vmap(lambda x: net[2](x))(x.reshape(1, 2, 2))
    np.testing.assert_allclose(out.detach().numpy()[0], [[-1.0, -1.0], [1.0, 1.0]], atol=1e-4)


def test_functionalize_and_debug_unwrap():
    def bump(x):
        x.add_(1)
        return x * 2

    a = symgrad.ones(2)
    assert func.functionalize(bump)(a).tolist() == [4.0, 4.0] and a.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="invalid argument for remove=views"):
        func.functionalize(bump, remove="views")
    seen = []

    def look(x):
        one_level = func.debug_unwrap(x, recurse=False)
        seen.append((tuple(func.debug_unwrap(x).shape), tuple(one_level.shape)))
        return x

    func.vmap(func.vmap(look))(symgrad.ones(3, 2, 4))
    assert seen == [((3, 2, 4), (2, 4))]  # PyTorch's shapes
    t = symgrad.ones(2)
    assert func.debug_unwrap(t) is t


@pytest.mark.torch
def test_jacrev_chunk_size_error_is_pytorchs():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.func.jacrev(lambda a: a, chunk_size=0)
    with pytest.raises(ValueError) as ours:
        func.jacrev(lambda a: a, chunk_size=0)
    assert str(ours.value) == str(theirs.value)
