"""Which values each PyTorch node saves for its backward, by node name, and how to read the
ones symgrad keeps in another form.

:data:`SAVED` lists, for a node, exactly the names PyTorch shows as ``grad_fn._saved_<name>``
(what its backward formula in PyTorch's ``derivatives.yaml`` reads: ``self.sym_sizes()`` is
``self_sym_sizes``, ``result`` the output). A name is read, in this order, from :data:`VALUES`
(a function of the node, run only when the attribute is read), from what the node saved (an
input under its argument name, an output, an element-wise primitive's parameter), from the
sizes of an input (``mat1_sym_sizes``, ``self_sym_numel``, ``self_sym_strides``) or from the
node's parameters. A node not listed shows what it saved and its element-wise parameters.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.autograd import saved_indexing, saved_layers
from symgrad.autograd.saved import FREED
from symgrad.tensor import Tensor

__all__ = ["SAVED", "VALUES", "HOLDS_INDICES", "size_value"]

_INT64_MAX = 2**63 - 1

# (one string per node: the names, as PyTorch lists them in dir(grad_fn))
_TABLE = {
    # element-wise
    "AddBackward0": "alpha",
    "SubBackward0": "alpha",
    "RsubBackward1": "alpha",
    "PowBackward0": "exponent self",
    "ClampBackward1": "max min self",
    "GeluBackward0": "approximate self",
    "LogSigmoidBackward0": "buffer self",
    "EluBackward0": "alpha input_scale scale self",
    "ThresholdBackward0": "self threshold",
    "SoftplusBackward0": "beta self threshold",
    "LogitBackward0": "eps self",
    # reductions
    "SumBackward0": "self_sym_sizes",
    "SumBackward1": "dim keepdim self_sym_sizes",
    "MeanBackward0": "self_sym_numel self_sym_sizes",
    "MeanBackward1": "dim keepdim self_sym_numel self_sym_sizes",
    "ProdBackward0": "result self",
    "ProdBackward1": "dim keepdim result self",
    "NansumBackward0": "dim keepdim self",
    "VarBackward0": "correction dim keepdim self",
    "StdBackward0": "correction dim keepdim result self",
    "MaxBackward0": "dim indices keepdim self_sym_sizes",
    "MinBackward0": "dim indices keepdim self_sym_sizes",
    "MedianBackward0": "result self",
    "NanmedianBackward0": "result self",
    "MedianBackward1": "dim indices keepdim self_sym_sizes",
    "KthvalueBackward0": "dim indices keepdim self_sym_sizes",
    "ModeBackward0": "dim indices keepdim self_sym_sizes",
    "NanmedianBackward1": "dim indices keepdim self_sym_sizes",
    "AminmaxBackward0": "dim keepdim max min self",
    "AmaxBackward0": "dim keepdim result self",
    "AminBackward0": "dim keepdim result self",
    "LogsumexpBackward0": "dim keepdim result self",
    "LinalgVectorNormBackward0": "dim keepdim ord result self",
    "CumsumBackward0": "dim",
    "CumprodBackward0": "dim result self",
    "CummaxBackward0": "dim indices self",
    "CumminBackward0": "dim indices self",
    "LogcumsumexpBackward0": "dim result self",
    "SortBackward0": "dim indices self_sym_sizes",
    "TopkBackward0": "dim indices self_sym_sizes",
    # products
    "MmBackward0": "mat2 mat2_sym_sizes mat2_sym_strides self self_sym_sizes self_sym_strides",
    "AddmmBackward0": (
        "alpha beta mat1 mat1_sym_sizes mat1_sym_strides mat2 mat2_sym_sizes mat2_sym_strides"
    ),
    "BaddbmmBackward0": "alpha batch1 batch2 beta",
    "PdistBackward0": "p result self",
    "AddmvBackward0": "alpha beta mat vec",
    # views and shapes
    "ViewBackward0": "self_sym_sizes",
    "UnsafeViewBackward0": "self_sym_sizes",
    "TransposeBackward0": "dim0 dim1",
    "PermuteBackward0": "dims",
    "SqueezeBackward0": "self_sym_sizes",
    "SqueezeBackward1": "dim self_sym_sizes",
    "SqueezeBackward2": "dim self_sym_sizes",
    "SqueezeBackward3": "self_sym_sizes",
    "SqueezeBackward4": "dim self_sym_sizes",
    "SqueezeBackward5": "dim self_sym_sizes",
    "UnsqueezeBackward1": "dim",
    "TransposeBackward1": "dim0 dim1",
    "UnsqueezeBackward0": "dim",
    "ExpandBackward0": "self_sym_sizes",
    "RepeatBackward0": "repeats self_sym_sizes",
    "SelectBackward0": "dim index self_sym_sizes",
    "SliceBackward0": "dim end self_sym_sizes start step",
    "IndexBackward0": "indices self_sym_sizes",
    "IndexSelectBackward0": "dim index self_sym_sizes",
    "MaskedFillBackward0": "mask",
    "FlipBackward0": "dims",
    "SplitBackward0": "dim self_sym_sizes split_size",
    "SplitWithSizesBackward0": "dim self_sym_sizes split_sizes",
    "UnbindBackward0": "dim",
    "TraceBackward0": "self_sym_sizes",
    "TrilBackward0": "diagonal",
    "TriuBackward0": "diagonal",
    "DiagEmbedBackward0": "dim1 dim2 offset",
    "ConstantPadNdBackward0": "pad",
    "CatBackward0": "dim",
    "StackBackward0": "dim",
    "GluBackward0": "dim self",
    # losses and layers
    "MseLossBackward0": "reduction self target",
    "SmoothL1LossBackward0": "beta reduction self target",
    "HuberLossBackward0": "delta reduction self target",
    "BinaryCrossEntropyBackward0": "reduction self target weight",
    "BinaryCrossEntropyWithLogitsBackward0": "pos_weight reduction self target weight",
    "ConvolutionBackward0": (
        "bias_sym_sizes_opt dilation groups input output_padding padding stride transposed weight"
    ),
    "NllLossBackward0": "ignore_index reduction self target total_weight weight",
    "NllLoss2DBackward0": "ignore_index reduction self target total_weight weight",
    "Im2ColBackward0": (
        "dilation kernel_size padding self_sym_argsize_minus_1 self_sym_argsize_minus_2 stride"
    ),
    "Col2ImBackward0": "dilation kernel_size padding stride",
    "EmbeddingBackward0": "indices padding_idx scale_grad_by_freq sparse weight_sym_argsize_0",
}
_TABLE.update(saved_layers.SAVED)
_TABLE.update(saved_indexing.SAVED)
SAVED = {name: tuple(names.split()) for name, names in _TABLE.items()}

# nodes whose backward reads the positions the forward picked, a tensor PyTorch saves: a
# backward pass frees them as it frees saved tensors
HOLDS_INDICES = frozenset(
    name for name, names in SAVED.items() if "indices" in names and "Index" not in name
)
HOLDS_INDICES -= {"EmbeddingBackward0"}  # (its indices are the user's, watched instead)


# -- reading values symgrad keeps in another form ----------------------------------------------
def _int64(n: int) -> int:
    # PyTorch shows a saved negative int64 as the unsigned number of the same bits
    return int(n) % 2**64


def _param(node: Any, name: str, default: Any = None) -> Any:
    """An element-wise primitive's parameter ``name``, or ``default`` where it has none."""
    params = node.params
    if isinstance(params, dict):
        return params.get(name, default)
    names = getattr(node.prim, "param_names", ())
    return params[names.index(name)] if name in names else default


def _dims(node: Any) -> Any:
    dim = node.params["dim"]
    if dim is None:
        return None
    return (int(dim),) if isinstance(dim, (int, np.integer)) else tuple(int(d) for d in dim)


def _dim(node: Any) -> int:
    dim = node.params["dim"]
    return int(dim if isinstance(dim, (int, np.integer)) else dim[0])


def _indices(node: Any) -> Tensor:
    """The positions a max, min, median, sort or topk picked, as PyTorch saves them."""
    if node._saved is None:
        raise RuntimeError(FREED)
    index = np.asarray(node.params["index"], dtype=np.int64)
    if not node.params.get("keepdim", True):
        index = np.squeeze(index, _dim(node))
    return Tensor._make(index)


def _key_position(node: Any, kind: type) -> tuple:
    """(the position, the entry) of the last entry of the node's key that is a ``kind``."""
    key = node.params["key"]
    for i in range(len(key) - 1, -1, -1):
        if isinstance(key[i], kind) and key[i] != slice(None):
            return i, key[i]
    return len(key) - 1, key[-1]


def _slice_part(part: str) -> Any:
    def read(node: Any) -> Any:
        dim, s = _key_position(node, slice)
        if part == "dim":
            return dim
        if part == "start":
            return 0 if s.start is None else _int64(s.start)
        if part == "end":
            return _INT64_MAX if s.stop is None else _int64(s.stop)
        return 1 if s.step is None else s.step

    return read


def _select_part(part: str) -> Any:
    def read(node: Any) -> Any:
        dim, index = _key_position(node, (int, np.integer))
        return dim if part == "dim" else _int64(index)

    return read


def _index_tensors(node: Any) -> tuple:
    return tuple(
        Tensor._make(np.asarray(k)) if isinstance(k, np.ndarray) else None
        for k in node.params["key"]
    )


def _index_select_part(part: str) -> Any:
    def read(node: Any) -> Any:
        key = node.params["key"]
        dim = next(i for i, k in enumerate(key) if isinstance(k, np.ndarray))
        return dim if part == "dim" else Tensor._make(np.asarray(key[dim], dtype=np.int64))

    return read


def _log_sigmoid_buffer(node: Any) -> Tensor:
    """``exp(-|x|)``, which PyTorch's CPU kernel keeps for the backward."""
    if node._saved is None:
        raise RuntimeError(FREED)
    x = node._saved[0]._data
    return Tensor._make(np.exp(-np.abs(x)).astype(x.dtype))


def _pad(node: Any) -> tuple:
    """constant_pad_nd's ``pad`` (last dimension first) from the slices that crop the input
    and place it (the dimensions left alone hold ``slice(None)``)."""
    shape, p = node._meta[0][0], node.params
    pad: list = []
    for n, crop, place, size in zip(shape, p["crop"], p["place"], p["shape"]):
        if place != slice(None):
            hi = (int(size) - place.stop) - (int(n) - crop.stop)
            pad[:0] = [_int64(place.start - crop.start), _int64(hi)]
    return tuple(pad)


def _piece_sizes(node: Any) -> tuple:
    dim, size = node.params["dim"], node._meta[0][0][node.params["dim"]]
    return tuple(len(range(size)[key[dim]]) for key in node.params["keys"])


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(node: Any) -> int:
    return _REDUCTIONS[node.params["reduction"]]


def _weight(node: Any) -> Any:
    w = node.params.get("weight")
    return None if w is None else Tensor._make(np.asarray(w))


def _total_weight(node: Any) -> Tensor:
    """The sum of the weights of the targets not ignored (0 for an unreduced loss)."""
    denom = node.params["denom"]
    none = node.params["reduction"] == "none" or math.isnan(denom)
    return Tensor._make(np.asarray(0.0 if none else denom, dtype=node._meta[0][1]))


def _geometry(part: str) -> Any:
    def read(node: Any) -> Any:
        geo = node.params["geo"]
        if part == "padding":
            return tuple(lo for lo, _ in geo.pads)
        if part == "output_padding":
            if not _transposed(node):
                return (0,) * len(geo.kernel)
            # a transposed convolution's output is its geometry's input, the windows its input
            return tuple(
                size - ((n - 1) * s - 2 * lo + d * (k - 1) + 1)
                for size, n, s, (lo, _), d, k in zip(
                    geo.spatial, geo.out, geo.stride, geo.pads, geo.dilation, geo.kernel
                )
            )
        return getattr(geo, "kernel" if part == "kernel_size" else part)

    return read


def _transposed(node: Any) -> bool:
    return node.prim.name == "convolution_transposed"


def _bias_sizes(node: Any) -> tuple:
    meta = node._meta
    return tuple(meta[2][0]) if len(meta) > 2 and meta[2] is not None else (0,)


def _embedding_padding(node: Any) -> int:
    coef = node.params.get("coef")
    if coef is not None:
        unused = np.asarray(node.params["indices"])[np.asarray(coef) == 0]
        if unused.size:
            return int(unused.flat[0])
    return _int64(-1)


def _constant(value: Any) -> Any:
    return lambda node: value


def _param_or(name: str, default: Any) -> Any:
    def read(node: Any) -> Any:
        return _param(node, name, default)

    return read


def _bound(name: str) -> Any:
    def read(node: Any) -> Any:
        value = _param(node, name)
        return None if value is None or math.isinf(value) else value

    return read


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805
_DIM_TUPLE = {"dim": _dims}
_DIM_INT = {"dim": _dim}
_PICKED = {"dim": _dim, "indices": _indices}
_LOSS = {"reduction": _reduction}
_SCALES = {"alpha": _param_or("alpha", 1), "beta": _param_or("beta", 1)}

# how to read, by node, the values that are neither a saved tensor nor a parameter by the name
VALUES: dict[str, dict[str, Any]] = {
    "AddBackward0": {"alpha": _param_or("alpha", 1)},
    "SubBackward0": {"alpha": _param_or("alpha", 1)},
    "RsubBackward1": {"alpha": _param_or("alpha", 1)},
    "PowBackward0": {"exponent": _param_or("exponent", 2)},  # square()
    "ClampBackward1": {"min": _bound("min"), "max": _bound("max")},
    "LogitBackward0": {"eps": _param_or("eps", None)},
    "GeluBackward0": {"approximate": lambda n: "tanh" if n.prim.name == "gelu_tanh" else "none"},
    "EluBackward0": {
        "alpha": _param_or("alpha", _SELU_ALPHA),
        "scale": lambda n: _SELU_SCALE if n.prim.name == "selu" else 1,
        "input_scale": _constant(1),
    },
    "SoftplusBackward0": {
        "beta": _param_or("beta", 1),
        "threshold": _param_or("threshold", 20),
    },
    "SumBackward1": _DIM_TUPLE,
    "MeanBackward1": _DIM_TUPLE,
    "ProdBackward1": _DIM_INT,
    "NansumBackward0": _DIM_TUPLE,
    "MaxBackward0": _PICKED,
    "MinBackward0": _PICKED,
    "MedianBackward1": _PICKED,
    "KthvalueBackward0": _PICKED,
    "ModeBackward0": _PICKED,
    "NanmedianBackward1": _PICKED,
    "CummaxBackward0": _PICKED,
    "CumminBackward0": _PICKED,
    "AminmaxBackward0": {"dim": _constant(None)},
    "SortBackward0": _PICKED,
    "TopkBackward0": _PICKED,
    "AmaxBackward0": _DIM_TUPLE,
    "AminBackward0": _DIM_TUPLE,
    "LogsumexpBackward0": _DIM_TUPLE,
    "LinalgVectorNormBackward0": {"dim": _dims, "ord": _param_or("order", 2)},
    "CumsumBackward0": _DIM_INT,
    "CumprodBackward0": _DIM_INT,
    "LogcumsumexpBackward0": _DIM_INT,
    "AddmmBackward0": _SCALES,
    "BaddbmmBackward0": _SCALES,
    "AddmvBackward0": _SCALES,
    "SqueezeBackward1": _DIM_INT,
    "SqueezeBackward2": _DIM_TUPLE,
    "SelectBackward0": {"dim": _select_part("dim"), "index": _select_part("index")},
    "SliceBackward0": {p: _slice_part(p) for p in ("dim", "start", "end", "step")},
    "IndexBackward0": {"indices": _index_tensors},
    "IndexSelectBackward0": {
        "dim": _index_select_part("dim"),
        "index": _index_select_part("index"),
    },
    "LogSigmoidBackward0": {"buffer": _log_sigmoid_buffer},
    "Im2ColBackward0": {
        **{p: _geometry(p) for p in ("dilation", "kernel_size", "padding", "stride")},
        "self_sym_argsize_minus_1": lambda n: int(n._meta[0][0][-1]),
        "self_sym_argsize_minus_2": lambda n: int(n._meta[0][0][-2]),
    },
    "Col2ImBackward0": {p: _geometry(p) for p in ("dilation", "kernel_size", "padding", "stride")},
    "ConstantPadNdBackward0": {"pad": _pad},
    "MaskedFillBackward0": {"mask": lambda n: Tensor._make(np.asarray(n.params["mask"]))},
    "SplitBackward0": {"split_size": lambda n: _piece_sizes(n)[0]},
    "SplitWithSizesBackward0": {"split_sizes": _piece_sizes},
    "GluBackward0": {"dim": lambda n: _int64(n.params["dim"] - len(n._meta[0][0]))},
    "MseLossBackward0": _LOSS,
    "SmoothL1LossBackward0": {"reduction": _reduction, "beta": lambda n: n.params["params"][0]},
    "HuberLossBackward0": {"reduction": _reduction, "delta": lambda n: n.params["params"][0]},
    "BinaryCrossEntropyBackward0": {"reduction": _reduction, "weight": _weight},
    "BinaryCrossEntropyWithLogitsBackward0": {
        "reduction": _reduction,
        "weight": _weight,
        "pos_weight": _constant(None),
    },
    "NllLossBackward0": {"reduction": _reduction, "total_weight": _total_weight},
    "NllLoss2DBackward0": {"reduction": _reduction, "total_weight": _total_weight},
    "ConvolutionBackward0": {
        "bias_sym_sizes_opt": _bias_sizes,
        "transposed": _transposed,
        **{p: _geometry(p) for p in ("dilation", "groups", "padding", "output_padding", "stride")},
    },
    "EmbeddingBackward0": {
        "indices": lambda n: Tensor._make(np.asarray(n.params["indices"], dtype=np.int64)),
        "padding_idx": _embedding_padding,
        "scale_grad_by_freq": _constant(False),
        "sparse": _constant(False),
        "weight_sym_argsize_0": lambda n: int(n._meta[0][0][0]),
    },
}

VALUES.update(saved_layers.VALUES)
VALUES.update(saved_indexing.VALUES)


def size_value(node: Any, name: str, arguments: tuple) -> tuple | None:
    """``("value", v)`` for ``<argument>_sym_sizes``, ``_sym_numel`` or ``_sym_strides``
    (from the input's recorded shape, or the saved tensor's strides); None for other names."""
    argument, _, what = name.partition("_sym_")
    if what not in ("sizes", "numel", "strides") or argument not in arguments:
        return None
    i = arguments.index(argument)
    meta = node._meta[i] if i < len(node._meta) else None
    if meta is None:
        return None
    shape = tuple(int(n) for n in meta[0])
    if what == "sizes":
        return ("value", shape)
    if what == "numel":
        return ("value", math.prod(shape))
    saved = node._saved[i] if node._saved is not None else None
    if isinstance(saved, Tensor):
        return ("value", tuple(saved.stride()))
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return ("value", tuple(reversed(strides)))
