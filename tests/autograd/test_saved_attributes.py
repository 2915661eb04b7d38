"""``grad_fn._saved_<name>``: for the common ops, exactly the names PyTorch's node shows (in
``dir(grad_fn)``) with its values: ints, tuples of ints, bools, None, and tensors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

X = [[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]]
W = [[0.2, 0.1, -0.3], [0.5, -0.2, 0.4]]
B = [0.1, -0.2]
V = [0.3, -0.4, 0.9]


class Saved:
    """An expected saved tensor: its shape and dtype (``is_input``: the input tensor itself)."""

    def __init__(self, shape, dtype="float32", is_input=None):
        self.shape, self.dtype, self.is_input = tuple(shape), dtype, is_input

    def __repr__(self):
        return f"Saved({self.shape}, {self.dtype!r})"


F32 = Saved((2, 3))
F32_X = Saved((2, 3), is_input="x")
IDX = "int64"


def _inputs(T):
    x = T.tensor(X, requires_grad=True)
    w = T.tensor(W, requires_grad=True)
    b = T.tensor(B, requires_grad=True)
    v = T.tensor(V, requires_grad=True)
    return {"x": x, "w": w, "b": b, "v": v}


# (case, fn(T, F, inputs) -> output, node name, {name: expected value})
CASES = [
    ("add", lambda T, F, i: i["x"] + i["w"], "AddBackward0", {"alpha": 1}),
    ("add_alpha", lambda T, F, i: T.add(i["x"], i["w"], alpha=2), "AddBackward0", {"alpha": 2}),
    ("sub", lambda T, F, i: i["x"] - i["w"], "SubBackward0", {"alpha": 1}),
    ("rsub", lambda T, F, i: 2 - i["x"], "RsubBackward1", {"alpha": 1}),
    ("mul", lambda T, F, i: i["x"] * i["w"], "MulBackward0", {"self": F32_X, "other": F32}),
    ("neg", lambda T, F, i: -i["x"], "NegBackward0", {}),
    ("sin", lambda T, F, i: i["x"].sin(), "SinBackward0", {"self": F32_X}),
    ("exp", lambda T, F, i: i["x"].exp(), "ExpBackward0", {"result": F32}),
    ("pow", lambda T, F, i: i["x"] ** 3, "PowBackward0", {"exponent": 3, "self": F32_X}),
    ("square", lambda T, F, i: i["x"].square(), "PowBackward0", {"exponent": 2, "self": F32_X}),
    (
        "pow_tensor",
        lambda T, F, i: i["x"].abs() ** i["w"],
        "PowBackward1",
        {"self": F32, "exponent": F32, "result": F32},
    ),
    (
        "clamp_min",
        lambda T, F, i: i["x"].clamp(min=0.0),
        "ClampBackward1",
        {"min": 0.0, "max": None, "self": F32_X},
    ),
    (
        "gelu_tanh",
        lambda T, F, i: F.gelu(i["x"], approximate="tanh"),
        "GeluBackward0",
        {"approximate": "tanh", "self": F32_X},
    ),
    (
        "elu",
        lambda T, F, i: F.elu(i["x"]),
        "EluBackward0",
        {"alpha": 1.0, "scale": 1, "input_scale": 1, "self": F32_X},
    ),
    (
        "softplus",
        lambda T, F, i: F.softplus(i["x"]),
        "SoftplusBackward0",
        {"beta": 1, "threshold": 20, "self": F32_X},
    ),
    (
        "softplus_float_beta",
        lambda T, F, i: F.softplus(i["x"], beta=1.0, threshold=10),
        "SoftplusBackward0",
        {"beta": 1.0, "threshold": 10, "self": F32_X},
    ),
    (
        "relu6",
        lambda T, F, i: F.relu6(i["x"]),
        "HardtanhBackward0",
        {"min_val": 0, "max_val": 6, "self": F32_X},
    ),
    (
        "relu6_module",
        lambda T, F, i: T.nn.ReLU6()(i["x"]),
        "HardtanhBackward0",
        {"min_val": 0.0, "max_val": 6.0, "self": F32_X},
    ),
    (
        "hardtanh_ints",
        lambda T, F, i: F.hardtanh(i["x"], -2, 2),
        "HardtanhBackward0",
        {"min_val": -2, "max_val": 2, "self": F32_X},
    ),
    (
        "logsigmoid",
        lambda T, F, i: F.logsigmoid(i["x"]),
        "LogSigmoidBackward0",
        {"buffer": F32, "self": F32_X},
    ),
    (
        "where",
        lambda T, F, i: T.where(i["x"] > 0, i["x"], i["w"]),
        "WhereBackward0",
        {"condition": Saved((2, 3), "bool")},
    ),
    ("sum", lambda T, F, i: i["x"].sum(), "SumBackward0", {"self_sym_sizes": (2, 3)}),
    (
        "sum_dim",
        lambda T, F, i: i["x"].sum(1),
        "SumBackward1",
        {"dim": (1,), "keepdim": False, "self_sym_sizes": (2, 3)},
    ),
    (
        "mean",
        lambda T, F, i: i["x"].mean(),
        "MeanBackward0",
        {"self_sym_numel": 6, "self_sym_sizes": (2, 3)},
    ),
    (
        "mean_dim",
        lambda T, F, i: i["x"].mean(0, keepdim=True),
        "MeanBackward1",
        {"dim": (0,), "keepdim": True, "self_sym_numel": 6, "self_sym_sizes": (2, 3)},
    ),
    (
        "prod_dim",
        lambda T, F, i: i["x"].prod(1),
        "ProdBackward1",
        {"dim": 1, "keepdim": False, "result": Saved((2,)), "self": F32_X},
    ),
    (
        "var_dim",
        lambda T, F, i: i["x"].var(1),
        "VarBackward0",
        {"correction": 1, "dim": (1,), "keepdim": False, "self": F32_X},
    ),
    (
        "std_all",
        lambda T, F, i: i["x"].std(),
        "StdBackward0",
        {"correction": None, "dim": None, "keepdim": False, "result": Saved(()), "self": F32_X},
    ),
    (
        "var_correction_given",
        lambda T, F, i: i["x"].var(correction=1),
        "VarBackward0",
        {"correction": 1, "dim": None, "keepdim": False, "self": F32_X},
    ),
    (
        "std_correction_float",
        lambda T, F, i: i["x"].std(1, correction=0.5),
        "StdBackward0",
        {"correction": 0.5, "dim": (1,), "keepdim": False, "result": Saved((2,)), "self": F32_X},
    ),
    (
        "max_dim",
        lambda T, F, i: i["x"].max(1)[0],
        "MaxBackward0",
        {"dim": 1, "indices": Saved((2,), IDX), "keepdim": False, "self_sym_sizes": (2, 3)},
    ),
    (
        "min_dim_keepdim",
        lambda T, F, i: i["x"].min(0, keepdim=True)[0],
        "MinBackward0",
        {"dim": 0, "indices": Saved((1, 3), IDX), "keepdim": True, "self_sym_sizes": (2, 3)},
    ),
    (
        "amax",
        lambda T, F, i: i["x"].amax(1),
        "AmaxBackward0",
        {"dim": (1,), "keepdim": False, "result": Saved((2,)), "self": F32_X},
    ),
    (
        "logsumexp",
        lambda T, F, i: i["x"].logsumexp(1),
        "LogsumexpBackward0",
        {"dim": (1,), "keepdim": False, "result": Saved((2,)), "self": F32_X},
    ),
    (
        "norm",
        lambda T, F, i: i["x"].norm(),
        "LinalgVectorNormBackward0",
        {"dim": None, "keepdim": False, "ord": 2, "result": Saved(()), "self": F32_X},
    ),
    (
        "norm_p1_dim",
        lambda T, F, i: i["x"].norm(p=1, dim=1),
        "LinalgVectorNormBackward0",
        {"dim": (1,), "keepdim": False, "ord": 1, "result": Saved((2,)), "self": F32_X},
    ),
    (
        "norm_float_p",
        lambda T, F, i: i["x"].norm(p=1.0),
        "LinalgVectorNormBackward0",
        {"dim": None, "keepdim": False, "ord": 1.0, "result": Saved(()), "self": F32_X},
    ),
    ("cumsum", lambda T, F, i: i["x"].cumsum(1), "CumsumBackward0", {"dim": 1}),
    (
        "cummax",
        lambda T, F, i: i["x"].cummax(1)[0],
        "CummaxBackward0",
        {"dim": 1, "indices": Saved((2, 3), IDX), "self": F32_X},
    ),
    (
        "cummin",
        lambda T, F, i: i["x"].cummin(0)[0],
        "CumminBackward0",
        {"dim": 0, "indices": Saved((2, 3), IDX), "self": F32_X},
    ),
    (
        "logcumsumexp",
        lambda T, F, i: i["x"].logcumsumexp(1),
        "LogcumsumexpBackward0",
        {"dim": 1, "result": F32, "self": F32_X},
    ),
    (
        "mode",
        lambda T, F, i: i["x"].mode(1)[0],
        "ModeBackward0",
        {"dim": 1, "indices": Saved((2,), IDX), "keepdim": False, "self_sym_sizes": (2, 3)},
    ),
    (
        "nanmedian_dim",
        lambda T, F, i: i["x"].nanmedian(0, True)[0],
        "NanmedianBackward1",
        {"dim": 0, "indices": Saved((1, 3), IDX), "keepdim": True, "self_sym_sizes": (2, 3)},
    ),
    (
        "aminmax",
        lambda T, F, i: i["x"].aminmax(dim=1)[0],
        "AminmaxBackward0",
        {"dim": 1, "keepdim": False, "max": Saved((2,)), "min": Saved((2,)), "self": F32_X},
    ),
    (
        "aminmax_all",
        lambda T, F, i: i["x"].aminmax()[1],
        "AminmaxBackward0",
        {"dim": None, "keepdim": False, "max": Saved(()), "min": Saved(()), "self": F32_X},
    ),
    (
        "sort",
        lambda T, F, i: i["x"].sort(1)[0],
        "SortBackward0",
        {"dim": 1, "indices": Saved((2, 3), IDX), "self_sym_sizes": (2, 3)},
    ),
    (
        "topk",
        lambda T, F, i: i["x"].topk(2, dim=1)[0],
        "TopkBackward0",
        {"dim": 1, "indices": Saved((2, 2), IDX), "self_sym_sizes": (2, 3)},
    ),
    (
        "mm",
        lambda T, F, i: i["x"] @ i["w"].t(),
        "MmBackward0",
        {
            "self": F32_X,
            "self_sym_sizes": (2, 3),
            "self_sym_strides": (3, 1),
            "mat2": Saved((3, 2)),
            "mat2_sym_sizes": (3, 2),
            "mat2_sym_strides": (1, 3),
        },
    ),
    (
        "mv",
        lambda T, F, i: i["x"] @ i["v"],
        "MvBackward0",
        {"self": F32_X, "vec": Saved((3,), is_input="v")},
    ),
    (
        "linear",
        lambda T, F, i: F.linear(i["x"], i["w"], i["b"]),
        "AddmmBackward0",
        {
            "alpha": 1,
            "beta": 1,
            "mat1": F32_X,
            "mat1_sym_sizes": (2, 3),
            "mat1_sym_strides": (3, 1),
            "mat2": Saved((3, 2)),
            "mat2_sym_sizes": (3, 2),
            "mat2_sym_strides": (1, 3),
        },
    ),
    (
        "addmm_scaled",
        lambda T, F, i: T.addmm(i["b"].unsqueeze(1), i["x"], i["w"].t(), beta=0.5, alpha=2),
        "AddmmBackward0",
        {
            "alpha": 2,
            "beta": 0.5,
            "mat1": F32_X,
            "mat1_sym_sizes": (2, 3),
            "mat1_sym_strides": (3, 1),
            "mat2": Saved((3, 2)),
            "mat2_sym_sizes": (3, 2),
            "mat2_sym_strides": (1, 3),
        },
    ),
    (
        "addmm_float_alpha",
        lambda T, F, i: T.addmm(i["b"].unsqueeze(1), i["x"], i["w"].t(), alpha=2.0),
        "AddmmBackward0",
        {
            "alpha": 2.0,
            "beta": 1,
            "mat1": F32_X,
            "mat1_sym_sizes": (2, 3),
            "mat1_sym_strides": (3, 1),
            "mat2": Saved((3, 2)),
            "mat2_sym_sizes": (3, 2),
            "mat2_sym_strides": (1, 3),
        },
    ),
    ("view", lambda T, F, i: i["x"].view(3, 2), "ViewBackward0", {"self_sym_sizes": (2, 3)}),
    ("reshape", lambda T, F, i: i["x"].reshape(-1), "ViewBackward0", {"self_sym_sizes": (2, 3)}),
    (
        "transpose",
        lambda T, F, i: i["x"].transpose(0, 1),
        "TransposeBackward0",
        {"dim0": 0, "dim1": 1},
    ),
    ("t", lambda T, F, i: i["x"].t(), "TBackward0", {}),
    ("permute", lambda T, F, i: i["x"].permute(1, 0), "PermuteBackward0", {"dims": (1, 0)}),
    (
        "squeeze",
        lambda T, F, i: i["x"].unsqueeze(1).squeeze(),
        "SqueezeBackward0",
        {"self_sym_sizes": (2, 1, 3)},
    ),
    (
        "squeeze_dim",
        lambda T, F, i: i["x"].unsqueeze(1).squeeze(1),
        "SqueezeBackward1",
        {"dim": 1, "self_sym_sizes": (2, 1, 3)},
    ),
    ("unsqueeze", lambda T, F, i: i["x"].unsqueeze(1), "UnsqueezeBackward0", {"dim": 1}),
    (
        "expand",
        lambda T, F, i: i["b"].unsqueeze(1).expand(2, 3),
        "ExpandBackward0",
        {"self_sym_sizes": (2, 1)},
    ),
    (
        "repeat",
        lambda T, F, i: i["x"].repeat(2, 1),
        "RepeatBackward0",
        {"repeats": (2, 1), "self_sym_sizes": (2, 3)},
    ),
    (
        "select",
        lambda T, F, i: i["x"][0],
        "SelectBackward0",
        {"dim": 0, "index": 0, "self_sym_sizes": (2, 3)},
    ),
    (
        "select_negative",
        lambda T, F, i: i["x"].select(1, -1),
        "SelectBackward0",
        {"dim": 1, "index": 2**64 - 1, "self_sym_sizes": (2, 3)},
    ),
    (
        "slice_open",
        lambda T, F, i: i["x"][:, 1:],
        "SliceBackward0",
        {"dim": 1, "start": 1, "end": 2**63 - 1, "step": 1, "self_sym_sizes": (2, 3)},
    ),
    (
        "slice_step",
        lambda T, F, i: i["x"][:, 0:3:2],
        "SliceBackward0",
        {"dim": 1, "start": 0, "end": 3, "step": 2, "self_sym_sizes": (2, 3)},
    ),
    (
        "narrow",
        lambda T, F, i: i["x"].narrow(1, 0, 2),
        "SliceBackward0",
        {"dim": 1, "start": 0, "end": 2, "step": 1, "self_sym_sizes": (2, 3)},
    ),
    (
        "index_tensor",
        lambda T, F, i: i["x"][T.tensor([1, 0])],
        "IndexBackward0",
        {"indices": (Saved((2,), IDX),), "self_sym_sizes": (2, 3)},
    ),
    (
        "index_select",
        lambda T, F, i: i["x"].index_select(1, T.tensor([0, 2])),
        "IndexSelectBackward0",
        {"dim": 1, "index": Saved((2,), IDX), "self_sym_sizes": (2, 3)},
    ),
    (
        "masked_fill",
        lambda T, F, i: i["x"].masked_fill(i["x"] > 0, 0.0),
        "MaskedFillBackward0",
        {"mask": Saved((2, 3), "bool")},
    ),
    (
        "gather",
        lambda T, F, i: i["x"].gather(1, T.tensor([[0], [2]])),
        "GatherBackward0",
        {"dim": 1, "index": Saved((2, 1), IDX), "sparse_grad": False},
    ),
    (
        "take",
        lambda T, F, i: i["x"].take(T.tensor([0, -1])),
        "TakeBackward0",
        {"index": Saved((2,), IDX)},
    ),
    (
        "scatter_value",
        lambda T, F, i: i["x"].scatter(1, T.tensor([[0], [2]]), 0.5),
        "ScatterBackward1",
        {"dim": 1, "index": Saved((2, 1), IDX)},
    ),
    (
        "scatter_add",
        lambda T, F, i: i["x"].scatter_add(0, T.tensor([[1, 0, 1]]), i["v"].unsqueeze(0)),
        "ScatterAddBackward0",
        {"dim": 0, "index": Saved((1, 3), IDX)},
    ),
    ("tril", lambda T, F, i: i["x"].tril(), "TrilBackward0", {"diagonal": 0}),
    ("triu_negative", lambda T, F, i: i["x"].triu(-1), "TriuBackward0", {"diagonal": 2**64 - 1}),
    (
        "diag_embed",
        lambda T, F, i: T.diag_embed(i["x"], 1, 0, 2),
        "DiagEmbedBackward0",
        {"dim1": 0, "dim2": 2, "offset": 1},
    ),
    (
        "diag",
        lambda T, F, i: T.diag(i["v"]),
        "DiagEmbedBackward0",
        {"dim1": 2**64 - 2, "dim2": 2**64 - 1, "offset": 0},
    ),
    (
        "pad",
        lambda T, F, i: F.pad(i["x"], (1, -1, 0, 2)),
        "ConstantPadNdBackward0",
        {"pad": (1, 2**64 - 1, 0, 2)},
    ),
    (
        "pad_value",
        lambda T, F, i: F.pad(i["x"], (0, 0, 1, 1), value=2.0),
        "ConstantPadNdBackward0",
        {"pad": (0, 0, 1, 1)},
    ),
    ("flip", lambda T, F, i: i["x"].flip(0), "FlipBackward0", {"dims": (0,)}),
    (
        "chunk",
        lambda T, F, i: i["x"].chunk(3, 1)[0],
        "SplitBackward0",
        {"dim": 1, "self_sym_sizes": (2, 3), "split_size": 1},
    ),
    (
        "split_sizes",
        lambda T, F, i: i["x"].split([1, 2], 1)[1],
        "SplitWithSizesBackward0",
        {"dim": 1, "self_sym_sizes": (2, 3), "split_sizes": (1, 2)},
    ),
    ("unbind", lambda T, F, i: i["x"].unbind(0)[0], "UnbindBackward0", {"dim": 0}),
    ("clone", lambda T, F, i: i["x"].clone(), "CloneBackward0", {}),
    ("cat", lambda T, F, i: T.cat([i["x"], i["w"]]), "CatBackward0", {"dim": 0}),
    ("stack", lambda T, F, i: T.stack([i["x"], i["w"]], 1), "StackBackward0", {"dim": 1}),
    (
        "softmax",
        lambda T, F, i: i["x"].softmax(1),
        "SoftmaxBackward0",
        {"dim": 1, "result": F32},
    ),
    (
        "mse_loss",
        lambda T, F, i: F.mse_loss(i["x"], i["w"], reduction="sum"),
        "MseLossBackward0",
        {"reduction": 2, "self": F32_X, "target": Saved((2, 3), is_input="w")},
    ),
    (
        "huber_loss",
        lambda T, F, i: F.huber_loss(i["x"], i["w"], delta=0.5),
        "HuberLossBackward0",
        {"delta": 0.5, "reduction": 1, "self": F32_X, "target": F32},
    ),
    (
        "bce_logits",
        lambda T, F, i: F.binary_cross_entropy_with_logits(i["x"], i["w"].sigmoid()),
        "BinaryCrossEntropyWithLogitsBackward0",
        {"pos_weight": None, "reduction": 1, "self": F32_X, "target": F32, "weight": None},
    ),
    (
        "nll_loss",
        lambda T, F, i: F.nll_loss(i["x"], T.tensor([0, 2])),
        "NllLossBackward0",
        {
            "ignore_index": 2**64 - 100,
            "reduction": 1,
            "self": F32_X,
            "target": Saved((2,), IDX),
            "total_weight": Saved(()),
            "weight": None,
        },
    ),
    (
        "nll_loss_weighted",
        lambda T, F, i: F.nll_loss(
            i["x"], T.tensor([0, 2]), T.tensor([1.0, 2.0, 3.0]), ignore_index=2, reduction="sum"
        ),
        "NllLossBackward0",
        {
            "ignore_index": 2,
            "reduction": 2,
            "self": F32_X,
            "target": Saved((2,), IDX),
            "total_weight": Saved(()),
            "weight": Saved((3,)),
        },
    ),
    (
        "nll_loss_2d",
        lambda T, F, i: F.nll_loss(i["x"].view(1, 2, 3, 1), T.tensor([[[0], [1], [1]]])),
        "NllLoss2DBackward0",
        {
            "ignore_index": 2**64 - 100,
            "reduction": 1,
            "self": Saved((1, 2, 3, 1)),
            "target": Saved((1, 3, 1), IDX),
            "total_weight": Saved(()),
            "weight": None,
        },
    ),
    (
        "layer_norm",
        lambda T, F, i: F.layer_norm(i["x"], (3,), i["v"]),
        "NativeLayerNormBackward0",
        {
            "bias": None,
            "input": F32_X,
            "normalized_shape": (3,),
            "result1": Saved((2, 1)),
            "result2": Saved((2, 1)),
            "weight": Saved((3,), is_input="v"),
        },
    ),
    (
        "layer_norm_bias_only",
        lambda T, F, i: F.layer_norm(i["x"], (2, 3), None, i["x"].detach()),
        "NativeLayerNormBackward0",
        {
            "bias": Saved((2, 3)),
            "input": F32_X,
            "normalized_shape": (2, 3),
            "result1": Saved((1, 1)),
            "result2": Saved((1, 1)),
            "weight": None,
        },
    ),
    (
        "batch_norm_training",
        lambda T, F, i: F.batch_norm(i["x"], T.zeros(3), T.ones(3), i["v"], training=True),
        "NativeBatchNormBackward0",
        {
            "eps": 1e-5,
            "input": F32_X,
            "result1": Saved((3,)),
            "result2": Saved((3,)),
            "running_mean": Saved((3,)),
            "running_var": Saved((3,)),
            "training": True,
            "weight": Saved((3,), is_input="v"),
        },
    ),
    (
        "batch_norm_eval",
        lambda T, F, i: F.batch_norm(i["x"], T.zeros(3), T.ones(3), eps=0.1),
        "NativeBatchNormBackward0",
        {
            "eps": 0.1,
            "input": F32_X,
            "result1": Saved((0,)),
            "result2": Saved((0,)),
            "running_mean": Saved((3,)),
            "running_var": Saved((3,)),
            "training": False,
            "weight": None,
        },
    ),
    (
        "group_norm",
        lambda T, F, i: F.group_norm(i["x"].view(1, 2, 3), 2, i["b"]),
        "NativeGroupNormBackward0",
        {
            "C": 2,
            "HxW": 3,
            "N": 1,
            "eps": 1e-5,
            "group": 2,
            "input": Saved((1, 2, 3)),
            "result1": Saved((1, 2)),
            "result2": Saved((1, 2)),
            "weight": Saved((2,), is_input="b"),
        },
    ),
    (
        "conv2d",
        lambda T, F, i: F.conv2d(
            T.arange(32.0).reshape(1, 2, 4, 4).requires_grad_(),
            T.ones(3, 2, 2, 2, requires_grad=True),
            T.zeros(3, requires_grad=True),
            stride=2,
            padding=1,
        ),
        "ConvolutionBackward0",
        {
            "bias_sym_sizes_opt": (3,),
            "dilation": (1, 1),
            "groups": 1,
            "input": Saved((1, 2, 4, 4)),
            "output_padding": (0, 0),
            "padding": (1, 1),
            "stride": (2, 2),
            "transposed": False,
            "weight": Saved((3, 2, 2, 2)),
        },
    ),
    (
        "conv_transpose2d",
        lambda T, F, i: F.conv_transpose2d(
            T.arange(18.0).reshape(1, 2, 3, 3).requires_grad_(),
            T.ones(2, 3, 3, 2, requires_grad=True),
            None,
            stride=(3, 2),
            padding=(1, 0),
            output_padding=(2, 1),
            dilation=(1, 2),
        ),
        "ConvolutionBackward0",
        {
            "bias_sym_sizes_opt": (0,),
            "dilation": (1, 2),
            "groups": 1,
            "input": Saved((1, 2, 3, 3)),
            "output_padding": (2, 1),
            "padding": (1, 0),
            "stride": (3, 2),
            "transposed": True,
            "weight": Saved((2, 3, 3, 2)),
        },
    ),
    (
        "max_unpool2d",
        lambda T, F, i: F.max_unpool2d(
            *F.max_pool2d(i["x"].view(1, 1, 2, 3), (2, 1), return_indices=True), (2, 1)
        ),
        "MaxUnpool2DBackward0",
        {"indices": Saved((1, 1, 1, 3), IDX)},
    ),
    (
        "max_unpool3d",
        lambda T, F, i: F.max_unpool3d(
            *F.max_pool3d(i["x"].view(1, 1, 1, 2, 3), (1, 1, 3), return_indices=True),
            (1, 1, 3),
        ),
        "MaxUnpool3DBackward0",
        {"indices": Saved((1, 1, 1, 2, 1), IDX)},
    ),
    (
        "channel_shuffle",
        lambda T, F, i: F.channel_shuffle(i["x"].view(1, 6, 1), 3),
        "ChannelShuffleBackward0",
        {"groups": 3},
    ),
    (
        "unfold",
        lambda T, F, i: F.unfold(i["x"].view(1, 1, 2, 3), (1, 2), padding=(0, 1), stride=2),
        "Im2ColBackward0",
        {
            "dilation": (1, 1),
            "kernel_size": (1, 2),
            "padding": (0, 1),
            "self_sym_argsize_minus_1": 3,
            "self_sym_argsize_minus_2": 2,
            "stride": (2, 2),
        },
    ),
    (
        "fold",
        lambda T, F, i: F.fold(i["x"].view(1, 2, 3), (2, 3), (2, 1)),
        "Col2ImBackward0",
        {"dilation": (1, 1), "kernel_size": (2, 1), "padding": (0, 0), "stride": (1, 1)},
    ),
    (
        "max_pool2d",
        lambda T, F, i: F.max_pool2d(i["x"].view(1, 1, 2, 3), 2, padding=1),
        "MaxPool2DWithIndicesBackward0",
        {
            "ceil_mode": False,
            "dilation": (1, 1),
            "kernel_size": (2, 2),
            "padding": (1, 1),
            "result1": Saved((1, 1, 2, 2), IDX),
            "self": Saved((1, 1, 2, 3)),
            "stride": (),
        },
    ),
    (
        "max_pool2d_module",
        lambda T, F, i: T.nn.MaxPool2d((1, 2))(i["x"].view(1, 2, 3)),
        "MaxPool2DWithIndicesBackward0",
        {
            "ceil_mode": False,
            "dilation": (1, 1),
            "kernel_size": (1, 2),
            "padding": (0, 0),
            "result1": Saved((1, 2, 1), IDX),
            "self": Saved((1, 2, 3)),
            "stride": (1, 2),
        },
    ),
    (
        "avg_pool2d",
        lambda T, F, i: F.avg_pool2d(
            i["x"].view(1, 1, 2, 3), (1, 2), 1, count_include_pad=False, divisor_override=3
        ),
        "AvgPool2DBackward0",
        {
            "ceil_mode": False,
            "count_include_pad": False,
            "divisor_override": 3,
            "kernel_size": (1, 2),
            "padding": (0, 0),
            "self": Saved((1, 1, 2, 3)),
            "stride": (1, 1),
        },
    ),
    (
        "adaptive_max_pool2d",
        lambda T, F, i: F.adaptive_max_pool2d(i["x"].view(1, 1, 2, 3), (1, 2)),
        "AdaptiveMaxPool2DBackward0",
        {"result1": Saved((1, 1, 1, 2), IDX), "self": Saved((1, 1, 2, 3))},
    ),
    (
        "upsample_bilinear",
        lambda T, F, i: F.interpolate(i["x"].view(1, 1, 2, 3), scale_factor=2, mode="bilinear"),
        "UpsampleBilinear2DBackward0",
        {
            "align_corners": False,
            "output_size": (4, 6),
            "scales_h": 2.0,
            "scales_w": 2.0,
            "self_sym_sizes": (1, 1, 2, 3),
        },
    ),
    (
        "upsample_nearest_size",
        lambda T, F, i: F.interpolate(i["x"].view(1, 2, 3), size=5),
        "UpsampleNearest1DBackward0",
        {"output_size": (5,), "scales": None, "self_sym_sizes": (1, 2, 3)},
    ),
    (
        "roll",
        lambda T, F, i: i["x"].roll((1, -1), (0, -1)),
        "RollBackward0",
        {"dims": (0, 2**64 - 1), "shifts": (1, 2**64 - 1)},
    ),
    ("roll_flat", lambda T, F, i: i["x"].roll(2), "RollBackward0", {"dims": (), "shifts": (2,)}),
    (
        "logit",
        lambda T, F, i: i["x"].sigmoid().logit(),
        "LogitBackward0",
        {"eps": None, "self": F32},
    ),
    (
        "logit_eps",
        lambda T, F, i: i["x"].sigmoid().logit(0.25),
        "LogitBackward0",
        {"eps": 0.25, "self": F32},
    ),
    (
        "pdist",
        lambda T, F, i: F.pdist(i["x"], 1.5),
        "PdistBackward0",
        {"p": 1.5, "result": Saved((1,)), "self": F32_X},
    ),
    (
        "baddbmm",
        lambda T, F, i: T.baddbmm(
            T.ones(1, 2, 2), i["x"].view(1, 2, 3), i["w"].view(1, 3, 2), beta=0.5, alpha=2
        ),
        "BaddbmmBackward0",
        {"alpha": 2, "batch1": Saved((1, 2, 3)), "batch2": Saved((1, 3, 2)), "beta": 0.5},
    ),
    (
        "addmv",
        lambda T, F, i: T.addmv(i["b"], i["x"], T.ones(3)),
        "AddmvBackward0",
        {"alpha": 1, "beta": 1, "mat": None, "vec": Saved((3,))},
    ),
    (
        "grid_sample",
        lambda T, F, i: F.grid_sample(
            i["x"].view(1, 1, 2, 3), i["w"].view(1, 1, 3, 2), align_corners=False
        ),
        "GridSampler2DBackward0",
        {
            "align_corners": False,
            "grid": Saved((1, 1, 3, 2)),
            "input": Saved((1, 1, 2, 3)),
            "interpolation_mode": 0,
            "padding_mode": 0,
        },
    ),
    (
        "grid_sample_bicubic_reflection",
        lambda T, F, i: F.grid_sample(
            i["x"].view(1, 1, 2, 3),
            i["w"].view(1, 3, 1, 2),
            mode="bicubic",
            padding_mode="reflection",
            align_corners=True,
        ),
        "GridSampler2DBackward0",
        {
            "align_corners": True,
            "grid": Saved((1, 3, 1, 2)),
            "input": Saved((1, 1, 2, 3)),
            "interpolation_mode": 2,
            "padding_mode": 2,
        },
    ),
    (
        "grid_sample_3d_nearest_border",
        lambda T, F, i: F.grid_sample(
            i["x"].view(1, 1, 1, 2, 3),
            i["w"].view(1, 1, 1, 2, 3),
            mode="nearest",
            padding_mode="border",
            align_corners=False,
        ),
        "GridSampler3DBackward0",
        {
            "align_corners": False,
            "grid": Saved((1, 1, 1, 2, 3)),
            "input": Saved((1, 1, 1, 2, 3)),
            "interpolation_mode": 1,
            "padding_mode": 1,
        },
    ),
    (
        "affine_grid",
        lambda T, F, i: F.affine_grid(i["x"].view(1, 2, 3), (1, 1, 2, 2), align_corners=True),
        "AffineGridGeneratorBackward0",
        {"align_corners": True, "size": (1, 1, 2, 2)},
    ),
    (
        "fractional_max_pool2d",
        lambda T, F, i: F.fractional_max_pool2d(
            i["x"].view(1, 1, 2, 3), 2, output_size=(1, 2), _random_samples=T.full((1, 1, 2), 0.5)
        ),
        "FractionalMaxPool2DBackward0",
        {
            "kernel_size": (2, 2),
            "output_size": (1, 2),
            "result1": Saved((1, 1, 1, 2), IDX),
            "self": Saved((1, 1, 2, 3)),
        },
    ),
    (
        "fractional_max_pool3d",
        lambda T, F, i: F.fractional_max_pool3d(
            T.arange(8.0).view(1, 1, 2, 2, 2).requires_grad_(),
            1,
            output_size=1,
            _random_samples=T.full((1, 1, 3), 0.5),
        ),
        "FractionalMaxPool3DBackward0",
        {
            "kernel_size": (1, 1, 1),
            "output_size": (1, 1, 1),
            "result1": Saved((1, 1, 1, 1, 1), IDX),
            "self": Saved((1, 1, 2, 2, 2)),
        },
    ),
    (
        "embedding",
        lambda T, F, i: F.embedding(T.tensor([0, 1]), i["w"]),
        "EmbeddingBackward0",
        {
            "indices": Saved((2,), IDX),
            "padding_idx": 2**64 - 1,
            "scale_grad_by_freq": False,
            "sparse": False,
            "weight_sym_argsize_0": 2,
        },
    ),
]
IDS = [c[0] for c in CASES]

# names PyTorch's node shows that symgrad's does not (it keeps no copy of the input there)
ABSENT = {"gather": {"self"}, "take": {"self"}}


def _saved(node):
    """{name: value} of every ``_saved_<name>`` the node lists in ``dir``."""
    names = [n for n in dir(node) if n.startswith("_saved_")]
    return {n[len("_saved_") :]: getattr(node, n) for n in names}


def _matches(found, expected, inputs):
    if isinstance(expected, Saved):
        if not hasattr(found, "shape"):
            return False
        same = tuple(found.shape) == expected.shape and str(found.dtype).endswith(expected.dtype)
        return same and (expected.is_input is None or found is inputs[expected.is_input])
    if isinstance(expected, tuple) and expected and isinstance(expected[0], Saved):
        return len(found) == len(expected) and all(
            _matches(f, e, inputs) for f, e in zip(found, expected)
        )
    return found == expected and type(found) is type(expected)


@pytest.mark.parametrize("case, fn, node_name, expected", CASES, ids=IDS)
def test_saved_names_and_values(case, fn, node_name, expected):
    inputs = _inputs(symgrad)
    node = fn(symgrad, symgrad.nn.functional, inputs).grad_fn
    assert node.name() == node_name
    found = _saved(node)
    assert sorted(found) == sorted(expected)
    wrong = {n: found[n] for n in expected if not _matches(found[n], expected[n], inputs)}
    assert not wrong, f"{case}: {wrong} (expected {[expected[n] for n in wrong]})"


def test_nll_loss_total_weight_is_the_weight_of_the_targets_not_ignored():
    x = symgrad.tensor(X, requires_grad=True)
    w = symgrad.tensor([1.0, 2.0, 3.0])
    node = symgrad.nn.functional.nll_loss(x, symgrad.tensor([0, 2]), w).grad_fn
    assert node._saved_total_weight.item() == 4.0 and node._saved_weight is w
    node = symgrad.nn.functional.nll_loss(x, symgrad.tensor([0, 2]), reduction="none").grad_fn
    assert node._saved_total_weight.item() == 0.0


def test_a_normalization_shows_its_statistics_and_the_running_ones_given():
    x = symgrad.tensor(X, requires_grad=True)
    node = symgrad.nn.functional.layer_norm(x, (3,)).grad_fn
    np.testing.assert_allclose(node._saved_result1.numpy().ravel(), [0.5, 0.3667], atol=1e-4)
    np.testing.assert_allclose(node._saved_result2.numpy().ravel(), [0.81649, 1.11187], atol=1e-5)
    mean, var = symgrad.zeros(3), symgrad.ones(3)
    node = symgrad.nn.functional.batch_norm(x, mean, var, training=True).grad_fn
    assert node._saved_running_mean is mean and node._saved_running_var is var
    np.testing.assert_allclose(node._saved_result1.numpy(), [1.0, -0.35, 0.65], atol=1e-6)


def test_max_pooling_shows_the_flat_positions_of_its_maxima():
    x = symgrad.tensor(X, requires_grad=True).view(1, 1, 2, 3)
    node = symgrad.nn.functional.max_pool2d(x, (2, 2), 1).grad_fn
    assert node._saved_result1.tolist() == [[[[3, 2]]]]


def test_a_saved_tensor_read_after_backward_raises_and_a_number_does_not():
    x = symgrad.tensor(X, requires_grad=True)
    y = x.max(1)[0]
    y.sum().backward()
    node = y.grad_fn
    with pytest.raises(RuntimeError, match="freed"):
        _ = node._saved_indices
    assert node._saved_dim == 1 and node._saved_self_sym_sizes == (2, 3)
    z = x * x
    z.sum().backward()
    with pytest.raises(RuntimeError, match="freed"):
        _ = z.grad_fn._saved_self


@pytest.mark.parametrize("pick", ["max", "sort", "topk"])
def test_a_second_backward_through_picked_positions_raises(pick):
    x = symgrad.tensor(X, requires_grad=True)
    y = {"max": lambda: x.max(1)[0], "sort": lambda: x.sort(1)[0], "topk": lambda: x.topk(2)[0]}
    loss = y[pick]().sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_a_name_the_node_does_not_save_is_an_attribute_error():
    x = symgrad.tensor(X, requires_grad=True)
    node = (x * 2).grad_fn
    assert "_saved_self_sym_sizes" not in dir(node)
    with pytest.raises(AttributeError):
        _ = node._saved_self_sym_sizes
    with pytest.raises(AttributeError):
        _ = x.sum(1).grad_fn._raw_saved_dim


@pytest.mark.torch
@pytest.mark.parametrize("case, fn, node_name, expected", CASES, ids=IDS)
def test_saved_names_and_values_agree_with_torch(case, fn, node_name, expected):
    torch = pytest.importorskip("torch")
    t_inputs, s_inputs = _inputs(torch), _inputs(symgrad)
    t_node = fn(torch, torch.nn.functional, t_inputs).grad_fn
    s_node = fn(symgrad, symgrad.nn.functional, s_inputs).grad_fn
    assert s_node.name() == t_node.name() == node_name
    t_saved, s_saved = _saved(t_node), _saved(s_node)
    absent = ABSENT.get(case, set())
    assert sorted(s_saved) == sorted(set(t_saved) - absent)
    for name, t_value in t_saved.items():
        if name in absent:
            continue
        s_value = s_saved[name]
        if isinstance(t_value, torch.Tensor):
            np.testing.assert_allclose(s_value.detach().numpy(), t_value.detach().numpy(), 1e-6)
            assert str(s_value.dtype) == str(t_value.dtype).replace("torch", "symgrad")
        elif isinstance(t_value, tuple) and t_value and isinstance(t_value[0], torch.Tensor):
            assert [s.tolist() for s in s_value] == [t.tolist() for t in t_value]
        else:
            assert s_value == t_value and type(s_value) is type(t_value), name
