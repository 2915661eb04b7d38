"""The meta device: tensors and modules with shapes and dtypes but no values; computing on
them gives meta tensors of PyTorch's shapes and dtypes, and no value ever comes out."""

import copy
import resource

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn
from symgrad.func import functional_call, stack_module_state, vmap


def meta(*shape, **options):
    return symgrad.empty(*shape, device="meta", **options)


def described(t):
    return tuple(t.shape), t.dtype, t.device.type


# -- making meta tensors ---------------------------------------------------------------------
def test_meta_factories_print_and_device():
    m = meta(2, 3)
    assert m.is_meta and m.device == symgrad.device("meta") and str(m.device) == "meta"
    assert m.shape == (2, 3) and m.dtype == symgrad.float32
    assert repr(m) == "tensor(..., device='meta', size=(2, 3))"
    d = symgrad.zeros(2, device="meta", dtype=symgrad.float64, requires_grad=True)
    assert repr(d) == (
        "tensor(..., device='meta', size=(2,), dtype=symgrad.float64, requires_grad=True)"
    )
    assert not symgrad.ones(2).is_meta
    moved = symgrad.ones(3).to("meta")
    assert moved.is_meta and moved.shape == (3,)
    assert moved.to("meta") is moved


def test_every_factory_takes_the_meta_device():
    made = {
        "tensor": symgrad.tensor([1, 2], device="meta"),
        "full": symgrad.full((2, 3), 1.5, device="meta"),
        "eye": symgrad.eye(3, 2, device="meta"),
        "arange": symgrad.arange(5, device="meta"),
        "linspace": symgrad.linspace(0, 1, 4, device="meta"),
        "rand": symgrad.rand(2, 3, device="meta"),
        "randn": symgrad.randn(2, dtype=symgrad.float64, device="meta"),
        "randint": symgrad.randint(0, 5, (4,), device="meta"),
        "randperm": symgrad.randperm(6, device="meta"),
        "zeros_like": symgrad.zeros_like(meta(2)),
        "randn_like": symgrad.randn_like(meta(2)),
        "new_zeros": meta(2).new_zeros(3),
        "new_full": meta(2).new_full((3,), 2.0),
        "new_tensor": meta(2).new_tensor([1.0]),
        "as_tensor": symgrad.as_tensor([1.0, 2.0], device="meta"),
    }
    expected = {
        "tensor": ((2,), symgrad.int64),
        "full": ((2, 3), symgrad.float32),
        "eye": ((3, 2), symgrad.float32),
        "arange": ((5,), symgrad.int64),
        "linspace": ((4,), symgrad.float32),
        "rand": ((2, 3), symgrad.float32),
        "randn": ((2,), symgrad.float64),
        "randint": ((4,), symgrad.int64),
        "randperm": ((6,), symgrad.int64),
        "zeros_like": ((2,), symgrad.float32),
        "randn_like": ((2,), symgrad.float32),
        "new_zeros": ((3,), symgrad.float32),
        "new_full": ((3,), symgrad.float32),
        "new_tensor": ((1,), symgrad.float32),
        "as_tensor": ((2,), symgrad.float32),
    }
    for name, t in made.items():
        assert described(t) == (*expected[name], "meta"), name


def test_meta_draws_move_no_generator():
    symgrad.manual_seed(3)
    symgrad.randn(1000, device="meta")
    F.dropout(meta(1000), 0.5)
    meta(1000).uniform_()
    after = symgrad.rand(2)
    symgrad.manual_seed(3)
    assert symgrad.equal(after, symgrad.rand(2))


def test_huge_meta_tensors_cost_no_memory():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    a = meta(100_000, 100_000, requires_grad=True)  # 40 GB as float32
    b = meta(100_000, 2_000, requires_grad=True)
    (a @ b).relu().sum().backward()
    assert a.grad.shape == (100_000, 100_000) and a.grad.is_meta
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # kB


def test_meta_tensors_have_pytorchs_strides_and_views():
    m = meta(3, 4, requires_grad=True)
    assert m.is_contiguous() and m.stride() == (4, 1)
    assert not m.t().is_contiguous() and m.t().stride() == (1, 4)
    assert type(m.view(12).grad_fn).__name__ == "ViewBackward0"
    assert type(m.t().reshape(12).grad_fn).__name__ == "UnsafeViewBackward0"
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        m.t().view(12)
    assert m.expand(2, 3, 4).stride() == (0, 4, 1)


# -- no values come out ----------------------------------------------------------------------
def test_meta_has_no_values():
    m = meta(2, 3)
    one = meta(())
    with pytest.raises(RuntimeError, match="6 elements cannot be converted"):
        m.item()
    for read in (one.item, lambda: float(one), lambda: int(one), lambda: bool(one)):
        with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
            read()
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        [1, 2][symgrad.zeros((), dtype=symgrad.int64, device="meta")]
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(m)
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{one:.3f}"
    for read in (m.numpy, lambda: np.asarray(m), lambda: np.array(m)):
        with pytest.raises(TypeError, match="meta device type tensor to numpy"):
            read()
    for read in (m.tolist, m.cpu, lambda: m.to("cpu"), lambda: symgrad.tensor(m, device="cpu")):
        with pytest.raises(NotImplementedError, match="no data"):
            read()
    assert repr(m.sum()) == "tensor(..., device='meta', size=())"
    # the sums, arrays and copies of values that do not exist are meta again
    with pytest.warns(UserWarning, match="copy construct"):
        assert symgrad.tensor(m).is_meta
    assert m.clone().is_meta
    assert np.asarray(m._data.sum()).size == 1 and type(m._data.sum()) is type(m._data)


def test_values_never_leak_through_numpy():
    data = meta(3, 4)._data
    for result in (
        data + 1,
        np.exp(data),
        data @ meta(4, 2)._data,
        data.sum(0),
        data.max(),
        np.argmax(data),
        data.argmax(1),
        np.concatenate([data, data]),
        np.einsum("ij,kj->ik", data, data),
        np.where(data > 0, data, 0),
        data[[0, 2]],
        data[1, 2],
        data.astype(np.int64),
        copy.deepcopy(data),
    ):
        assert type(result) is type(data), result
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        float(data[0, 0])
    with pytest.raises(NotImplementedError, match="depends on the values"):
        np.nonzero(data)


@pytest.mark.parametrize(
    "op",
    [
        lambda m: m.nonzero(),
        lambda m: m[m > 0],
        lambda m: symgrad.unique(m),
        lambda m: symgrad.masked_select(m, m > 0),
        lambda m: symgrad.equal(m, m),
    ],
)
def test_data_dependent_ops_raise(op):
    with pytest.raises(NotImplementedError):
        op(meta(3, 2))


def test_meta_mixed_with_cpu_raises():
    m = meta(2, 3)
    cpu = symgrad.ones(2, 3)
    with pytest.raises(
        RuntimeError, match="Tensor on device cpu is not on the expected device meta!"
    ):
        m + cpu
    with pytest.raises(
        RuntimeError, match="Tensor on device meta is not on the expected device cpu!"
    ):
        cpu * m
    with pytest.raises(RuntimeError, match="not on the expected device"):
        symgrad.cat([m, cpu])
    with pytest.raises(RuntimeError, match="not on the expected device"):
        F.cross_entropy(m, symgrad.tensor([0, 1]))
    # a CPU tensor of no dimensions is a number, as in PyTorch
    assert (m + symgrad.tensor(2.0)).is_meta
    # copies go into meta tensors, never out of them
    assert meta(2, 3).copy_(cpu).is_meta
    with pytest.raises(NotImplementedError, match="no data"):
        cpu.clone().copy_(m)
    with pytest.raises(NotImplementedError, match="no data"):
        cpu.clone()[0] = m[0]


# -- shapes, dtypes and graphs ---------------------------------------------------------------
CASES = [
    ("matmul", lambda a, b: a @ b, [(3, 4), (4, 5)], (3, 5)),
    ("bmm", lambda a, b: a @ b, [(2, 3, 4), (4, 5)], (2, 3, 5)),
    ("broadcast", lambda a, b: a * b + 1, [(3, 1), (1, 4)], (3, 4)),
    ("relu", lambda a: F.relu(a), [(2, 3)], (2, 3)),
    ("sum", lambda a: a.sum(), [(2, 3)], ()),
    ("sum_dim", lambda a: a.sum(1, keepdim=True), [(2, 3)], (2, 1)),
    ("mean", lambda a: a.mean(0), [(2, 3)], (3,)),
    ("softmax", lambda a: F.softmax(a, -1), [(2, 3)], (2, 3)),
    ("log_softmax", lambda a: F.log_softmax(a, 1), [(2, 3)], (2, 3)),
    ("reshape", lambda a: a.reshape(3, -1), [(2, 3, 2)], (3, 4)),
    ("view", lambda a: a.view(-1), [(2, 3)], (6,)),
    ("transpose", lambda a: a.transpose(0, 1), [(2, 3)], (3, 2)),
    ("cat", lambda a, b: symgrad.cat([a, b], 1), [(2, 3), (2, 1)], (2, 4)),
    ("stack", lambda a, b: symgrad.stack([a, b]), [(2, 3), (2, 3)], (2, 2, 3)),
    ("index", lambda a: a[1:, [0, 2]], [(3, 4)], (2, 2)),
    ("index_int", lambda a: a[1, -1], [(3, 4)], ()),
    ("max_dim", lambda a: a.max(1).values, [(3, 4)], (3,)),
    (
        "conv2d",
        lambda x, w: F.conv2d(x, w, stride=2, padding=1),
        [(2, 3, 8, 8), (4, 3, 3, 3)],
        (2, 4, 4, 4),
    ),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2), [(1, 2, 6, 6)], (1, 2, 3, 3)),
    ("linear", lambda x, w, b: F.linear(x, w, b), [(5, 3), (4, 3), (4,)], (5, 4)),
    ("layer_norm", lambda x: F.layer_norm(x, (3,)), [(2, 3)], (2, 3)),
    ("mse_loss", lambda a, b: F.mse_loss(a, b), [(2, 3), (2, 3)], ()),
    ("to_float64", lambda a: a.to(symgrad.float64), [(2,)], (2,)),
]


@pytest.mark.parametrize("name,fn,shapes,shape", CASES, ids=[c[0] for c in CASES])
def test_meta_ops_match_the_cpu_graph(name, fn, shapes, shape):
    symgrad.manual_seed(0)
    cpu = [symgrad.randn(s, requires_grad=True) for s in shapes]
    metas = [meta(*s, requires_grad=True) for s in shapes]
    expected, out = fn(*cpu), fn(*metas)
    assert out.is_meta and out.shape == shape == expected.shape and out.dtype == expected.dtype
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
    out.sum().backward()
    for m in metas:
        assert m.grad.is_meta and m.grad.shape == m.shape and m.grad.dtype == m.dtype


def test_meta_dtypes_follow_promotion():
    ints = symgrad.zeros(3, dtype=symgrad.int64, device="meta")
    assert (ints + 1).dtype == symgrad.int64
    assert (ints / 2).dtype == symgrad.float32
    assert (ints > 0).dtype == symgrad.bool and (ints > 0).is_meta
    assert ints.sum().dtype == symgrad.int64
    assert meta(3).argmax().dtype == symgrad.int64 and meta(3).argmax().is_meta
    indices = meta(3, 4).sort(1).indices
    assert described(indices) == ((3, 4), symgrad.int64, "meta")


def test_inplace_ops_on_meta_tensors():
    m = meta(2, 3)
    version = m._version
    assert m.add_(1) is m and m.zero_() is m and m.is_meta
    m[0] = 5.0
    assert m._version > version and m.is_meta
    leaf = meta(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.add_(1)
    with symgrad.no_grad():
        nn.init.kaiming_uniform_(leaf)
    assert leaf.is_meta


# -- models end to end -----------------------------------------------------------------------
def test_mlp_forward_and_backward_on_meta():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to("meta")
    out = model(meta(5, 4))
    assert described(out) == ((5, 3), symgrad.float32, "meta")
    assert type(out.grad_fn).__name__ == "AddmmBackward0"
    loss = F.cross_entropy(out, symgrad.zeros(5, dtype=symgrad.int64, device="meta"))
    assert described(loss) == ((), symgrad.float32, "meta")
    assert type(loss.grad_fn).__name__ == "NllLossBackward0"
    loss.backward()
    for p in model.parameters():
        assert p.grad.is_meta and p.grad.shape == p.shape


def test_cnn_forward_and_backward_on_meta_then_to_empty():
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.Linear(4 * 4 * 4, 10),
    ).to("meta")
    out = model(meta(2, 1, 8, 8))
    assert described(out) == ((2, 10), symgrad.float32, "meta")
    F.cross_entropy(out, symgrad.zeros(2, dtype=symgrad.int64, device="meta")).backward()
    assert all(p.grad.is_meta and p.grad.shape == p.shape for p in model.parameters())
    with pytest.raises(NotImplementedError, match="to_empty"):
        model.to("cpu")
    assert model.to_empty(device="cpu") is model
    assert not any(t.is_meta for t in [*model.parameters(), *model.buffers()])
    assert model[1].num_batches_tracked.dtype == symgrad.int64
    model[0].reset_parameters()
    model[6].reset_parameters()
    assert model(symgrad.randn(2, 1, 8, 8)).shape == (2, 10)


def test_modules_built_on_meta():
    layer = nn.Linear(3, 2, device="meta")
    assert layer.weight.is_meta and layer.bias.is_meta
    rnn = nn.LSTM(4, 6, batch_first=True).to("meta")
    out, (h, c) = rnn(meta(2, 5, 4))
    assert out.is_meta and out.shape == (2, 5, 6) and h.shape == c.shape == (1, 2, 6)


def test_module_to_meta_and_ensembling():
    symgrad.manual_seed(0)
    models = [nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)) for _ in range(3)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(p.is_meta for p in base.parameters())
    assert "device='meta', size=(4, 3), requires_grad=True" in repr(base[0].weight)
    assert not models[0][0].weight.is_meta

    def run(p, b, x):
        return functional_call(base, (p, b), (x,))

    x = symgrad.randn(5, 3)
    out = vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    expected = symgrad.stack([m(x) for m in models])
    assert symgrad.allclose(out, expected)


def test_meta_graphs_beyond_one_backward():
    x = meta(3, requires_grad=True)
    (g,) = symgrad.autograd.grad((x**3).sum(), x, create_graph=True)
    (g2,) = symgrad.autograd.grad(g.sum(), x)
    assert g.is_meta and type(g.grad_fn).__name__ == "MulBackward0" and g2.is_meta
    (x * 2).backward(symgrad.ones(3, device="meta"))
    (x * 3).sum().backward()
    assert x.grad.is_meta
    with pytest.raises(RuntimeError, match="expected device meta but got cpu"):
        (x * 2).backward(symgrad.ones(3))


def test_optimizers_step_meta_parameters():
    for make in (symgrad.optim.SGD, symgrad.optim.Adam):
        model = nn.Linear(3, 2).to("meta")
        opt = make(model.parameters(), lr=0.1)
        F.mse_loss(model(meta(4, 3)), meta(4, 2)).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        assert model.weight.is_meta and model.weight.shape == (2, 3)


def test_saving_and_loading_meta_tensors(tmp_path):
    model = nn.Linear(3, 2).to("meta")
    symgrad.save(model.state_dict(), tmp_path / "meta.pt")
    loaded = symgrad.load(tmp_path / "meta.pt", weights_only=True)
    assert loaded["weight"].is_meta and loaded["weight"].shape == (2, 3)
    with pytest.warns(UserWarning, match="meta parameter in the current model, which is a no-op"):
        model.load_state_dict(nn.Linear(3, 2).state_dict())
    assert model.weight.is_meta
    model.load_state_dict(nn.Linear(3, 2).state_dict(), assign=True)
    assert not model.weight.is_meta


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a @ b,
        lambda a, b: symgrad.cat([a, b]),
        lambda a, b: a.view(5),
        lambda a, b: a.sum(5),
    ],
)
def test_shape_errors_on_meta_are_the_cpu_errors(op):
    errors = []
    for device in ("cpu", "meta"):
        with pytest.raises(Exception) as info:
            op(symgrad.empty(2, 3, device=device), symgrad.empty(4, device=device))
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize(
    "op",
    [
        lambda x, i, m: x[i],
        lambda x, i, m: x[:, i],
        lambda x, i, m: x.masked_fill(m, 0.0),
        lambda x, i, m: symgrad.where(m, x, 0.0),
        lambda x, i, m: x.clone().index_put_((i,), symgrad.tensor(1.0)),
        lambda x, i, m: x.clone().__setitem__(i, 1.0),
        lambda x, i, m: symgrad.gather(x, 1, i.reshape(2, 1).expand(2, 2)),
        lambda x, i, m: symgrad.index_select(x, 0, i),
    ],
)
def test_meta_indices_of_a_cpu_tensor_raise(op):
    # reading the placeholder of a meta index would make up a CPU result
    x = symgrad.arange(12.0).reshape(3, 4)
    i = symgrad.zeros(2, dtype=symgrad.int64, device="meta")
    m = symgrad.zeros(3, 4, dtype=symgrad.bool, device="meta")
    with pytest.raises(RuntimeError):
        op(x, i, m)
    # CPU indices of a meta tensor are fine, as in PyTorch
    assert meta(3, 4)[symgrad.tensor([0, 2])].shape == (2, 4)


def test_ops_look_for_meta_inputs_once_a_process_made_any():
    # ops skip the look for meta inputs until the process has made a meta array: the first
    # one made, however (a factory, a view, an unpickled tensor), must switch the look on
    import subprocess
    import sys

    script = """
import io, pickle, symgrad
from symgrad._meta import SEEN
cpu = symgrad.ones(2, 3)
assert not SEEN.any
blob = pickle.dumps(symgrad.empty(2, 3, device="meta"))
assert SEEN.any
SEEN.any = False  # as a fresh process that only loads one
m = pickle.loads(blob)
assert SEEN.any and m.is_meta
try:
    symgrad.cat([m, cpu])
except RuntimeError as error:
    print(error)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Tensor on device cpu is not on the expected device meta!"
