"""``grad_fn._saved_dim`` (and ``dims``, ``dim0``, ``dim1``) of shape ops, reductions, scans
and joins: the dims as the user gave them, as PyTorch 2.13's node shows them (a negative one
as the unsigned 64-bit number of its bits, a squeeze of a dim that is not of size 1 included).

Each case is reduced to plain data, checked for symgrad always and for PyTorch when it is
installed."""

from __future__ import annotations

from _torch_table import table_tests

_MINUS_1, _MINUS_2 = 2**64 - 1, 2**64 - 2


def _x(T, *shape):
    return T.ones(*shape, requires_grad=True)


def _saved(name, fn, shape=(2, 3)):
    """The node's name and its ``_saved_<name>`` of ``fn(x)``."""

    def run(T):
        y = fn(T, _x(T, *shape))
        y = y[0] if isinstance(y, tuple) else y
        return type(y.grad_fn).__name__, getattr(y.grad_fn, f"_saved_{name}")

    return run


CASES = {
    "squeeze_dim_not_of_size_1": (
        _saved("dim", lambda T, x: x.squeeze(-1)),
        ("SqueezeBackward1", _MINUS_1),
    ),
    "squeeze_positive_dim_not_of_size_1": (
        _saved("dim", lambda T, x: x.squeeze(0)),
        ("SqueezeBackward1", 0),
    ),
    "squeeze_negative_dim": (
        _saved("dim", lambda T, x: x.squeeze(-2), (2, 1, 3)),
        ("SqueezeBackward1", _MINUS_2),
    ),
    "squeeze_dims": (
        _saved("dim", lambda T, x: x.squeeze((1, -1)), (2, 1, 3)),
        ("SqueezeBackward2", (1, _MINUS_1)),
    ),
    "unsqueeze": (_saved("dim", lambda T, x: x.unsqueeze(-1)), ("UnsqueezeBackward0", _MINUS_1)),
    "sum": (_saved("dim", lambda T, x: x.sum(-1)), ("SumBackward1", (_MINUS_1,))),
    "sum_dims_in_their_order": (
        _saved("dim", lambda T, x: x.sum((1, 0))),
        ("SumBackward1", (1, 0)),
    ),
    "sum_dim_none": (_saved("dim", lambda T, x: x.sum(None)), ("SumBackward1", None)),
    "sum_no_dims": (_saved("dim", lambda T, x: x.sum([])), ("SumBackward1", ())),
    "mean": (_saved("dim", lambda T, x: x.mean((0, -1))), ("MeanBackward1", (0, _MINUS_1))),
    "adaptive_avg_pool2d_to_1": (
        _saved("dim", lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 1), (1, 1, 2, 3)),
        ("MeanBackward1", (_MINUS_1, _MINUS_2)),
    ),
    "max_pool1d": (
        _saved("dim", lambda T, x: T.nn.functional.max_pool1d(x, 2), (1, 2, 4)),
        ("SqueezeBackward1", _MINUS_2),
    ),
    "transpose": (
        lambda T: (
            _saved("dim0", lambda T, x: x.transpose(-1, 0))(T)
            + _saved("dim1", lambda T, x: x.transpose(-1, 0))(T)[1:]
        ),
        ("TransposeBackward0", _MINUS_1, 0),
    ),
    "softmax": (_saved("dim", lambda T, x: x.softmax(-1)), ("SoftmaxBackward0", _MINUS_1)),
    "log_softmax": (
        _saved("dim", lambda T, x: x.log_softmax(-2)),
        ("LogSoftmaxBackward0", _MINUS_2),
    ),
    "cumsum": (_saved("dim", lambda T, x: x.cumsum(-1)), ("CumsumBackward0", _MINUS_1)),
    "cat": (_saved("dim", lambda T, x: T.cat([x, x], -1)), ("CatBackward0", _MINUS_1)),
    "stack": (_saved("dim", lambda T, x: T.stack([x, x], -1)), ("StackBackward0", _MINUS_1)),
    "flip": (_saved("dims", lambda T, x: x.flip(-1)), ("FlipBackward0", (_MINUS_1,))),
    "permute": (
        _saved("dims", lambda T, x: x.permute(-1, 0)),
        ("PermuteBackward0", (_MINUS_1, 0)),
    ),
    "logsumexp": (
        _saved("dim", lambda T, x: x.logsumexp(-1)),
        ("LogsumexpBackward0", (_MINUS_1,)),
    ),
    "max": (_saved("dim", lambda T, x: x.max(-1)), ("MaxBackward0", _MINUS_1)),
    "min_keepdim": (_saved("dim", lambda T, x: x.min(-2, True)), ("MinBackward0", _MINUS_2)),
    "sort": (_saved("dim", lambda T, x: x.sort(-2)), ("SortBackward0", _MINUS_2)),
    "topk_default_dim": (_saved("dim", lambda T, x: x.topk(2)), ("TopkBackward0", _MINUS_1)),
    "kthvalue": (_saved("dim", lambda T, x: x.kthvalue(1, 0)), ("KthvalueBackward0", 0)),
    "split": (_saved("dim", lambda T, x: x.split(2, -1)), ("SplitBackward0", _MINUS_1)),
    "split_sizes": (
        _saved("dim", lambda T, x: x.split([1, 2], -1)),
        ("SplitWithSizesBackward0", _MINUS_1),
    ),
    "chunk": (_saved("dim", lambda T, x: x.chunk(2, -1)), ("SplitBackward0", _MINUS_1)),
    "unbind": (_saved("dim", lambda T, x: x.unbind(-1)), ("UnbindBackward0", _MINUS_1)),
    "select": (_saved("dim", lambda T, x: x.select(-1, 1)), ("SelectBackward0", _MINUS_1)),
    "select_index": (
        lambda T: _saved("index", lambda T, x: x.select(-1, -1))(T)[1],
        _MINUS_1,
    ),
    "narrow": (_saved("dim", lambda T, x: x.narrow(-1, 0, 2)), ("SliceBackward0", _MINUS_1)),
    "narrow_start": (lambda T: _saved("start", lambda T, x: x.narrow(-1, -2, 1))(T)[1], 1),
    "prod": (_saved("dim", lambda T, x: x.prod(-1)), ("ProdBackward1", _MINUS_1)),
    "amax": (_saved("dim", lambda T, x: x.amax([1, -2])), ("AmaxBackward0", (1, _MINUS_2))),
    "amin_all": (_saved("dim", lambda T, x: x.amin()), ("AminBackward0", ())),
    "median": (_saved("dim", lambda T, x: x.median(-1)), ("MedianBackward1", _MINUS_1)),
    "nanmedian": (
        _saved("dim", lambda T, x: x.nanmedian(-2, True)),
        ("NanmedianBackward1", _MINUS_2),
    ),
    "mode": (_saved("dim", lambda T, x: x.mode(-1)), ("ModeBackward0", _MINUS_1)),
    "mode_keepdim": (_saved("keepdim", lambda T, x: x.mode(0, True)), ("ModeBackward0", True)),
    "cummax": (_saved("dim", lambda T, x: x.cummax(-1)), ("CummaxBackward0", _MINUS_1)),
    "cummin": (_saved("dim", lambda T, x: x.cummin(-2)), ("CumminBackward0", _MINUS_2)),
    "logcumsumexp": (
        _saved("dim", lambda T, x: x.logcumsumexp(-1)),
        ("LogcumsumexpBackward0", _MINUS_1),
    ),
    "nansum": (_saved("dim", lambda T, x: x.nansum(-1)), ("NansumBackward0", (_MINUS_1,))),
    "nansum_all": (_saved("dim", lambda T, x: x.nansum()), ("NansumBackward0", None)),
    "aminmax": (_saved("dim", lambda T, x: x.aminmax(dim=-1)), ("AminmaxBackward0", _MINUS_1)),
    "aminmax_all": (_saved("dim", lambda T, x: x.aminmax()), ("AminmaxBackward0", None)),
    "squeeze_in_place": (
        _saved("dim", lambda T, x: x.clone().squeeze_(-2), (2, 1, 3)),
        ("SqueezeBackward4", _MINUS_2),
    ),
    "squeeze_dims_in_place": (
        _saved("dim", lambda T, x: x.clone().squeeze_((1, -1)), (2, 1, 1)),
        ("SqueezeBackward5", (1, _MINUS_1)),
    ),
    "unsqueeze_in_place": (
        _saved("dim", lambda T, x: x.clone().unsqueeze_(-1)),
        ("UnsqueezeBackward1", _MINUS_1),
    ),
    "transpose_in_place": (
        _saved("dim1", lambda T, x: x.clone().transpose_(0, -1)),
        ("TransposeBackward1", _MINUS_1),
    ),
    "quantile_squeeze": (
        _saved("dim", lambda T, x: x.quantile(0.5, 1)),
        ("SqueezeBackward4", _MINUS_1),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
