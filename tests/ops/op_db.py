"""How to call every public differentiable op: an OpInfo-style table of small samples.

Each entry calls an op through a module ``T`` that is either ``symgrad`` or ``torch``, so one
description drives the gradient checks (finite differences, double backward) and the optional
cross-check against PyTorch. Inputs are float64 arrays drawn from a per-op seeded generator, in
domains that keep a finite-difference step away from kinks, poles and ties.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from symgrad.prim.domains import KINDS

INF = float("inf")


# -- input domains: the kinds declared with the primitives (symgrad.prim.domains), by short name --
def _kind(name: str):
    return lambda rng, shape, position: KINDS[name](rng, shape, position)


def _with_zero(rng, shape, position):
    """Non-zero values except exactly one zero (prod's gradient there is the other factors)."""
    v = KINDS["nonzero"](rng, shape, 0)
    v.reshape(-1)[1] = 0.0
    return v


DOMAINS = {
    "any": _kind("any"),
    "pos": _kind("positive"),
    "away": _kind("nonzero"),
    "distinct": _kind("distinct"),
    "prob": _kind("unit"),
    "zero": _with_zero,
    "clamp": _kind("clear_of_bounds"),
    "open_unit": _kind("open_unit"),
    "above_one": _kind("above_one"),
}


@dataclass(frozen=True)
class OpInfo:
    """One way of calling an op.

    ``fn(T, *inputs)`` returns a tensor or a tuple of tensors; ``inputs`` are
    ``(shape, domain)`` pairs for the differentiable arguments (constants are built inside
    ``fn`` with ``T``). ``torch`` is False where PyTorch has no equivalent call.
    """

    name: str
    fn: Callable
    inputs: tuple
    torch: bool = True
    tags: tuple = field(default=())

    def sample(self) -> list[np.ndarray]:
        """The float64 inputs, the same on every run (seeded by the op's name)."""
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return [DOMAINS[kind](rng, shape, i) for i, (shape, kind) in enumerate(self.inputs)]


# PyTorch's backward op of the op has no derivative: a second backward pass raises
NO_DOUBLE_BACKWARD = "no_double_backward"
# the gradient is linear in the inputs, but PyTorch's backward op has no derivative by the
# incoming gradient: gradgradcheck, which differentiates by it, raises
NO_GRADGRADCHECK = "no_gradgradcheck"


def _op(name, fn, *inputs, **options):
    return OpInfo(name, fn, tuple(inputs), **options)


def arg(*shape, kind="any"):
    """An input of ``shape`` (any value in (-2, 2) unless ``kind`` says otherwise)."""
    return (tuple(shape), kind)


def f64(T, data):
    """A float64 constant built with whichever module ``T`` is."""
    return T.tensor(data, dtype=T.float64)


# -- arithmetic ------------------------------------------------------------------------------------
ARITHMETIC = [
    _op("add", lambda T, x, y: T.add(x, y), arg(2, 3), arg(3)),
    _op("add_operator_outer", lambda T, x, y: x + y, arg(3, 1), arg(1, 4)),
    _op("add_alpha", lambda T, x, y: T.add(x, y, alpha=2.5), arg(2, 3), arg(2, 1)),
    _op("add_scalar", lambda T, x: x + 1.5, arg(2, 3)),
    _op("radd_scalar", lambda T, x: 1.5 + x, arg(2, 3)),
    _op("add_method", lambda T, x, y: x.add(y), arg(4), arg(1)),
    _op("add_0d", lambda T, x, y: x + y, arg(), arg(2, 2)),
    _op("sub", lambda T, x, y: T.sub(x, y), arg(2, 3), arg(3)),
    _op("sub_operator", lambda T, x, y: x - y, arg(3, 1), arg(4)),
    _op("sub_alpha", lambda T, x, y: T.sub(x, y, alpha=0.5), arg(3), arg(3)),
    _op("rsub_scalar", lambda T, x: 3 - x, arg(2, 2)),
    _op("rsub", lambda T, x, y: T.rsub(x, y, alpha=2), arg(2, 3), arg(3)),
    _op("rsub_number", lambda T, x: T.rsub(x, 1.5, alpha=-0.5), arg(2, 3)),
    _op("sub_scalar", lambda T, x: x - 3, arg(2, 2)),
    _op("subtract_number", lambda T, x: T.subtract(x, 1.5, -0.5), arg(2, 3)),
    _op("mul", lambda T, x, y: T.mul(x, y), arg(2, 3), arg(3)),
    _op("mul_operator", lambda T, x, y: x * y, arg(2, 1, 3), arg(4, 1)),
    _op("mul_scalar", lambda T, x: x * 2.5, arg(3)),
    _op("rmul_scalar", lambda T, x: -2 * x, arg(3)),
    _op("mul_self", lambda T, x: x * x, arg(2, 3)),
    _op("div", lambda T, x, y: T.div(x, y), arg(2, 3), arg(3, kind="away")),
    _op("div_operator", lambda T, x, y: x / y, arg(3, 1), arg(1, 2, kind="away")),
    _op("div_scalar", lambda T, x: x / 4.0, arg(3)),
    _op("rdiv_scalar", lambda T, x: 2.0 / x, arg(2, 3, kind="away")),
    _op("remainder", lambda T, x, y: T.remainder(x, y), arg(2, 3), arg(3, kind="away")),
    _op("remainder_operator", lambda T, x, y: x % y, arg(3, 1), arg(1, 2, kind="away")),
    _op("remainder_scalar", lambda T, x: x % -0.7, arg(2, 3)),
    _op("fmod", lambda T, x, y: T.fmod(x, y), arg(2, 3), arg(3, kind="away")),
    _op("fmod_scalar", lambda T, x: T.fmod(x, 0.7), arg(2, 3)),
    _op("neg", lambda T, x: T.neg(x), arg(2, 3)),
    _op("neg_operator", lambda T, x: -x, arg(2, 3)),
    _op("pow_tensor", lambda T, x, y: T.pow(x, y), arg(2, 3, kind="pos"), arg(3)),
    _op("pow_operator", lambda T, x, y: x**y, arg(3, 1, kind="pos"), arg(1, 2)),
    _op("pow_square", lambda T, x: x**2, arg(2, 3)),
    _op("pow_cube_method", lambda T, x: x.pow(3), arg(2, 3)),
    _op("pow_sqrt", lambda T, x: x**0.5, arg(4, kind="pos")),
    _op("pow_negative", lambda T, x: x**-2, arg(4, kind="away")),
    _op("rpow_scalar", lambda T, x: 2**x, arg(2, 3)),
    _op("pow_scalar_base", lambda T, x: T.pow(1.5, x), arg(3)),
]

# -- element-wise functions ------------------------------------------------------------------------
_UNARY = {
    "exp": "any",
    "log": "pos",
    "log1p": "pos",
    "expm1": "any",
    "sqrt": "pos",
    "rsqrt": "pos",
    "abs": "away",
    "sign": "away",
    "sin": "any",
    "cos": "any",
    "tan": "away",
    "tanh": "any",
    "sigmoid": "any",
    "relu": "away",
    "erf": "any",
    "reciprocal": "away",
    "square": "any",
    "log2": "pos",
    "log10": "pos",
}


def _function(name):
    return lambda T, x: getattr(T, name)(x)


def _method(name):
    return lambda T, x: getattr(x, name)()


ELEMENTWISE = (
    [_op(n, _function(n), arg(2, 3, kind=k)) for n, k in _UNARY.items()]
    + [_op(f"{n}_method", _method(n), arg(3, kind=k)) for n, k in _UNARY.items()]
    + [
        _op("exp_0d", lambda T, x: T.exp(x), arg()),
        _op("abs_operator", lambda T, x: abs(x), arg(3, kind="away")),
        _op("leaky_relu", lambda T, x: T.nn.functional.leaky_relu(x, 0.2), arg(2, 3, kind="away")),
        _op("leaky_relu_default", lambda T, x: T.nn.functional.leaky_relu(x), arg(4, kind="away")),
        _op("elu", lambda T, x: T.nn.functional.elu(x, alpha=0.5), arg(2, 3, kind="away")),
        _op("softplus", lambda T, x: T.nn.functional.softplus(x), arg(2, 3)),
        _op(
            "softplus_beta_threshold",
            lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=1.5),
            arg(2, 3, kind="clamp"),
        ),
        _op("gelu", lambda T, x: T.nn.functional.gelu(x), arg(2, 3)),
        _op("gelu_tanh", lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), arg(2, 3)),
        _op("silu", lambda T, x: T.nn.functional.silu(x), arg(2, 3)),
        _op("clamp", lambda T, x: T.clamp(x, -0.5, 0.5), arg(2, 4, kind="clamp")),
        _op("clamp_min", lambda T, x: T.clamp(x, min=-0.5), arg(2, 4, kind="clamp")),
        _op("clamp_max", lambda T, x: x.clamp(max=0.5), arg(2, 4, kind="clamp")),
        _op("clamp_min_method", lambda T, x: x.clamp_min(0.5), arg(2, 4, kind="clamp")),
        _op("clip", lambda T, x: T.clip(x, -0.5, 0.5), arg(2, 4, kind="clamp")),
        # bounds in (-0.7, -0.5) and (0.5, 0.7): clear of the sampled values
        _op(
            "clamp_tensor_bounds",
            lambda T, x, lo, hi: T.clamp(x, min=0.05 * lo - 0.6, max=0.05 * hi + 0.6),
            arg(3, 4, kind="clamp"),
            arg(4),
            arg(3, 1),
        ),
        _op(
            "clamp_tensor_min",
            lambda T, x, lo: T.clamp(x, min=0.05 * lo - 0.6),
            arg(3, 4, kind="clamp"),
            arg(4),
        ),
        _op(
            "clamp_tensor_max",
            lambda T, x, hi: x.clamp(max=0.05 * hi + 0.6),
            arg(3, 4, kind="clamp"),
            arg(3, 1),
        ),
        _op(
            "clamp_min_tensor",
            lambda T, x, lo: T.clamp_min(x, 0.05 * lo - 0.6),
            arg(3, 4, kind="clamp"),
            arg(4),
        ),
        _op(
            "clamp_max_tensor",
            lambda T, x, hi: x.clamp_max(0.05 * hi + 0.6),
            arg(3, 4, kind="clamp"),
            arg(3, 1),
        ),
        _op(
            "maximum",
            lambda T, x, y: T.maximum(x, y),
            arg(3, 4, kind="distinct"),
            arg(4, kind="distinct"),
        ),
        _op(
            "minimum",
            lambda T, x, y: T.minimum(x, y),
            arg(3, 4, kind="distinct"),
            arg(4, kind="distinct"),
        ),
        _op(
            "max_binary",
            lambda T, x, y: T.max(x, y),
            arg(2, 3, kind="distinct"),
            arg(2, 3, kind="distinct"),
        ),
        _op(
            "min_binary",
            lambda T, x, y: T.min(x, y),
            arg(2, 3, kind="distinct"),
            arg(2, 3, kind="distinct"),
        ),
        _op("where", lambda T, x, y: T.where(x > 0, x, y), arg(2, 3, kind="away"), arg(3)),
        _op("where_scalar", lambda T, x: T.where(x > 0, x, 0.0), arg(2, 3, kind="away")),
        _op(
            "where_fixed_mask",
            lambda T, x, y: T.where(T.tensor([True, False, True]), x, y),
            arg(2, 3),
            arg(2, 1),
        ),
        _op(
            "masked_fill",
            lambda T, x: x.masked_fill(T.tensor([[True, False, False]]), 0.5),
            arg(2, 3),
        ),
    ]
)


# -- reductions ------------------------------------------------------------------------------------
def _reductions(name, dims, kind="any", shape=(2, 3, 4)):
    """``x.name()`` and ``T.name(x, dim, keepdim)`` for each ``dim`` given."""
    ops = [_op(f"{name}_all", lambda T, x: getattr(x, name)(), arg(*shape, kind=kind))]
    for dim in dims:
        for keepdim in (False, True):
            ops.append(
                _op(
                    f"{name}_dim{dim}{'_keepdim' if keepdim else ''}",
                    lambda T, x, d=dim, k=keepdim: getattr(T, name)(x, d, keepdim=k),
                    arg(*shape, kind=kind),
                )
            )
    return ops


_DIMS = (0, -1, (0, 2), (-1, -2))

REDUCTIONS = (
    _reductions("sum", _DIMS)
    + _reductions("mean", _DIMS)
    + _reductions("prod", (1, -1), kind="away")
    + _reductions("amax", _DIMS, kind="distinct")
    + _reductions("amin", _DIMS, kind="distinct")
    + _reductions("logsumexp", _DIMS)[1:]  # logsumexp needs a dim
    + [
        _op("sum_0d", lambda T, x: x.sum(), arg()),
        _op("sum_dim_kw", lambda T, x: x.sum(dim=1, keepdim=True), arg(3, 2)),
        _op("prod_all_with_zero", lambda T, x: x.prod(), arg(2, 3, kind="zero")),
        _op("prod_dim_with_zero", lambda T, x: T.prod(x, 1), arg(2, 3, kind="zero")),
        _op("max_all", lambda T, x: x.max(), arg(3, 4, kind="distinct")),
        _op("min_all", lambda T, x: T.min(x), arg(3, 4, kind="distinct")),
        _op("max_dim", lambda T, x: T.max(x, 1).values, arg(3, 4, kind="distinct")),
        _op(
            "max_dim_keepdim",
            lambda T, x: x.max(dim=-1, keepdim=True)[0],
            arg(2, 3, 4, kind="distinct"),
        ),
        _op("min_dim", lambda T, x: T.min(x, 0).values, arg(3, 4, kind="distinct")),
        _op(
            "min_dim_keepdim",
            lambda T, x: x.min(-2, keepdim=True).values,
            arg(2, 3, 4, kind="distinct"),
        ),
        _op("var_all", lambda T, x: x.var(), arg(3, 4)),
        _op("var_dim", lambda T, x: T.var(x, 1), arg(3, 4)),
        _op("var_biased", lambda T, x: x.var(-1, unbiased=False), arg(3, 4)),
        _op("var_correction", lambda T, x: x.var(0, correction=0, keepdim=True), arg(3, 4)),
        _op("var_tuple_keepdim", lambda T, x: x.var((0, 2), keepdim=True), arg(2, 3, 4)),
        _op("std_all", lambda T, x: x.std(), arg(3, 4)),
        _op("std_dim", lambda T, x: T.std(x, -1), arg(3, 4)),
        _op("std_biased_keepdim", lambda T, x: x.std(0, unbiased=False, keepdim=True), arg(3, 4)),
        _op("std_tuple", lambda T, x: x.std((1, 2)), arg(2, 3, 4)),
        _op("var_mean", lambda T, x: T.var_mean(x, 1), arg(3, 4)),
        _op("var_mean_all_biased", lambda T, x: T.var_mean(x, unbiased=False), arg(3, 4)),
        _op("std_mean_keepdim", lambda T, x: T.std_mean(x, (0, 2), keepdim=True), arg(2, 3, 4)),
        _op("std_mean_correction", lambda T, x: T.std_mean(x, -1, correction=0), arg(3, 4)),
        _op("aminmax", lambda T, x: T.aminmax(x), arg(3, 4, kind="distinct")),
        _op("aminmax_dim", lambda T, x: x.aminmax(dim=0, keepdim=True), arg(3, 4, kind="distinct")),
        _op("norm_all", lambda T, x: x.norm(), arg(3, 4)),
        _op("norm_dim", lambda T, x: T.norm(x, dim=1), arg(3, 4)),
        _op("norm_dim_keepdim", lambda T, x: x.norm(dim=(0, -1), keepdim=True), arg(2, 3, 4)),
        _op("norm_p1", lambda T, x: x.norm(p=1), arg(3, 4, kind="away")),
        _op("norm_p1_dim", lambda T, x: x.norm(p=1, dim=0), arg(3, 4, kind="away")),
        _op("norm_p3_dim", lambda T, x: x.norm(p=3, dim=-1), arg(3, 4, kind="away")),
        _op("norm_inf", lambda T, x: x.norm(p=INF), arg(3, 4, kind="distinct")),
        _op("norm_inf_dim", lambda T, x: x.norm(p=INF, dim=1), arg(3, 4, kind="distinct")),
    ]
)

# -- softmax family --------------------------------------------------------------------------------
SOFTMAX = [
    _op("softmax_dim0", lambda T, x: T.softmax(x, dim=0), arg(3, 4)),
    _op("softmax_method", lambda T, x: x.softmax(-1), arg(3, 4)),
    _op("softmax_3d", lambda T, x: T.nn.functional.softmax(x, dim=1), arg(2, 3, 4)),
    _op("softmax_1d", lambda T, x: T.softmax(x, 0), arg(5)),
    _op("log_softmax_dim0", lambda T, x: T.log_softmax(x, dim=0), arg(3, 4)),
    _op("log_softmax_method", lambda T, x: x.log_softmax(-1), arg(3, 4)),
    _op("log_softmax_3d", lambda T, x: T.nn.functional.log_softmax(x, dim=-2), arg(2, 3, 4)),
]

# -- matrix products -------------------------------------------------------------------------------
_MATMUL_SHAPES = {
    "1d_1d": ((3,), (3,)),
    "2d_1d": ((2, 3), (3,)),
    "1d_2d": ((3,), (3, 4)),
    "2d_2d": ((2, 3), (3, 4)),
    "3d_2d": ((2, 2, 3), (3, 4)),
    "2d_3d": ((2, 3), (2, 3, 4)),
    "1d_3d": ((3,), (2, 3, 4)),
    "3d_1d": ((2, 2, 3), (3,)),
    "3d_3d": ((2, 2, 3), (2, 3, 4)),
    "batch_broadcast": ((2, 1, 2, 3), (3, 3, 2)),
    "batch_broadcast_ones": ((1, 2, 3), (4, 3, 2)),
    "4d_1d": ((2, 1, 2, 3), (3,)),
}

LINALG = [
    _op(f"matmul_{k}", lambda T, x, y: T.matmul(x, y), arg(*s), arg(*u))
    for k, (s, u) in _MATMUL_SHAPES.items()
] + [
    _op("matmul_operator", lambda T, x, y: x @ y, arg(2, 3), arg(3, 2)),
    _op("matmul_method", lambda T, x, y: x.matmul(y), arg(2, 2, 3), arg(3)),
    _op("matmul_self", lambda T, x: x @ x, arg(3, 3)),
    _op("mm", lambda T, x, y: T.mm(x, y), arg(2, 3), arg(3, 4)),
    _op("mm_method", lambda T, x, y: x.mm(y), arg(3, 3), arg(3, 1)),
    _op("mv", lambda T, x, y: T.mv(x, y), arg(2, 3), arg(3)),
    _op("dot", lambda T, x, y: T.dot(x, y), arg(4), arg(4)),
    _op("dot_method", lambda T, x, y: x.dot(y), arg(3), arg(3)),
    _op("bmm", lambda T, x, y: T.bmm(x, y), arg(2, 2, 3), arg(2, 3, 4)),
    _op("outer", lambda T, x, y: T.outer(x, y), arg(3), arg(2)),
    _op("ger", lambda T, x, y: T.ger(x, y), arg(3), arg(2)),
    _op("vdot", lambda T, x, y: T.vdot(x, y), arg(4), arg(4)),
    _op("vdot_method", lambda T, x, y: x.vdot(y), arg(3), arg(3)),
]

# -- shape -----------------------------------------------------------------------------------------
SHAPE = [
    _op("reshape", lambda T, x: x.reshape(3, 4), arg(2, 3, 2)),
    _op("reshape_tuple_infer", lambda T, x: T.reshape(x, (-1, 2)), arg(2, 3, 2)),
    _op("reshape_to_0d", lambda T, x: x.reshape(()), arg(1, 1)),
    _op("view", lambda T, x: x.view(6, 2), arg(3, 4)),
    _op("view_infer", lambda T, x: x.view(-1), arg(3, 4)),
    _op("flatten", lambda T, x: x.flatten(), arg(2, 3, 2)),
    _op("flatten_start", lambda T, x: T.flatten(x, 1), arg(2, 3, 2)),
    _op("flatten_range", lambda T, x: x.flatten(0, 1), arg(2, 3, 2)),
    _op("transpose", lambda T, x: x.transpose(0, 2), arg(2, 3, 4)),
    _op("transpose_negative", lambda T, x: T.transpose(x, -1, -2), arg(2, 3, 4)),
    _op("permute", lambda T, x: x.permute(2, 0, 1), arg(2, 3, 4)),
    _op("permute_tuple", lambda T, x: T.permute(x, (1, 2, 0)), arg(2, 3, 4)),
    _op("t", lambda T, x: x.t(), arg(2, 3)),
    _op("t_function", lambda T, x: T.t(x), arg(3, 2)),
    _op("T_property", lambda T, x: x.T, arg(2, 3)),
    _op("mT_property", lambda T, x: x.mT, arg(2, 3, 4)),
    _op("squeeze_all", lambda T, x: x.squeeze(), arg(2, 1, 3, 1)),
    _op("squeeze_dim", lambda T, x: T.squeeze(x, 1), arg(2, 1, 3, 1)),
    _op("squeeze_negative", lambda T, x: x.squeeze(-1), arg(2, 1, 3, 1)),
    _op("squeeze_noop", lambda T, x: x.squeeze(0), arg(2, 1, 3, 1)),
    _op("unsqueeze", lambda T, x: x.unsqueeze(0), arg(2, 3)),
    _op("unsqueeze_negative", lambda T, x: T.unsqueeze(x, -1), arg(2, 3)),
    _op("unsqueeze_middle", lambda T, x: x.unsqueeze(1), arg(2, 3)),
    _op("expand", lambda T, x: x.expand(3, 2, 4), arg(2, 1)),
    _op("expand_keep", lambda T, x: x.expand(-1, 4), arg(3, 1)),
    _op("expand_0d", lambda T, x: x.expand(2, 3), arg()),
    _op("broadcast_to", lambda T, x: T.broadcast_to(x, (2, 3, 4)), arg(3, 1)),
    _op("expand_as", lambda T, x, y: x.expand_as(y) * y, arg(3, 1), arg(3, 4)),
    _op("cat", lambda T, x, y: T.cat([x, y]), arg(2, 3), arg(1, 3)),
    _op("cat_dim1", lambda T, x, y, z: T.cat((x, y, z), dim=1), arg(2, 1), arg(2, 3), arg(2, 2)),
    _op("cat_negative", lambda T, x, y: T.cat([x, y], -1), arg(2, 2, 3), arg(2, 2, 1)),
    _op("cat_same_twice", lambda T, x: T.cat([x, x], 0), arg(2, 3)),
    _op("stack", lambda T, x, y: T.stack([x, y]), arg(2, 3), arg(2, 3)),
    _op(
        "stack_negative",
        lambda T, x, y, z: T.stack((x, y, z), dim=-1),
        arg(2, 3),
        arg(2, 3),
        arg(2, 3),
    ),
    _op("split_size", lambda T, x: x.split(2), arg(5, 2)),
    _op("split_sections", lambda T, x: T.split(x, [1, 3], dim=1), arg(2, 4)),
    _op("split_with_sizes", lambda T, x: x.split_with_sizes([1, 3], dim=1), arg(2, 4)),
    _op("chunk", lambda T, x: x.chunk(2, dim=1), arg(2, 5)),
    _op("chunk_function", lambda T, x: T.chunk(x, 3), arg(6, 2)),
    _op("unbind", lambda T, x: x.unbind(1), arg(2, 3)),
    _op("narrow", lambda T, x: x.narrow(1, 1, 2), arg(2, 4)),
    _op("flip", lambda T, x: T.flip(x, (0,)), arg(3, 2)),
    _op("flip_two", lambda T, x: T.flip(x, (0, -1)), arg(2, 3, 2)),
    _op("flip_method", lambda T, x: x.flip(-1), arg(2, 3)),
    _op("movedim", lambda T, x: T.movedim(x, 0, -1), arg(2, 3, 4)),
    _op("movedim_sequences", lambda T, x: x.movedim((2, 0), (0, 1)), arg(2, 3, 4)),
    _op("clone", lambda T, x: x.clone() * 1.0, arg(2, 3)),
    _op("gather", lambda T, x: T.gather(x, 1, T.tensor([[0, 0, 2], [1, 0, 1]])), arg(2, 3)),
    _op("gather_method", lambda T, x: x.gather(0, T.tensor([[1, 0, 1]])), arg(2, 3)),
    _op("index_select", lambda T, x: T.index_select(x, 0, T.tensor([2, 0, 2])), arg(3, 2)),
    _op("index_select_dim1", lambda T, x: x.index_select(1, T.tensor([1])), arg(3, 2)),
]

# -- indexing --------------------------------------------------------------------------------------
_MASK = [[True, False, True], [False, False, True], [True, True, False], [False, True, False]]

INDEXING = [
    _op("index_int", lambda T, x: x[1], arg(3, 2)),
    _op("index_negative_int", lambda T, x: x[-1], arg(3, 2)),
    _op("index_two_ints", lambda T, x: x[1, -2], arg(3, 2)),
    _op("index_slice", lambda T, x: x[1:3], arg(4, 2)),
    _op("index_slice_step", lambda T, x: x[::2, 1:], arg(5, 3)),
    _op("index_none", lambda T, x: x[:, None], arg(3, 2)),
    _op("index_ellipsis", lambda T, x: x[..., 1], arg(2, 3, 2)),
    _op("index_mixed", lambda T, x: x[None, ..., ::2, 0], arg(2, 4, 3)),
    _op("index_int_tensor", lambda T, x: x[T.tensor([0, 2, 0])], arg(3, 2)),
    _op("index_int_tensor_2d", lambda T, x: x[T.tensor([[0, 1], [1, 1]])], arg(3, 2)),
    _op("index_int_tensor_dim1", lambda T, x: x[:, T.tensor([1, 0, 1])], arg(3, 2)),
    _op(
        "index_two_int_tensors", lambda T, x: x[T.tensor([0, 2, 2]), T.tensor([1, 0, 1])], arg(3, 2)
    ),
    _op("index_negative_tensor", lambda T, x: x[T.tensor([-1, 0])], arg(3, 2)),
    _op("index_list", lambda T, x: x[[0, 2]], arg(3, 2)),
    _op("index_bool_mask", lambda T, x: x[T.tensor(_MASK)], arg(4, 3)),
    _op("index_bool_rows", lambda T, x: x[T.tensor([True, False, True, True])], arg(4, 3)),
    _op("index_data_mask", lambda T, x: x[x > 0], arg(3, 4, kind="away")),
    _op("index_mask_then_slice", lambda T, x: x[T.tensor([False, True, True]), 1:], arg(3, 3)),
]


def _setitem(key, value_shape=None, scalar=0.5):
    """``y = x * 1; y[key] = v; return y`` (``v`` an input when ``value_shape`` is given)."""

    def fn(T, x, *value):
        y = x * 1.0
        y[key(T) if callable(key) else key] = value[0] if value else scalar
        return y

    inputs = (arg(4, 3),) + ((arg(*value_shape),) if value_shape is not None else ())
    return fn, inputs


def _setitem_op(name, key, value_shape=None, **options):
    fn, inputs = _setitem(key, value_shape, **options)
    return OpInfo(name, fn, inputs)


def _set_into_constant(T, v):
    y = T.zeros(4, 3, dtype=T.float64)
    y[1:3, ::2] = v
    return y


SETITEM = [
    _setitem_op("setitem_slice", slice(1, 3), (2, 3)),
    _setitem_op("setitem_slice_broadcast", slice(1, 3), (3,)),
    _setitem_op("setitem_column", (slice(None), 0), (4,)),
    _setitem_op("setitem_row_scalar_tensor", 2, ()),
    _setitem_op("setitem_element_number", (1, 2)),
    _setitem_op("setitem_ellipsis", (Ellipsis, 1), (4,)),
    _setitem_op("setitem_int_tensor", lambda T: T.tensor([0, 2]), (2, 3)),
    _setitem_op("setitem_bool_mask", lambda T: T.tensor(_MASK), (6,)),
    _setitem_op("setitem_bool_mask_number", lambda T: T.tensor(_MASK), scalar=-1.0),
    OpInfo("setitem_into_constant", _set_into_constant, (arg(2, 2),)),
]


def _set_negative_to_zero(T, x):
    y = x * 1.0
    y[y < 0] = 0.0
    return y


SETITEM.append(OpInfo("setitem_data_mask", _set_negative_to_zero, (arg(3, 4, kind="away"),)))

# -- losses and linear -----------------------------------------------------------------------------
REDUCTION_NAMES = ("mean", "sum", "none")
_TARGETS = [1, 0, 2, 2]
_CLASS_WEIGHT = [0.5, 2.0, 1.5]


def _loss(name, call, *inputs):
    """One entry per reduction; ``call(T, F, reduction, *inputs)``."""
    return [
        _op(f"{name}_{r}", lambda T, *xs, r=r: call(T, T.nn.functional, r, *xs), *inputs)
        for r in REDUCTION_NAMES
    ]


def _bce_targets(T):
    return f64(T, [[0.0, 1.0, 0.25], [1.0, 0.5, 0.0]])


LOSSES = (
    _loss("mse_loss", lambda T, F, r, x, y: F.mse_loss(x, y, reduction=r), arg(2, 3), arg(2, 3))
    + _loss(
        "l1_loss",
        lambda T, F, r, x: F.l1_loss(x, f64(T, [[0.0, 1.0, -1.0]]).expand(2, 3), reduction=r),
        arg(2, 3, kind="clamp"),
    )
    + _loss(
        "bce_with_logits",
        lambda T, F, r, x: F.binary_cross_entropy_with_logits(x, _bce_targets(T), reduction=r),
        arg(2, 3),
    )
    + _loss(
        "bce_with_logits_weight_pos_weight",
        lambda T, F, r, x: F.binary_cross_entropy_with_logits(
            x,
            _bce_targets(T),
            weight=f64(T, [[1.0], [0.5]]),
            pos_weight=f64(T, [2.0, 0.5, 1.0]),
            reduction=r,
        ),
        arg(2, 3),
    )
    + _loss(
        "bce_with_logits_target_grad",
        lambda T, F, r, x, t: F.binary_cross_entropy_with_logits(x, t, reduction=r),
        arg(2, 3),
        arg(2, 3, kind="prob"),
    )
    + _loss(
        "bce",
        lambda T, F, r, p: F.binary_cross_entropy(p, _bce_targets(T), reduction=r),
        arg(2, 3, kind="prob"),
    )
    + _loss(
        "bce_weight",
        lambda T, F, r, p: F.binary_cross_entropy(
            p, _bce_targets(T), weight=f64(T, [0.5, 1.0, 2.0]), reduction=r
        ),
        arg(2, 3, kind="prob"),
    )
    + _loss(
        "cross_entropy",
        lambda T, F, r, x: F.cross_entropy(x, T.tensor(_TARGETS), reduction=r),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_weight",
        lambda T, F, r, x: F.cross_entropy(
            x, T.tensor(_TARGETS), weight=f64(T, _CLASS_WEIGHT), reduction=r
        ),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_ignore_index",
        lambda T, F, r, x: F.cross_entropy(x, T.tensor([1, -100, 2, 0]), reduction=r),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_weight_ignore_index",
        lambda T, F, r, x: F.cross_entropy(
            x, T.tensor(_TARGETS), weight=f64(T, _CLASS_WEIGHT), ignore_index=2, reduction=r
        ),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_spatial",
        lambda T, F, r, x: F.cross_entropy(x, T.tensor([[0, 2], [1, 1]]), reduction=r),
        arg(2, 3, 2),
    )
    + _loss(
        "cross_entropy_label_smoothing",
        lambda T, F, r, x: F.cross_entropy(x, T.tensor(_TARGETS), label_smoothing=0.2, reduction=r),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_label_smoothing_weight",
        lambda T, F, r, x: F.cross_entropy(
            x, T.tensor(_TARGETS), weight=f64(T, _CLASS_WEIGHT), label_smoothing=0.1, reduction=r
        ),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_label_smoothing_ignore_index",
        lambda T, F, r, x: F.cross_entropy(
            x,
            T.tensor([1, -100, 2, 0]),
            weight=f64(T, _CLASS_WEIGHT),
            label_smoothing=0.3,
            reduction=r,
        ),
        arg(4, 3),
    )
    + _loss(
        "cross_entropy_probabilities",
        lambda T, F, r, x, p: F.cross_entropy(x, T.softmax(p, 1), reduction=r),
        arg(4, 3),
        arg(4, 3),
    )
    + _loss(
        "nll_loss", lambda T, F, r, x: F.nll_loss(x, T.tensor(_TARGETS), reduction=r), arg(4, 3)
    )
    + _loss(
        "nll_loss_weight_ignore_index",
        lambda T, F, r, x: F.nll_loss(
            x, T.tensor([1, 0, 2, 1]), weight=f64(T, _CLASS_WEIGHT), ignore_index=1, reduction=r
        ),
        arg(4, 3),
    )
    + [
        _op("cross_entropy_1d", lambda T, x: T.nn.functional.cross_entropy(x, T.tensor(2)), arg(4)),
        _op("nll_loss_1d", lambda T, x: T.nn.functional.nll_loss(x, T.tensor(1)), arg(3)),
        _op(
            "linear",
            lambda T, x, w, b: T.nn.functional.linear(x, w, b),
            arg(4, 3),
            arg(2, 3),
            arg(2),
        ),
        _op(
            "linear_no_bias", lambda T, x, w: T.nn.functional.linear(x, w), arg(2, 5, 3), arg(2, 3)
        ),
        _op(
            "linear_1d_input",
            lambda T, x, w, b: T.nn.functional.linear(x, w, b),
            arg(3),
            arg(2, 3),
            arg(2),
        ),
        _op("relu_functional", lambda T, x: T.nn.functional.relu(x), arg(2, 3, kind="away")),
        _op("sigmoid_functional", lambda T, x: T.nn.functional.sigmoid(x), arg(2, 3)),
        _op("tanh_functional", lambda T, x: T.nn.functional.tanh(x), arg(2, 3)),
    ]
)

# pos_weight is a tensor input of the loss node here; PyTorch refuses to differentiate it
EXTRA = [
    _op(
        "bce_with_logits_pos_weight_grad",
        lambda T, x, w: T.nn.functional.binary_cross_entropy_with_logits(
            x, _bce_targets(T), pos_weight=w
        ),
        arg(2, 3),
        arg(3, kind="pos"),
        torch=False,
    ),
]

OP_DB = ARITHMETIC + ELEMENTWISE + REDUCTIONS + SOFTMAX + LINALG + SHAPE + INDEXING + SETITEM
OP_DB += LOSSES + EXTRA
OP_DB += __import__(__package__ + ".op_db_functional", fromlist=["_"]).FUNCTIONAL

assert len({op.name for op in OP_DB}) == len(OP_DB), "op names must be unique"
OP_DB += __import__(__package__ + ".op_db_conv", fromlist=["_"]).CONV
OP_DB += __import__(__package__ + ".op_db_special", fromlist=["_"]).SPECIAL
OP_DB += __import__(__package__ + ".op_db_ordering", fromlist=["_"]).ORDERING
OP_DB += __import__(__package__ + ".op_db_tiling", fromlist=["_"]).TILING
OP_DB += __import__(__package__ + ".op_db_linalg", fromlist=["_"]).MATRICES
OP_DB += __import__(__package__ + ".op_db_misc", fromlist=["_"]).MISC
OP_DB += __import__(__package__ + ".op_db_elem", fromlist=["_"]).ELEM
OP_DB += __import__(__package__ + ".op_db_extras", fromlist=["_"]).EXTRAS
OP_DB += __import__(__package__ + ".op_db_norms", fromlist=["_"]).NORMS
