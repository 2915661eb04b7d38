"""``symgrad.compile``: the generated programs give the eager values and gradients, on the whole
op table and on training code; what a trace can't hold runs eagerly, said once, never wrong."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.autograd import grad
from symgrad.prim import blocks

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from ops.op_db import OP_DB
except ImportError:  # tests/ made a package itself
    from tests.ops.op_db import OP_DB

# why an op-table entry may run eagerly (a graph break, said, never a wrong value): qr, or a
# view's history, a write into a constant; an index computed from the values by an op that
# does not find it afresh (scatter's), which the check on perturbed arguments catches
BREAKS = ("history", "can't be compiled yet", "writes in place", "differ")


def _outputs(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _run(fn, arrays, dtype):
    xs = [symgrad.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    outs = [o for o in _outputs(fn(*xs)) if isinstance(o, symgrad.Tensor)]
    rng = np.random.default_rng(1)
    pairs = [(o, rng.standard_normal(o.shape)) for o in outs if o.requires_grad]
    grads = []
    if pairs:
        grads = grad(
            [o for o, _ in pairs],
            xs,
            [symgrad.tensor(w, dtype=o.dtype) for o, w in pairs],
            allow_unused=True,
        )
    return [o.detach().numpy() for o in outs], [None if g is None else g.numpy() for g in grads]


@pytest.mark.parametrize(
    "dtype,blocked",
    [("float64", False), ("float32", False), ("float64", True)],
    ids=["float64", "float32", "float64-blocked"],
)
@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_compiled_op_table_equals_eager(op, dtype, blocked, monkeypatch):
    if blocked:  # element-wise regions fused and run in blocks however small (their partials
        # kept wherever that is chosen), on three threads
        monkeypatch.setattr(blocks, "MIN_BLOCKED", 0)
        monkeypatch.setattr(blocks, "BLOCK", 7)
        monkeypatch.setattr(blocks, "threads", lambda: 3)
    dtype = getattr(symgrad, dtype)
    arrays = op.sample()
    second = [a * 1.01 + 0.001 for a in arrays]  # a new call of the traced program

    def fn(*xs):
        return op.fn(symgrad, *xs)

    compiled = symgrad.compile(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _run(fn, second, dtype)
        except Exception as error:  # an entry made for float64 alone: the same error compiled
            with pytest.raises(type(error)):
                _run(compiled, second, dtype)
            return
        _run(compiled, arrays, dtype)
        values, grads = _run(compiled, second, dtype)
        eager_values, eager_grads = _run(fn, second, dtype)
    breaks = [str(w.message) for w in caught if "symgrad.compile" in str(w.message)]
    assert all(any(b in m for b in BREAKS) for m in breaks), breaks
    assert compiled.source is not None or breaks  # a program, or a break said
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == symgrad.float32 else dict(rtol=1e-9, atol=1e-12)
    assert len(values) == len(eager_values)
    for a, b in zip(values, eager_values):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, equal_nan=True, **tol)
    for a, b in zip(grads, eager_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, equal_nan=True, **tol)


@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_compiled_op_table_holds_on_reordered_inputs(op):
    """Each input's elements shuffled: the same domain (signs, sizes, ties), other orders, so
    indices and masks found from the values (max's, sort's, a mask's) change, and a program
    keeping the traced ones would be wrong; the number of elements a mask selects does not."""
    arrays = op.sample()
    rng = np.random.default_rng(7)

    def fn(*xs):
        return op.fn(symgrad, *xs)

    compiled = symgrad.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _run(fn, arrays, symgrad.float64)
        except Exception:  # noqa: BLE001 - an entry expecting an error: the equality test's
            return
        _run(compiled, arrays, symgrad.float64)
        for _ in range(3):
            new = [rng.permutation(a.reshape(-1)).reshape(a.shape) for a in arrays]
            try:
                eager_values, eager_grads = _run(fn, new, symgrad.float64)
            except Exception:  # noqa: BLE001 - shuffled out of the entry's domain
                continue
            values, grads = _run(compiled, new, symgrad.float64)
            assert len(values) == len(eager_values)
            for a, b in zip(values, eager_values):
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
            for a, b in zip(grads, eager_grads):
                assert (a is None) == (b is None)
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_most_of_the_op_table_compiles():
    compiled = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in OP_DB:
            f = symgrad.compile(lambda *xs, op=op: op.fn(symgrad, *xs))
            f(*[symgrad.tensor(a, requires_grad=True) for a in op.sample()])
            compiled += f.source is not None and not f._warned
    assert compiled >= 0.99 * len(OP_DB), (compiled, len(OP_DB))


# -- training code -----------------------------------------------------------------------------
def _mlp():
    symgrad.manual_seed(0)
    return symgrad.nn.Sequential(
        symgrad.nn.Linear(4, 8), symgrad.nn.ReLU(), symgrad.nn.Linear(8, 3)
    )


def test_a_compiled_training_loop_gives_the_eager_weights():
    rng = np.random.default_rng(0)
    x = symgrad.tensor(rng.standard_normal((16, 4)), dtype=symgrad.float32)
    y = symgrad.tensor(rng.integers(0, 3, 16))
    weights = []
    for use_compile in (False, True):
        model = _mlp()
        opt = symgrad.optim.Adam(model.parameters(), lr=0.01)

        def step(x, y, model=model):
            return F.cross_entropy(model(x), y)

        run = symgrad.compile(step) if use_compile else step
        for _ in range(5):
            opt.zero_grad()
            loss = run(x, y)
            loss.backward()
            opt.step()
        weights.append([p.detach().numpy().copy() for p in model.parameters()])
        if use_compile:
            assert loss.grad_fn.name() == "CompiledFunctionBackward"
            assert "def backward(" in run.source
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_compiled_module_keeps_pytorchs_names_and_follows_eval():
    model = _mlp()
    fast = symgrad.compile(model)
    assert type(fast).__name__ == "OptimizedModule" and fast._orig_mod is model
    assert list(fast.state_dict())[0] == "_orig_mod.0.weight"
    x = symgrad.ones(2, 4)
    np.testing.assert_allclose(fast(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    fast.eval()
    assert not model.training
    np.testing.assert_allclose(fast(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_results_behave_as_eager_ones():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    f = symgrad.compile(lambda x: (x * w).sum())
    x = symgrad.tensor([3.0, 4.0])
    out = f(x)
    out.backward()
    out2 = f(x)
    out2.backward()
    assert w.grad.tolist() == [6.0, 8.0]  # accumulated over the two calls
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward()
    with symgrad.no_grad():
        assert f(x).grad_fn is None
    with pytest.raises(RuntimeError, match="not differentiable"):
        grad(f(x), w, create_graph=True)


def test_an_argument_changed_in_place_before_backward_is_pytorchs_error():
    f = symgrad.compile(lambda x: (x * x).sum())
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    out = f(y)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_new_shapes_trace_again():
    f = symgrad.compile(lambda x: x.exp().sum())
    for n in (2, 3, 2):
        x = symgrad.ones(n, requires_grad=True)
        f(x).backward()
        np.testing.assert_allclose(x.grad.numpy(), np.e * np.ones(n), rtol=1e-6)
    assert len(f._cache) == 2
    symgrad.compiler.reset()
    assert not f._cache


# -- graph breaks: eager, one warning, never a wrong value --------------------------------------
def test_control_flow_on_values_runs_eagerly():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * -3

    c = symgrad.compile(f)
    with pytest.warns(UserWarning, match=r"bool\(\) reads a tensor's value.*test_compile.py"):
        assert c(symgrad.tensor([1.0])).item() == 2.0
    assert c(symgrad.tensor([-1.0])).item() == 3.0
    with pytest.raises(RuntimeError, match="fullgraph=True"):
        symgrad.compile(f, fullgraph=True)(symgrad.tensor([1.0]))


def test_random_ops_run_eagerly_and_draw_once_per_call():
    f = symgrad.compile(lambda x: F.dropout(x, 0.5))
    symgrad.manual_seed(3)
    with pytest.warns(UserWarning, match="draws random numbers"):
        a = f(symgrad.ones(8))
    symgrad.manual_seed(3)
    b = F.dropout(symgrad.ones(8), 0.5)
    assert a.tolist() == b.tolist()


def test_batch_norm_statistics_are_updated_once_per_call():
    bn = symgrad.nn.BatchNorm1d(2)
    fast = symgrad.compile(bn)
    x = symgrad.tensor([[1.0, 2.0], [3.0, 6.0]])
    with pytest.warns(UserWarning, match="writes in place"):
        fast(x)
    reference = symgrad.nn.BatchNorm1d(2)
    reference(x)
    np.testing.assert_allclose(bn.running_mean.numpy(), reference.running_mean.numpy())
    assert int(bn.num_batches_tracked) == 1


def test_a_value_the_trace_can_not_see_is_caught_by_the_check():
    def f(x, i):
        k = int(i.argmax())  # int() reads a value: a break, said
        return x[k] * 2

    c = symgrad.compile(f)
    x = symgrad.tensor([1.0, 2.0, 3.0])
    with pytest.warns(UserWarning, match="runs eagerly"):
        assert c(x, symgrad.tensor([0, 5, 1])).item() == 4.0
    assert c(x, symgrad.tensor([7, 5, 1])).item() == 2.0


def test_returned_objects_must_be_tensors_or_containers():
    class Box:
        def __init__(self, t):
            self.t = t

    c = symgrad.compile(lambda x: Box(x * 2))
    with pytest.warns(UserWarning, match="returns a Box"):
        assert c(symgrad.tensor([1.0])).t.item() == 2.0
    assert c(symgrad.tensor([5.0])).t.item() == 10.0


def test_the_source_holds_no_user_names():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    x.name = "__import__('os')"
    f = symgrad.compile(lambda t: (t * t).sum())
    f(x)
    assert "__import__" not in f.source and "os" not in f.source.replace("pos", "")


def test_compile_refuses_what_is_not_callable():
    with pytest.raises(TypeError, match="function or an nn.Module"):
        symgrad.compile(3)
    assert symgrad.compile(len, disable=True) is len


def test_closed_forms_ask_for_the_function_without_compile():
    from symgrad.symbolic import gradient

    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    f = symgrad.compile(lambda t: (t * t).sum())
    with pytest.raises(NotImplementedError, match="without compile"):
        gradient(f(x), [x])


def test_writing_into_an_argument_runs_eagerly_once():
    def f(x):
        x.add_(1)
        return x * 2

    c = symgrad.compile(f)
    x = symgrad.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="add_ writes in place"):
        assert c(x).tolist() == [4.0, 6.0]
    assert x.tolist() == [2.0, 3.0]  # written once, as without compile


def test_an_error_of_the_function_is_its_own():
    c = symgrad.compile(lambda x: x @ x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the error is the function's
        with pytest.raises(RuntimeError, match="cannot be multiplied"):
            c(symgrad.ones(2, 3))
    assert c(symgrad.ones(2, 2)).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert c.source is not None


def test_an_op_name_that_is_not_an_identifier_never_enters_the_source():
    from types import SimpleNamespace

    from symgrad.compiler.emit import _label

    assert _label(SimpleNamespace(name="mul")) == "mul"
    assert _label(SimpleNamespace(name="sq\nimport os  # ")) == "a declared op"


# -- indices and masks found from the values ------------------------------------------------------
def test_indices_found_from_the_values_are_found_at_every_call():
    f = symgrad.compile(lambda x: x.sort(1))
    x = symgrad.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    f(x)
    assert "= q" in f.source  # the index is a value the program computes
    y = symgrad.tensor([[1.0, 2.0, 3.0], [6.0, 5.0, 4.0]], requires_grad=True)
    values, indices = f(y)
    assert values.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert indices.tolist() == [[0, 1, 2], [2, 1, 0]]
    (values * symgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert y.grad.tolist() == [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]
    assert type(values.grad_fn).__name__ == "CompiledFunctionBackward"


def test_max_pooling_indices_follow_the_values():
    f = symgrad.compile(lambda x: F.max_pool2d(x, 2, return_indices=True))
    f(symgrad.arange(16.0).reshape(1, 4, 4))
    x = symgrad.tensor([[[9.0, 0, 0, 0], [0, 0, 0, 8], [0, 7, 0, 0], [0, 0, 6, 0]]])
    values, indices = f(x)
    assert values.tolist() == [[[9.0, 8.0], [7.0, 6.0]]]
    assert indices.tolist() == [[[0, 7], [9, 14]]]
    assert f.source is not None and not f._warned


def test_a_parameter_s_maximum_follows_its_updates():
    w = symgrad.tensor([1.0, 5.0, 2.0], requires_grad=True)
    f = symgrad.compile(lambda x: x * w.max(0).values)
    x = symgrad.ones(2)
    assert f(x).tolist() == [5.0, 5.0]
    with symgrad.no_grad():
        w[0] = 7.0
    out = f(x)
    assert out.tolist() == [7.0, 7.0]
    out.sum().backward()
    assert w.grad.tolist() == [2.0, 0.0, 0.0]


def test_a_mask_selecting_other_counts_runs_that_call_eagerly():
    calls = []

    def positive(x):
        calls.append(1)
        return x[x > 0] * 2

    f = symgrad.compile(positive)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no break: the program holds for two positives
        f(symgrad.tensor([1.0, -2.0, 3.0]))
        traced = len(calls)
        assert f(symgrad.tensor([-4.0, 5.0, 6.0])).tolist() == [10.0, 12.0]
        assert len(calls) == traced  # the program ran
        assert f(symgrad.tensor([1.0, 2.0, 3.0])).tolist() == [2.0, 4.0, 6.0]
        assert len(calls) == traced + 1  # three positives: this call ran eagerly
        x = symgrad.tensor([-1.0, 2.0, -3.0], requires_grad=True)
        f(x).sum().backward()
        assert x.grad.tolist() == [0.0, 2.0, 0.0]


def test_an_index_out_of_range_is_the_eager_error():
    f = symgrad.compile(lambda x, i: x[i] + x.gather(0, i))
    f(symgrad.tensor([1.0, 2.0]), symgrad.tensor([0, 1]))
    with pytest.raises(IndexError, match="out of bounds"):
        f(symgrad.tensor([1.0, 2.0]), symgrad.tensor([0, 5]))


def test_an_index_from_the_values_no_op_declares_is_caught_by_the_check():
    f = symgrad.compile(lambda x, y: x.scatter(0, x.argsort(), y))  # scatter's index: a constant
    y = symgrad.tensor([10.0, 20.0, 30.0])
    with pytest.warns(UserWarning, match="differ from the eager ones"):
        f(symgrad.tensor([3.0, 1.0, 2.0]), y)
    assert f(symgrad.tensor([1.0, 3.0, 2.0]), y).tolist() == [10.0, 30.0, 20.0]
