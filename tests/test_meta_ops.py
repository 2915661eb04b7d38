"""Every op of the op table on meta tensors: the CPU result's shapes, dtypes and node names
with no values, meta gradients, and PyTorch's meta results where it is installed."""

import warnings

import pytest

import symgrad

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from ops.op_db import OP_DB
except ImportError:  # tests/ made a package itself
    from tests.ops.op_db import OP_DB

# ops whose result's shape depends on the values (PyTorch raises NotImplementedError too)
DATA_DEPENDENT = {"index_data_mask", "masked_select"}
# a meta tensor written into a CPU constant: PyTorch's "Cannot copy out of meta tensor"
COPIES_OUT = {"setitem_into_constant"}
# PyTorch's own implementation reads values here (variances checked for negative entries)
READS_VALUES = {
    "gaussian_nll_loss_mean",
    "gaussian_nll_loss_sum",
    "gaussian_nll_loss_none",
    "gaussian_nll_loss_full_homoscedastic",
}
# PyTorch accepts these CPU constants beside meta tensors; symgrad raises its device error
CPU_CONSTANTS_ACCEPTED_BY_PYTORCH = {"index_put_function_inplace"}


def _run(T, op, inputs):
    """(outputs as (shape, dtype name, device, node name), gradients as (shape, device)), or
    the exception raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = op.fn(T, *inputs)
        except Exception as exc:  # the expectations say which
            return exc
        outs = out if isinstance(out, (tuple, list)) else (out,)
        described = [
            (
                tuple(o.shape),
                str(o.dtype).rsplit(".", 1)[-1],
                o.device.type,
                type(o.grad_fn).__name__ if o.grad_fn is not None else None,
            )
            for o in outs
        ]
        floating = [o.sum() for o in outs if o.requires_grad and o.dtype.is_floating_point]
        if floating:
            try:
                sum(floating).backward()
            except Exception as exc:
                return exc
        grads = [
            None if x.grad is None else (tuple(x.grad.shape), x.grad.device.type) for x in inputs
        ]
        return described, grads


def _meta_inputs(T, op):
    return [T.empty(s, dtype=T.float64, device="meta", requires_grad=True) for s, _ in op.inputs]


@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_op_on_meta_tensors_is_the_cpu_result_without_values(op):
    cpu = _run(symgrad, op, [symgrad.tensor(v, requires_grad=True) for v in op.sample()])
    if isinstance(cpu, Exception):
        pytest.skip(f"raises on the CPU: {cpu!r:.80}")
    got = _run(symgrad, op, _meta_inputs(symgrad, op))
    if op.name in DATA_DEPENDENT:
        assert isinstance(got, NotImplementedError) and "depends on the values" in str(got)
        return
    if op.name in READS_VALUES:
        assert isinstance(got, RuntimeError) and "cannot be called on meta tensors" in str(got)
        return
    if op.name in COPIES_OUT:
        assert isinstance(got, NotImplementedError) and "no data" in str(got)
        return
    if isinstance(got, RuntimeError) and "is not on the expected device" in str(got):
        return  # the op builds CPU constants (PyTorch raises too, see the cross-check)
    assert not isinstance(got, Exception), repr(got)
    outs, grads = cpu
    assert got[0] == [(s, d, "meta", name) for s, d, _, name in outs]
    assert got[1] == [None if g is None else (g[0], "meta") for g in grads]


TORCH_OPS = [op for op in OP_DB if op.torch]


@pytest.mark.parametrize("op", TORCH_OPS, ids=[op.name for op in TORCH_OPS])
def test_op_on_meta_tensors_agrees_with_pytorch(op):
    torch = pytest.importorskip("torch")
    expected = _run(torch, op, _meta_inputs(torch, op))
    got = _run(symgrad, op, _meta_inputs(symgrad, op))
    if op.name in CPU_CONSTANTS_ACCEPTED_BY_PYTORCH:
        assert isinstance(got, RuntimeError)
        return
    if isinstance(expected, Exception):
        if isinstance(got, RuntimeError) and "is not on the expected device" in str(got):
            return  # the op's CPU constants: PyTorch raises as well, maybe earlier
        if isinstance(got, Exception):
            assert type(got).__name__ == type(expected).__name__, (got, expected)
        else:  # PyTorch has no meta kernel, or refuses CPU indices symgrad reads as numbers
            assert isinstance(expected, (NotImplementedError, RuntimeError)), expected
            assert all(device == "meta" for _, _, device, _ in got[0])
        return
    assert not isinstance(got, Exception), repr(got)
    assert [o[:3] for o in got[0]] == [o[:3] for o in expected[0]]
    if not isinstance(expected[1], Exception) and expected[1] is not None:
        assert got[1] == expected[1]
