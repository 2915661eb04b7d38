"""The sweep's cases: every op of the op table, fed unusual inputs, checked three ways.

An op of :data:`ops.op_db.OP_DB` (plus a call for each element-wise primitive of the registry
that the table does not reach) is run on each input *kind*:

``0d``        every input a 0-d tensor;
``empty``     every input of shape ``(0,)`` (0-d inputs stay 0-d);
``empty2d``   every input of shape ``(2, 0)``;
``size1``     every input of its table shape with every size 1 (``(2, 3)`` becomes ``(1, 1)``);
``noncontig`` the table shapes, each input a non-contiguous leaf (a transpose of a 2-d tensor,
              a step slice of a bigger one otherwise);
``view``      the table shapes, each input a view of a bigger leaf (``leaf.t()`` in 2-d,
              ``leaf[1:]`` otherwise, ``leaf[1]`` for 0-d) that receives the gradient;

and the element-wise subset again in float32 (kinds ``size1_f32``, ``noncontig_f32``,
``view_f32``). Each (op, kind) pair gives three cases, ``op-kind-check``:

``forward``   the outputs' values, dtypes and shapes;
``grad``      the leaves' ``.grad`` after ``backward`` with a fixed seeded gradient;
``gradgrad``  the first gradients' ``requires_grad`` after ``grad(create_graph=True)``, then the
              gradient of their seeded projection.

Values are drawn in each input's domain from generators seeded by the case name, so the list is
the same on every run. :func:`run` executes one (op, kind) pair with ``T`` either ``symgrad`` or
``torch`` and returns plain data (see :mod:`sweep.encoding`); an exception is recorded by type
name and the step that raised it.
"""

from __future__ import annotations

import warnings
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from ops.op_db import ARITHMETIC, DOMAINS, ELEMENTWISE, OP_DB, OpInfo, arg
from ops.op_db_functional import ACTIVATIONS

from symgrad.prim.domains import KINDS as _SAMPLERS

from .encoding import encode_tensor

CHECKS = ("forward", "grad", "gradgrad")
SHAPE_KINDS = ("0d", "empty", "empty2d", "size1")
LAYOUT_KINDS = ("noncontig", "view")
F32_KINDS = ("size1_f32", "noncontig_f32", "view_f32")


def _rounding_op(name: str, fn) -> OpInfo:
    return OpInfo(name, fn, (arg(2, 3, kind="between_steps"),))


# the registry's primitives that no entry of the op table calls, each with a public call
ROUNDING = [
    _rounding_op("floor", lambda T, x: T.floor(x)),
    _rounding_op("ceil", lambda T, x: x.ceil()),
    _rounding_op("round", lambda T, x: T.round(x)),
    _rounding_op("round_decimals", lambda T, x: x.round(decimals=1)),
    _rounding_op("trunc", lambda T, x: T.trunc(x)),
    _rounding_op("frac", lambda T, x: T.frac(x)),
]

# hardsigmoid's gradient uses float32's 1/6 in PyTorch: within the sweep's tolerance, not the
# op table's (whose entry is not compared with PyTorch)
SWEEP_ONLY = [
    OpInfo("hardsigmoid", lambda T, x: T.nn.functional.hardsigmoid(x * 2.6 + 0.05), (arg(2, 4),))
]

# registry primitive -> an op of the sweep that records it (a test checks none is missing)
REGISTRY_OPS = {
    "add": "add",
    "add_scaled": "add_alpha",
    "sub": "sub",
    "sub_scaled": "sub_alpha",
    "rsub": "rsub_scalar",
    "rsub_tensor": "rsub",
    "rsub_number": "rsub_number",
    "sub_number": "subtract_number",
    "soft_margin": "soft_margin_loss_mean",
    "mul": "mul",
    "div": "div",
    "neg": "neg",
    "pow": "pow_sqrt",
    "pow_scalar_base": "pow_scalar_base",
    "pow_tensor": "pow_tensor",
    "reciprocal": "reciprocal",
    "square": "square",
    "exp": "exp",
    "expm1": "expm1",
    "log": "log",
    "log1p": "log1p",
    "sqrt": "sqrt",
    "rsqrt": "rsqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "tanh": "tanh",
    "erf": "erf",
    "abs": "abs",
    "sign": "sign",
    "relu": "relu",
    "leaky_relu": "leaky_relu",
    "elu": "elu",
    "clamp": "clamp",
    "clamp_min": "clamp_min",
    "clamp_max": "clamp_max",
    "maximum": "maximum",
    "minimum": "minimum",
    "fmax": "fmax",
    "fmin": "fmin",
    "logit_eps": "logit_eps",
    "special_xlog1py": "special_xlog1py",
    "special_entr": "special_entr",
    "special_log_ndtr": "special_log_ndtr",
    "special_ndtri": "special_ndtri",
    "where": "where",
    "sigmoid": "sigmoid",
    "softplus": "softplus_beta_threshold",
    "silu": "silu",
    "gelu": "gelu",
    "gelu_tanh": "gelu_tanh",
    "floor": "floor",
    "ceil": "ceil",
    "round": "round",
    "round_decimals": "round_decimals",
    "trunc": "trunc",
    "frac": "frac",
    "bce_with_logits": "bce_with_logits_weight_pos_weight_mean",
    "bce_with_logits_plain": "bce_with_logits_mean",
    "bce": "bce_mean",
    "squared_error": "mse_loss_mean",
    "selu": "selu",
    "celu": "celu",
    "selu_": "selu_inplace",
    "celu_": "celu_inplace",
    "elu_": "elu_inplace",
    # symgrad records the scaled elu in place only (F.elu_ with scale, input_scale)
    "scaled_elu": "elu_scaled_inplace",
    "scaled_elu_": "elu_scaled_inplace",
    "leaky_relu_": "leaky_relu_inplace",
    "mish": "mish",
    "hardtanh": "hardtanh",
    "threshold": "threshold",
    "threshold_": "threshold_inplace",
    "rrelu": "rrelu_eval",
    "rrelu_": "rrelu_eval_inplace",
    "rrelu_with_noise": "rrelu_train",
    "rrelu_with_noise_": "rrelu_train_inplace",
    "prelu": "prelu_toplevel",
    "hardswish": "hardswish",
    "hardsigmoid": "hardsigmoid",
    "logsigmoid": "logsigmoid",
    "softshrink": "softshrink",
    "hardshrink": "hardshrink",
    "smooth_l1": "smooth_l1_loss_mean",
    **{n: n for n in ("asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh")},
    **{n: n for n in ("exp2", "erfc", "erfinv", "lgamma", "digamma", "sinc", "deg2rad", "logit")},
    **{n: n for n in ("rad2deg", "atan2", "hypot", "logaddexp", "xlogy", "copysign", "lerp")},
    **{n: n for n in ("ldexp", "nextafter")},
    **{n: n for n in ("logaddexp2", "sgn", "angle")},
    "xlogy_number_other": "xlogy_number_other",
    "xlogy_number_self": "xlogy_number_self",
    "copysign_scalar": "copysign_number",
    "lerp_tensor": "lerp_tensor",
    "log2": "log2",
    "log10": "log10",
    "huber": "huber_loss_mean",
    "clamp_tensor": "clamp_tensor_bounds",
    **{n: n for n in ("clamp_tensor_min", "clamp_tensor_max")},
    **{n: n for n in ("clamp_min_tensor", "clamp_max_tensor", "addcmul", "addcdiv")},
}

OPS: list[OpInfo] = [op for op in OP_DB if op.torch] + ROUNDING + SWEEP_ONLY
OPS_BY_NAME = {op.name: op for op in OPS}
_F32_OPS = {op.name for op in ARITHMETIC + ELEMENTWISE + ROUNDING + ACTIVATIONS + SWEEP_ONLY}


@dataclass(frozen=True)
class Setup:
    """One op on one input kind: the unit that is run (its three checks come from one run)."""

    op: OpInfo
    kind: str

    @property
    def name(self) -> str:
        # "sum_dim(0, 2)" -> "sum_dim0_2": names without spaces, brackets or commas
        op = self.op.name.replace("(", "").replace(")", "").replace(", ", "_")
        return f"{op}-{self.kind}"

    @property
    def dtype(self) -> str:
        return "float32" if self.kind.endswith("_f32") else "float64"

    @property
    def layout(self) -> str:
        return self.kind.removesuffix("_f32")


def setups() -> list[Setup]:
    """Every (op, kind) pair of the sweep, in a fixed order."""
    result = []
    for op in OPS:
        kinds = SHAPE_KINDS + LAYOUT_KINDS + (F32_KINDS if op.name in _F32_OPS else ())
        result.extend(Setup(op, kind) for kind in kinds)
    return result


def case_names(setup: Setup) -> list[str]:
    return [f"{setup.name}-{check}" for check in CHECKS]


# -- the inputs ---------------------------------------------------------------------------------
def _shape(shape: tuple, layout: str) -> tuple:
    if layout == "0d" or not shape:
        return ()
    return {"empty": (0,), "empty2d": (2, 0), "size1": (1,) * len(shape)}.get(layout, shape)


def _sample(kind: str, rng: np.random.Generator, shape: tuple, position: int) -> np.ndarray:
    if kind == "zero" and int(np.prod(shape)) < 2:  # a lone element is the zero itself
        return np.zeros(shape)
    sampler = DOMAINS.get(kind) or (lambda r, s, p: _SAMPLERS[kind](r, s, p))
    return np.asarray(sampler(rng, shape, position), dtype=np.float64)


def _noncontig(T: Any, dtype: Any, values: np.ndarray) -> Any:
    """A non-contiguous leaf holding ``values``: a transpose (2-d) or a step slice."""
    if values.ndim == 2 and min(values.shape) > 1:
        base = T.tensor(np.ascontiguousarray(values.T), dtype=dtype)
        x = base.t()
    elif values.ndim >= 1:
        axis = max((k for k, n in enumerate(values.shape) if n > 1), default=values.ndim - 1)
        spread = np.repeat(values, 2, axis=axis)
        base = T.tensor(spread, dtype=dtype)
        x = base[(slice(None),) * axis + (slice(None, None, 2),)]
    else:
        x = T.tensor(values, dtype=dtype)
    return x.detach().requires_grad_(True)


def _view_of_leaf(T: Any, dtype: Any, values: np.ndarray, spare: np.ndarray) -> tuple:
    """``(leaf, view)``: the view holds ``values`` and the leaf gets the gradient."""
    if values.ndim == 2:
        leaf = T.tensor(np.ascontiguousarray(values.T), dtype=dtype, requires_grad=True)
        return leaf, leaf.t()
    if values.ndim == 0:
        leaf = T.tensor(np.stack([spare.reshape(-1)[0], values]), dtype=dtype, requires_grad=True)
        return leaf, leaf[1]
    data = np.concatenate([spare[:1], values], axis=0)
    leaf = T.tensor(data, dtype=dtype, requires_grad=True)
    return leaf, leaf[1:]


def inputs(T: Any, setup: Setup) -> tuple[list, list]:
    """``(leaves, op inputs)`` for ``setup`` built with ``T``, the same values every time."""
    rng = np.random.default_rng(zlib.crc32(setup.name.encode()))
    dtype = getattr(T, setup.dtype)
    leaves, xs = [], []
    for position, (shape, kind) in enumerate(setup.op.inputs):
        shape = _shape(shape, setup.layout)
        values = _sample(kind, rng, shape, position)
        if setup.layout == "noncontig":
            x = _noncontig(T, dtype, values)
            leaf = x
        elif setup.layout == "view":
            spare = _sample(kind, rng, shape if shape else (1,), position + 7)
            leaf, x = _view_of_leaf(T, dtype, values, spare)
        else:
            leaf = x = T.tensor(values, dtype=dtype, requires_grad=True)
        leaves.append(leaf)
        xs.append(x)
    return leaves, xs


# -- running one setup --------------------------------------------------------------------------
def _outputs(value: Any) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _seeded(T: Any, like: Any, salt: str) -> Any:
    rng = np.random.default_rng(zlib.crc32(salt.encode()))
    return T.tensor(rng.standard_normal(tuple(like.shape)), dtype=like.dtype)


def _grads(T: Any, setup: Setup, outs: list) -> tuple[list, list]:
    roots = [o for o in outs if o.requires_grad]
    seeds = [_seeded(T, o, f"{setup.name}-g{k}") for k, o in enumerate(roots)]
    return roots, seeds


def _first(T: Any, setup: Setup) -> list:
    leaves, xs = inputs(T, setup)
    roots, seeds = _grads(T, setup, _outputs(setup.op.fn(T, *xs)))
    if roots:
        T.autograd.backward(roots, seeds)
    return [encode_tensor(leaf.grad) for leaf in leaves]


def _second(T: Any, setup: Setup) -> dict:
    leaves, xs = inputs(T, setup)
    roots, seeds = _grads(T, setup, _outputs(setup.op.fn(T, *xs)))
    if not roots:
        return {"requires_grad": None, "grads": None}
    firsts = T.autograd.grad(roots, leaves, seeds, create_graph=True, allow_unused=True)
    flags = [None if g is None else bool(g.requires_grad) for g in firsts]
    terms = [
        (g * _seeded(T, g, f"{setup.name}-w{k}")).sum()
        for k, g in enumerate(firsts)
        if g is not None and g.requires_grad
    ]
    if not terms:
        return {"requires_grad": flags, "grads": None}
    seconds = T.autograd.grad(sum(terms[1:], terms[0]), leaves, allow_unused=True)
    return {"requires_grad": flags, "grads": [encode_tensor(g) for g in seconds]}


def _error(exc: BaseException, step: str) -> dict:
    # torch.linalg.LinAlgError is the class torch._C._LinAlgError: compared by its public name
    return {"error": type(exc).__name__.lstrip("_"), "at": step}


def run(T: Any, setup: Setup) -> dict:
    """``{case name: result}`` for the three checks of ``setup``, computed with ``T``."""
    names = dict(zip(CHECKS, case_names(setup)))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            _, xs = inputs(T, setup)
            outs = _outputs(setup.op.fn(T, *xs))
            forward = [encode_tensor(o) for o in outs]
        except Exception as exc:  # every check fails the same way
            return {name: _error(exc, "forward") for name in names.values()}
        result = {names["forward"]: forward}
        for check, step in (("grad", _first), ("gradgrad", _second)):
            try:
                result[names[check]] = step(T, setup)
            except Exception as exc:
                result[names[check]] = _error(exc, check)
    return result
