"""Meta tensors as PyTorch lays them out and mixes them: element-wise results take the inputs'
memory order (PyTorch's TensorIterator strides), and a meta tensor meets a CPU tensor in a
binary op (an error, unless the CPU tensor has no dimensions) or a matrix product (where
PyTorch's kernels check no devices: the result on the device of the operand PyTorch allocates
it from, or PyTorch's error) exactly as in PyTorch."""

from __future__ import annotations

import itertools

import pytest

import symgrad

F = symgrad.nn.functional


def _meta(T, *shape):
    return T.empty(*shape, device="meta")


# name -> (function of the module T, PyTorch's strides of the result)
LAYOUTS = {
    "neg_of_transposed": (lambda T: -_meta(T, 3, 4).t(), (1, 4)),
    "exp_of_transposed": (lambda T: _meta(T, 3, 4).t().exp(), (1, 4)),
    "sigmoid_of_transposed": (lambda T: _meta(T, 3, 4).t().sigmoid(), (1, 4)),
    "relu_of_transposed": (lambda T: T.relu(_meta(T, 3, 4).t()), (1, 4)),
    "transposed_times_number": (lambda T: _meta(T, 3, 4).t() * 2, (1, 4)),
    "transposed_plus_0d_cpu": (lambda T: _meta(T, 3, 4).t() + T.tensor(2.0), (1, 4)),
    "transposed_plus_contiguous": (lambda T: _meta(T, 3, 4).t() + _meta(T, 4, 3), (1, 4)),
    "contiguous_plus_transposed": (lambda T: _meta(T, 4, 3) + _meta(T, 3, 4).t(), (3, 1)),
    "permuted_exp": (lambda T: _meta(T, 2, 3, 4).permute(2, 0, 1).exp(), (1, 12, 4)),
    "permuted_plus_row": (
        lambda T: _meta(T, 2, 3, 4).permute(2, 0, 1) + _meta(T, 3),
        (1, 12, 4),
    ),
    "strided_slice": (lambda T: _meta(T, 4, 6)[:, ::2].exp(), (3, 1)),
    "expanded": (lambda T: _meta(T, 3, 1).expand(3, 4).exp(), (4, 1)),
    "where_of_transposed": (
        lambda T: T.where(_meta(T, 3, 4).t() > 0, _meta(T, 3, 4).t(), 0.0),
        (1, 4),
    ),
    "column_times_transposed": (lambda T: _meta(T, 4, 1) * _meta(T, 3, 4).t(), (1, 4)),
    "clone_of_transposed": (lambda T: _meta(T, 3, 4).t().clone(), (1, 4)),
    "clone_of_permuted": (lambda T: _meta(T, 2, 3, 4).permute(1, 2, 0).clone(), (4, 1, 12)),
    "contiguous_of_transposed": (lambda T: _meta(T, 3, 4).t().contiguous(), (3, 1)),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_elementwise_results_have_pytorchs_strides(name):
    fn, strides = LAYOUTS[name]
    out = fn(symgrad)
    assert out.is_meta
    assert out.stride() == strides


def test_cpu_elementwise_results_keep_a_single_inputs_layout():
    x = symgrad.ones(3, 4).t()
    assert (-x).stride() == x.exp().stride() == (1, 4)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layouts_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert LAYOUTS[name][0](torch).stride() == LAYOUTS[name][1]


# -- meta meets CPU -------------------------------------------------------------------------------

MESSAGE = "Tensor on device {} is not on the expected device {}!"
# name -> (function, operand shapes, outcome for (meta, cpu) and for (cpu, meta): the result's
# device, or the devices of PyTorch's error)
PAIRS = {
    "add": (lambda a, b: a + b, [(2, 3), (2, 3)], [("cpu", "meta"), ("meta", "cpu")]),
    "mul_broadcast": (lambda a, b: a * b, [(2, 3), (3,)], [("cpu", "meta"), ("meta", "cpu")]),
    "maximum": (symgrad.maximum, [(2, 3), (2, 3)], [("cpu", "meta"), ("meta", "cpu")]),
    "mm": (symgrad.mm, [(2, 3), (3, 4)], ["meta", "cpu"]),
    "bmm": (symgrad.bmm, [(2, 2, 3), (2, 3, 4)], ["cpu", "meta"]),
    "matmul_matrices": (symgrad.matmul, [(2, 3), (3, 4)], ["meta", "cpu"]),
    "matmul_vector_matrix": (symgrad.matmul, [(3,), (3, 4)], ["meta", "cpu"]),
    "matmul_matrix_vector": (
        symgrad.matmul,
        [(2, 3), (3,)],
        [("cpu", "meta"), ("meta", "cpu")],
    ),
    "matmul_vectors": (symgrad.matmul, [(3,), (3,)], [("cpu", "meta"), ("meta", "cpu")]),
    "matmul_batch_matrix": (symgrad.matmul, [(2, 2, 3), (3, 4)], ["meta", "cpu"]),
    "matmul_matrix_batch": (symgrad.matmul, [(2, 3), (2, 3, 4)], ["cpu", "meta"]),
    "matmul_batches": (symgrad.matmul, [(2, 2, 3), (2, 3, 4)], ["cpu", "meta"]),
    "matmul_batch_vector": (
        symgrad.matmul,
        [(2, 2, 3), (3,)],
        [("cpu", "meta"), ("meta", "cpu")],
    ),
    "matmul_vector_batch": (symgrad.matmul, [(3,), (2, 3, 4)], ["cpu", "meta"]),
    "matmul_broadcast_batches": (symgrad.matmul, [(5, 2, 2, 3), (2, 3, 4)], ["cpu", "meta"]),
    "mv": (symgrad.mv, [(2, 3), (3,)], [("cpu", "meta"), ("meta", "cpu")]),
    "dot": (symgrad.dot, [(3,), (3,)], [("cpu", "meta"), ("meta", "cpu")]),
    "linear": (F.linear, [(2, 3), (4, 3)], ["meta", "cpu"]),
    "linear_vector": (F.linear, [(3,), (4, 3)], ["meta", "cpu"]),
    "linear_batch": (F.linear, [(5, 2, 3), (4, 3)], ["meta", "cpu"]),
}


def _operands(T, shapes, devices):
    return [
        T.empty(*s, device="meta") if d == "meta" else T.ones(*s) for s, d in zip(shapes, devices)
    ]


def _outcome(T, fn, shapes, devices):
    try:
        out = fn(*_operands(T, shapes, devices))
    except RuntimeError as e:
        return str(e)
    return (out.device.type, tuple(out.shape))


def _expected(shapes, outcome, shape):
    if isinstance(outcome, tuple):
        return MESSAGE.format(*outcome)
    return (outcome, shape)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_meta_meets_cpu(name):
    fn, shapes, outcomes = PAIRS[name]
    shape = tuple(fn(*_operands(symgrad, shapes, ("cpu", "cpu"))).shape)
    for devices, outcome in zip([("meta", "cpu"), ("cpu", "meta")], outcomes):
        assert _outcome(symgrad, fn, shapes, devices) == _expected(shapes, outcome, shape)


def test_a_cpu_result_of_a_meta_operand_holds_no_computed_values():
    """PyTorch allocates the result on the CPU and computes nothing into it."""
    out = symgrad.ones(2, 3) @ symgrad.empty(3, 4, device="meta")
    assert out.device.type == "cpu" and out.shape == (2, 4)
    assert out.sum().item() == 0.0


# (bias, first, second) devices of addmm and friends -> the result's device, or the devices of
# PyTorch's error
FUSED = {
    "addmm": (symgrad.addmm, [(2, 4), (2, 3), (3, 4)]),
    "addmm_row": (symgrad.addmm, [(4,), (2, 3), (3, 4)]),
    "addmv": (symgrad.addmv, [(2,), (2, 3), (3,)]),
    "addr": (symgrad.addr, [(2, 3), (2,), (3,)]),
    "baddbmm": (symgrad.baddbmm, [(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
    "addbmm": (symgrad.addbmm, [(2, 4), (2, 2, 3), (2, 3, 4)]),
    "linear_bias": (lambda x, w, b: F.linear(x, w, b), [(2, 3), (4, 3), (4,)]),
}
FUSED_OUTCOMES = {
    "addmm": "meta MMC,cpu CCM",
    "addmm_row": "meta MMC,cpu CCM",
    "addmv": "",
    "addr": "",
    "baddbmm": "meta MMC MCM MCC,cpu CMM CMC CCM",
    "addbmm": "meta MMC MCM MCC,cpu CMM CMC CCM",
    "linear_bias": "meta MCM,cpu CMC",
}


def _fused_expected(name, combo):
    for part in FUSED_OUTCOMES[name].split(","):
        if part and combo in part.split()[1:]:
            return part.split()[0]
    return "error"


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_products_meta_meets_cpu(name):
    fn, shapes = FUSED[name]
    for combo in itertools.product("MC", repeat=3):
        combo = "".join(combo)
        if combo in ("MMM", "CCC"):
            continue
        devices = ["meta" if c == "M" else "cpu" for c in combo]
        got = _outcome(symgrad, fn, shapes, devices)
        expected = _fused_expected(name, combo)
        if expected == "error":
            assert isinstance(got, str) and "is not on the expected device" in got, combo
        else:
            assert got[0] == expected, combo


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_meta_meets_cpu_against_pytorch(name):
    torch = pytest.importorskip("torch")
    fn, shapes, _ = PAIRS[name]
    theirs = getattr(torch, fn.__name__, None) if fn.__name__ != "<lambda>" else None
    if fn is F.linear:
        theirs = torch.nn.functional.linear
    if theirs is None:
        theirs = {"add": lambda a, b: a + b, "mul_broadcast": lambda a, b: a * b}[name]
    for devices in [("meta", "cpu"), ("cpu", "meta")]:
        ours = _outcome(symgrad, fn, shapes, devices)
        assert ours == _outcome(torch, theirs, shapes, devices)


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_products_meta_meets_cpu_against_pytorch(name):
    torch = pytest.importorskip("torch")
    fn, shapes = FUSED[name]
    theirs = {"addmm_row": torch.addmm, "linear_bias": torch.nn.functional.linear}.get(name)
    theirs = theirs or getattr(torch, name)
    for combo in itertools.product(["meta", "cpu"], repeat=3):
        if len(set(combo)) == 2:
            assert _outcome(symgrad, fn, shapes, combo) == _outcome(torch, theirs, shapes, combo)


# name -> (function, operand shapes, devices (M meta, C cpu), which require grad, PyTorch's
# error at backward time or None)
BACKWARD = {
    "mm_cpu_meta": (
        "mm",
        [(2, 3), (3, 4)],
        "CM",
        "TT",
        "Function MmBackward0 returned an invalid gradient at index 1 - expected device meta "
        "but got cpu",
    ),
    "mm_meta_cpu": (
        "mm",
        [(2, 3), (3, 4)],
        "MC",
        "TT",
        "Function MmBackward0 returned an invalid gradient at index 1 - expected device cpu "
        "but got meta",
    ),
    "mm_meta_cpu_constant": ("mm", [(2, 3), (3, 4)], "MC", "TF", None),
    "mm_cpu_meta_constant": ("mm", [(2, 3), (3, 4)], "CM", "TF", None),
    "bmm_meta_cpu": (
        "bmm",
        [(2, 2, 3), (2, 3, 4)],
        "MC",
        "TT",
        "Function BmmBackward0 returned an invalid gradient at index 0 - expected device meta "
        "but got cpu",
    ),
    "baddbmm_meta_input": (
        "baddbmm",
        [(2, 2, 4), (2, 2, 3), (2, 3, 4)],
        "MCM",
        "TTT",
        "Function BaddbmmBackward0 returned an invalid gradient at index 1 - expected device "
        "cpu but got meta",
    ),
}


def _backward(T, name):
    fn, shapes, devices, grads, _ = BACKWARD[name]
    xs = [
        (T.empty(*s, device="meta") if d == "M" else T.ones(*s)).requires_grad_(g == "T")
        for s, d, g in zip(shapes, devices, grads)
    ]
    out = getattr(T, fn)(*xs)
    try:
        out.sum().backward()
    except RuntimeError as e:
        return str(e)
    return [None if x.grad is None else x.grad.device.type for x in xs]


@pytest.mark.parametrize("name", sorted(BACKWARD))
def test_backward_where_meta_met_cpu(name):
    _, _, devices, _, expected = BACKWARD[name]
    got = _backward(symgrad, name)
    first = "meta" if devices[0] == "M" else "cpu"
    assert got == expected if expected else got == [first, None]


@pytest.mark.parametrize("name", sorted(BACKWARD))
def test_backward_where_meta_met_cpu_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert _backward(symgrad, name) == _backward(torch, name)
