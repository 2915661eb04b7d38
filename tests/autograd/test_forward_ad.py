"""``symgrad.autograd.forward_ad``: levels, dual tensors and their errors, as PyTorch's.

Each scenario runs against a library ``T`` and its forward-AD module ``fw`` and gives an
outcome: a value turned into plain Python, or the exception's type and message. The expected
outcomes are written out here; when PyTorch is importable, its outcomes are compared too.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD


def _values(t):
    return None if t is None else np.asarray(t.detach().numpy()).tolist()


def _f64(T, data):
    return T.tensor(data, dtype=T.float64)


def make_dual_outside_a_level(T, fw):
    return fw.make_dual(_f64(T, [1.0]), _f64(T, [1.0]))


def unpack_outside_a_level(T, fw):
    primal, tangent = fw.unpack_dual(_f64(T, [1.0]))
    return _values(primal), tangent


def nested_levels(T, fw):
    with fw.dual_level():
        fw.enter_dual_level()


def level_index(T, fw):
    with fw.dual_level() as level:
        return level


def exit_without_a_level(T, fw):
    fw.exit_dual_level()


def exit_level_zero_without_a_level(T, fw):
    fw.exit_dual_level(level=0)


def exit_the_wrong_level(T, fw):
    fw.enter_dual_level()
    try:
        fw.exit_dual_level(level=1)
    finally:
        fw.exit_dual_level()


def make_dual_with_a_level_never_entered(T, fw):
    fw.make_dual(_f64(T, [1.0]), _f64(T, [1.0]), level=0)


def make_dual_with_a_wrong_level(T, fw):
    with fw.dual_level():
        fw.make_dual(_f64(T, [1.0]), _f64(T, [1.0]), level=1)


def unpack_with_a_wrong_level(T, fw):
    with fw.dual_level():
        plain = fw.unpack_dual(_f64(T, [1.0]), level=1).tangent  # no tangent: no check
        fw.unpack_dual(
            fw.make_dual(_f64(T, [1.0]), _f64(T, [1.0])), level=1 if plain is None else 0
        )


def tangent_of_another_size(T, fw):
    with fw.dual_level():
        fw.make_dual(_f64(T, [1.0, 2.0, 3.0]), _f64(T, [1.0, 2.0]))


def integer_primal(T, fw):
    with fw.dual_level():
        fw.make_dual(T.tensor([1, 2]), _f64(T, [1.0, 2.0]))


def integer_tangent(T, fw):
    with fw.dual_level():
        fw.make_dual(_f64(T, [1.0, 2.0]), T.tensor([1, 2]))


def dual_of_a_dual(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0]), _f64(T, [1.0]))
        fw.make_dual(d, _f64(T, [2.0]))


def unpacked_fields(T, fw):
    with fw.dual_level():
        v = _f64(T, [1.0, 0.5])
        unpacked = fw.unpack_dual(fw.make_dual(_f64(T, [3.0, 4.0]), v))
        return (
            type(unpacked).__name__,
            unpacked._fields,
            _values(unpacked.primal),
            unpacked.tangent is v,
        )


def tangents_dropped_on_exit(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0]), _f64(T, [1.0]))
    return fw.unpack_dual(d).tangent, fw.unpack_dual(d * 2).tangent


def chain_of_ops(T, fw):
    with fw.dual_level():
        x = fw.make_dual(_f64(T, [0.5, -1.0, 2.0]), _f64(T, [1.0, 2.0, -1.0]))
        y = (x.sin() * x.exp()).sum(0, keepdim=True) / (1 + x**2)
        y = y + x.tanh().flip(0)[:3] @ x.reshape(3, 1)
        return _values(fw.unpack_dual(y).tangent)


def under_no_grad(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0]), _f64(T, [1.0, 1.0]))
        with T.no_grad():
            return _values(fw.unpack_dual(d * d).tangent)


def under_inference_mode(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0]), _f64(T, [1.0, 1.0]))
        with T.inference_mode():
            return fw.unpack_dual(d * d).tangent


def detach_drops_the_tangent(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0]), _f64(T, [1.0, 1.0]))
        return fw.unpack_dual(d.detach()).tangent, fw.unpack_dual(d.data).tangent


def integer_outputs_have_none(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 3.0, 2.0]), _f64(T, [1.0, 1.0, 1.0]))
        values, indices = d.max(0)
        return (
            fw.unpack_dual(d.argmax()).tangent,
            fw.unpack_dual(d > 1).tangent,
            _values(fw.unpack_dual(values).tangent),
            fw.unpack_dual(indices).tangent,
        )


def pieces_of_unbind(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [[1.0, 2.0], [3.0, 4.0]]), _f64(T, [[1.0, 2.0], [3.0, 4.0]]))
        return [_values(fw.unpack_dual(p).tangent) for p in d.unbind(1)]


def in_place_on_a_dual_clone(T, fw):
    with fw.dual_level():
        y = fw.make_dual(_f64(T, [1.0, 2.0, 3.0]), _f64(T, [1.0, 0.5, 0.25])).clone()
        y.mul_(3)
        y[0] = 5.0
        return _values(y), _values(fw.unpack_dual(y).tangent)


def in_place_writes_into_the_given_tangent(T, fw):
    """An in-place op on a dual updates its tangent in place: the tensor given to make_dual
    (and a view of it) sees the change, and stays the dual's tangent."""
    t = _f64(T, [1.0, 0.0, -1.0])
    view = t[1:]
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0, 3.0]), t)
        d.mul_(2)
        d.sin_()
        d[0] = 1.0
        same = fw.unpack_dual(d).tangent is t
        seen = _values(view)
        t.zero_()
        zeroed = _values(fw.unpack_dual(d).tangent)
    return seen, same, zeroed


def in_place_on_a_view_of_a_dual_clone(T, fw):
    t = _f64(T, [1.0, 0.0, -1.0])
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0, 3.0]), t).clone()
        v = d[1:]
        v.mul_(3)
        return _values(t), _values(fw.unpack_dual(d).tangent), _values(fw.unpack_dual(v).tangent)


def in_place_of_a_dual_into_a_plain(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0]), _f64(T, [1.0, 0.5]))
        z = _f64(T, [1.0, 1.0])
        z.add_(d)
        w = _f64(T, [0.0, 0.0])
        w.copy_(d * 2)
        return _values(fw.unpack_dual(z).tangent), _values(fw.unpack_dual(w).tangent)


def zero_and_fill_overwrite_the_tangent(T, fw):
    with fw.dual_level():
        a = fw.make_dual(_f64(T, [1.0, 2.0]), _f64(T, [1.0, 0.5])).clone()
        b = a.clone()
        a.zero_()
        b.fill_(3.0)
        return _values(fw.unpack_dual(a).tangent), _values(fw.unpack_dual(b).tangent)


def out_argument_with_a_tangent(T, fw):
    with fw.dual_level():
        d = fw.make_dual(_f64(T, [1.0, 2.0]), _f64(T, [1.0, 1.0]))
        T.mul(d, 3, out=_f64(T, [0.0, 0.0]))


def out_tensor_with_a_tangent(T, fw):
    with fw.dual_level():
        out = fw.make_dual(_f64(T, [0.0, 0.0]), _f64(T, [1.0, 1.0]))
        T.mul(_f64(T, [1.0, 2.0]), 3, out=out)


def repr_of_duals(T, fw):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with fw.dual_level():
        return (
            repr(fw.make_dual(x, T.ones(2))),
            repr(fw.make_dual(T.tensor(1.0), T.tensor(2.0))),
        )


def _outcome(scenario, T, fw):
    try:
        return ("ok", scenario(T, fw))
    except Exception as exc:  # the outcome compared is the exception itself
        return (type(exc).__name__, str(exc))


NO_LEVEL = (
    "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
    "enter_dual_level() first."
)
NOT_LAST = (
    "Trying to exit a forward AD level that was not the last one that was created. This is "
    "not supported."
)
SIZE = (
    "Trying to set a forward gradient that has a different size than that of the original "
    "Tensor, this is not supported. Tensor is of size [3] while the given forward gradient is "
    "of size [2]."
)
INVALID_INDEX = (
    "Trying to access a forward AD level with an invalid index. This index was either not "
    "created or is already deleted."
)
OUT = (
    "Trying to use forward AD with mul_out that does not support it because it is an out= function"
)
EXPECTED = {
    make_dual_outside_a_level: ("RuntimeError", NO_LEVEL),
    unpack_outside_a_level: ("ok", ([1.0], None)),
    nested_levels: ("RuntimeError", "Nested forward mode AD is not supported at the moment"),
    level_index: ("ok", 0),
    exit_without_a_level: ("RuntimeError", "Dual level must be a positive number."),
    exit_level_zero_without_a_level: ("RuntimeError", NOT_LAST),
    exit_the_wrong_level: ("RuntimeError", NOT_LAST),
    make_dual_with_a_level_never_entered: ("RuntimeError", INVALID_INDEX),
    make_dual_with_a_wrong_level: ("RuntimeError", "Invalid level given to _make_dual"),
    unpack_with_a_wrong_level: ("RuntimeError", "Invalid level given to _fw_primal"),
    tangent_of_another_size: ("RuntimeError", SIZE),
    integer_primal: ("ValueError", "Expected primal to be floating point or complex, but got: "),
    integer_tangent: ("ValueError", "Expected tangent to be floating point or complex, but got: "),
    dual_of_a_dual: (
        "RuntimeError",
        "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
        "same level 0 is not supported.",
    ),
    unpacked_fields: ("ok", ("UnpackedDualTensor", ("primal", "tangent"), [3.0, 4.0], True)),
    tangents_dropped_on_exit: ("ok", (None, None)),
    chain_of_ops: (
        "ok",
        [-6.2340244480949085, 6.061983992367997, 0.502664748458797],
    ),
    under_no_grad: ("ok", [2.0, 4.0]),
    under_inference_mode: ("ok", None),
    detach_drops_the_tangent: ("ok", (None, None)),
    integer_outputs_have_none: ("ok", (None, None, 1.0, None)),
    pieces_of_unbind: ("ok", [[1.0, 3.0], [2.0, 4.0]]),
    in_place_on_a_dual_clone: ("ok", ([5.0, 6.0, 9.0], [0.0, 1.5, 0.75])),
    in_place_writes_into_the_given_tangent: (
        "ok",
        ([-0.0, -1.920340573300732], True, [0.0, 0.0, 0.0]),
    ),
    in_place_on_a_view_of_a_dual_clone: (
        "ok",
        ([1.0, 0.0, -1.0], [1.0, 0.0, -3.0], [0.0, -3.0]),
    ),
    in_place_of_a_dual_into_a_plain: ("ok", ([1.0, 0.5], [2.0, 1.0])),
    zero_and_fill_overwrite_the_tangent: ("ok", ([0.0, 0.0], [0.0, 0.0])),
    out_argument_with_a_tangent: ("NotImplementedError", OUT),
    out_tensor_with_a_tangent: ("NotImplementedError", OUT),
    repr_of_duals: (
        "ok",
        (
            "tensor([1., 2.], grad_fn=<ViewBackward0>, tangent=tensor([1., 1.]))",
            "tensor(1., tangent=2.0)",
        ),
    ),
}
SCENARIOS = list(EXPECTED)


def _check(outcome, expected, library):
    """The same outcome: the exception type and message (its start, where the message ends
    with the library's own dtype name), or equal values (lists of floats within 1e-12)."""
    kind, value = outcome
    assert kind == expected[0], (library, outcome)
    if kind != "ok":
        assert value.startswith(expected[1]), (library, value)
    elif isinstance(value, list) and all(isinstance(v, float) for v in value):
        assert value == pytest.approx(expected[1], rel=1e-12), (library, value)
    else:
        assert value == expected[1], (library, value)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_symgrad(scenario):
    outcome = _outcome(scenario, symgrad, fwAD)
    if scenario is repr_of_duals and outcome[0] == "ok":
        outcome = ("ok", tuple(r.replace("symgrad.", "torch.") for r in outcome[1]))
    _check(outcome, EXPECTED[scenario], "symgrad")
    assert symgrad.autograd.dual.STATE.level is None  # every scenario leaves its level


@pytest.mark.torch
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_pytorch(scenario):
    torch = pytest.importorskip("torch")
    fw = importlib.import_module("torch.autograd.forward_ad")
    _check(_outcome(scenario, torch, fw), EXPECTED[scenario], "torch")


def test_an_op_without_a_forward_rule_names_itself():
    """An op whose tangent can't be computed raises PyTorch's NotImplementedError naming it."""
    from symgrad.prim.structural import Structural

    def no_vjp(xp, g, ctx):
        raise NotImplementedError("twice has no backward rule")

    twice = Structural("twice", lambda xp, a: a * 2, no_vjp)
    with fwAD.dual_level():
        d = fwAD.make_dual(symgrad.ones(2), symgrad.ones(2))
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with twice that"):
            twice(d)
        assert twice(symgrad.ones(2)).tolist() == [2.0, 2.0]  # no tangent: no rule needed
