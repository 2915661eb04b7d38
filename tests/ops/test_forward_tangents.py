"""Every op in the op table in forward mode: tangents against finite differences, against the
reverse mode (``<J t, u> = <t, J^T u>``), and against PyTorch's forward mode when importable.

Each op gets random tangents on all its inputs; the tangent of each floating output is
compared with central differences of the op along those tangents, and its inner product with a
random ``u`` with the inner product of the tangents with the VJP of ``u``.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD
from symgrad.autograd import grad

from .op_db import OP_DB

H = 1e-6
RTOL, ATOL = 1e-5, 1e-6


def _outputs(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _rng(op, salt: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32((op.name + salt).encode()))


def _tangents(op, arrays) -> list[np.ndarray]:
    rng = _rng(op, "t")
    return [rng.standard_normal(np.shape(x)) for x in arrays]


def _f64(a) -> symgrad.Tensor:
    return symgrad.tensor(np.asarray(a), dtype=symgrad.float64)


def _floating(outs) -> list[int]:
    return [k for k, o in enumerate(outs) if o.dtype.is_floating_point]


def forward_tangents(T, fw, op, arrays, tangents, requires_grad=False):
    """The op's outputs and their tangents (zeros where none) when every input carries its
    tangent, in library ``T`` with its forward-AD module ``fw``."""
    with fw.dual_level():
        xs = [T.tensor(x, dtype=T.float64, requires_grad=requires_grad) for x in arrays]
        duals = [fw.make_dual(x, T.tensor(t, dtype=T.float64)) for x, t in zip(xs, tangents)]
        outs = _outputs(op.fn(T, *duals))
        found = []
        for o in outs:
            t = fw.unpack_dual(o).tangent
            if not o.dtype.is_floating_point:
                assert t is None, f"{op.name}: a tangent on a non-floating output"
                found.append(None)
            else:
                zero = t is None or getattr(t, "_is_zerotensor", lambda: False)()
                found.append(np.zeros(tuple(o.shape)) if zero else t.detach().numpy())
    return outs, found


def _evaluate(op, arrays) -> tuple:
    with symgrad.no_grad():
        return tuple(o.numpy() for o in _outputs(op.fn(symgrad, *(_f64(x) for x in arrays))))


# ops PyTorch has no forward-mode rule for: a tangent reaching one raises its NotImplementedError
REFUSED = "no_torch_forward_ad"
_REFUSAL = "Trying to use forward AD with "


def _refuses(op, run) -> bool:
    """For an op tagged :data:`REFUSED`: check that ``run()`` raises PyTorch's error."""
    if REFUSED not in op.tags:
        return False
    with pytest.raises(NotImplementedError, match=_REFUSAL):
        run()
    return True


def central_differences(op, arrays, tangents) -> tuple:
    up = _evaluate(op, [x + H * t for x, t in zip(arrays, tangents)])
    down = _evaluate(op, [x - H * t for x, t in zip(arrays, tangents)])
    return tuple((u - d) / (2 * H) for u, d in zip(up, down))


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_tangents_match_finite_differences(op, requires_grad):
    arrays = op.sample()
    tangents = _tangents(op, arrays)
    if _refuses(op, lambda: forward_tangents(symgrad, fwAD, op, arrays, tangents, requires_grad)):
        return
    outs, found = forward_tangents(symgrad, fwAD, op, arrays, tangents, requires_grad)
    expected = central_differences(op, arrays, tangents)
    for k in _floating(outs):
        np.testing.assert_allclose(
            found[k], expected[k], rtol=RTOL, atol=ATOL, err_msg=f"{op.name} output {k}"
        )


@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_tangents_are_the_transpose_of_gradients(op):
    """``<J t, u> = <t, J^T u>``: the forward rule and the backward rule are one Jacobian."""
    arrays = op.sample()
    tangents = _tangents(op, arrays)
    if _refuses(op, lambda: forward_tangents(symgrad, fwAD, op, arrays, tangents)):
        return
    outs, found = forward_tangents(symgrad, fwAD, op, arrays, tangents)
    live = _floating(outs)
    rng = _rng(op, "u")
    us = {k: rng.standard_normal(tuple(outs[k].shape)) for k in live}
    forward = sum(float(np.sum(found[k] * us[k])) for k in live)
    xs = [symgrad.tensor(x, dtype=symgrad.float64, requires_grad=True) for x in arrays]
    outs = _outputs(op.fn(symgrad, *xs))
    roots = [k for k in live if outs[k].requires_grad]
    backward = 0.0
    if roots:
        grads = grad(
            [outs[k] for k in roots],
            xs,
            [_f64(us[k]) for k in roots],
            allow_unused=True,
        )
        backward = sum(
            float(np.sum(g.numpy() * t)) for g, t in zip(grads, tangents) if g is not None
        )
    assert forward == pytest.approx(backward, rel=1e-9, abs=1e-9), op.name


def _vjp_values(op, arrays, us, tangents=None):
    """``J^T u`` at ``arrays`` (zeros where unused), with, when ``tangents`` are given, the
    tangents those gradients carry when the inputs carry ``tangents`` (forward-over-reverse)."""
    xs = [symgrad.tensor(x, dtype=symgrad.float64, requires_grad=True) for x in arrays]
    with fwAD.dual_level():
        args = (
            xs if tangents is None else [fwAD.make_dual(x, _f64(t)) for x, t in zip(xs, tangents)]
        )
        outs = _outputs(op.fn(symgrad, *args))
        roots = [k for k in us if outs[k].requires_grad]
        if not roots:
            return None
        grads = grad(
            [outs[k] for k in roots],
            xs,
            [_f64(us[k]) for k in roots],
            create_graph=True,
            allow_unused=True,
        )
        values, carried = [], []
        for g, x in zip(grads, arrays):
            values.append(np.zeros(np.shape(x)) if g is None else g.detach().numpy())
            t = None if g is None else fwAD.unpack_dual(g).tangent
            carried.append(np.zeros(np.shape(x)) if t is None else t.detach().numpy())
    return values, carried


@pytest.mark.parametrize("op", OP_DB, ids=[op.name for op in OP_DB])
def test_gradients_carry_tangents(op):
    """Forward-over-reverse: the tangent of ``J^T u`` is its derivative along the inputs'
    tangents (central differences of the gradient)."""
    arrays = op.sample()
    tangents = _tangents(op, arrays)
    rng = _rng(op, "u")
    outs = _evaluate(op, arrays)
    us = {k: rng.standard_normal(np.shape(o)) for k, o in enumerate(outs) if o.dtype.kind == "f"}
    if _refuses(op, lambda: _vjp_values(op, arrays, us, tangents)):
        return
    if "no_double_backward" in op.tags:  # PyTorch's error: its backward op has no tangent
        with pytest.raises(NotImplementedError, match="Trying to use forward AD"):
            _vjp_values(op, arrays, us, tangents)
        return
    found = _vjp_values(op, arrays, us, tangents)
    assert found is not None, f"{op.name}: no output requires grad"
    up = _vjp_values(op, [x + H * t for x, t in zip(arrays, tangents)], us)[0]
    down = _vjp_values(op, [x - H * t for x, t in zip(arrays, tangents)], us)[0]
    for i, (u, d, c) in enumerate(zip(up, down, found[1])):
        np.testing.assert_allclose(
            c, (u - d) / (2 * H), rtol=1e-4, atol=1e-5, err_msg=f"{op.name} input {i}"
        )


def test_the_table_is_covered():
    """The loop above runs over the whole table (a guard against an empty parametrization)."""
    assert len(OP_DB) > 200


# where PyTorch's forward mode gives no tangent or a poor one (see op_db_misc.py)
TORCH_OPS = [op for op in OP_DB if op.torch and "torch_tangent_differs" not in op.tags]


@pytest.mark.torch
@pytest.mark.parametrize("op", TORCH_OPS, ids=[op.name for op in TORCH_OPS])
def test_tangents_are_pytorchs(op):
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as torch_fw

    arrays = op.sample()
    tangents = _tangents(op, arrays)
    if REFUSED in op.tags:  # both refuse, naming the same ATen op
        messages = []
        for T, fw in ((symgrad, fwAD), (torch, torch_fw)):
            with pytest.raises(NotImplementedError, match=_REFUSAL) as info:
                forward_tangents(T, fw, op, arrays, tangents)
            messages.append(str(info.value).split(" that ")[0])
        assert messages[0] == messages[1]
        return
    outs, found = forward_tangents(symgrad, fwAD, op, arrays, tangents)
    _, wanted = forward_tangents(torch, torch_fw, op, arrays, tangents)
    for k in _floating(outs):
        np.testing.assert_allclose(
            found[k], wanted[k], rtol=1e-7, atol=1e-9, err_msg=f"{op.name} output {k}"
        )
