"""Differences from PyTorch found in torch.nn.functional, the losses, torch.linalg and the data
utilities by running small programs both ways.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

from _torch_table import table_tests

F32 = "float32"


def _interpolate(T, dtype, mode="nearest", size=3):
    x = T.arange(4).reshape(1, 1, 2, 2).to(getattr(T, dtype))
    return T.nn.functional.interpolate(x, size=size, mode=mode)


def _pad(T, pads, mode, **kwargs):
    x = T.arange(5.0).reshape(1, 1, 5).requires_grad_()
    out = T.nn.functional.pad(x, pads, mode=mode, **kwargs)
    out.sum().backward()
    return out, x.grad


def _cdist(T, compute_mode):
    x1 = T.tensor([[0.0, 0.0], [1.0, 1.0]], requires_grad=True)
    out = T.cdist(x1, T.tensor([[3.0, 4.0], [0.0, 0.0]]), compute_mode=compute_mode)
    return out, type(out.grad_fn.next_functions[0][0]).__name__


def _attention(T, mask, dtype="float32", node=False):
    q = T.zeros(1, 2, 2, dtype=getattr(T, dtype), requires_grad=True)
    v = T.tensor([[[1.0, 3.0], [3.0, 5.0]]], dtype=q.dtype, requires_grad=True)
    out = T.nn.functional.scaled_dot_product_attention(q, q, v, attn_mask=mask)
    if node:  # the weights: the first input of the last matrix product (through its view)
        return type(
            out.grad_fn.next_functions[0][0]
            .next_functions[0][0]
            .next_functions[0][0]
            .next_functions[0][0]
        ).__name__
    out.sum().backward()
    return out, q.grad, v.grad


def _loss(T, name, input_dtype, target_dtype, **kwargs):
    x = T.tensor([0.25, 0.5], dtype=getattr(T, input_dtype), requires_grad=True)
    y = T.tensor([1.0, 0.0]).to(getattr(T, target_dtype))
    out = getattr(T.nn.functional, name)(x, y, **kwargs)
    out.backward()
    return out, x.grad


def _without_grad(T, fn):
    with T.no_grad():
        return fn()


def _loader_iterator(T, loader):
    batches = iter(loader)
    return len(batches), next(batches), next(batches)


def _weighted_loss(T, name, reduction):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = getattr(T.nn.functional, name)(
        x, T.zeros(3), reduction=reduction, weight=T.tensor([1.0, 0.0, 2.0])
    )
    out.sum().backward()
    return out, x.grad


def _linear_cross_entropy(T, target, **kwargs):
    x = T.tensor([[1.0, 1.0], [2.0, 2.0]], requires_grad=True)
    out = T.nn.functional.linear_cross_entropy(x, T.ones(2, 2), target, **kwargs)
    out.sum().backward()
    return out, x.grad


def _node_chain(out, length=3):
    """The names of the first ``length`` nodes from ``out`` along first inputs."""
    names, node = [], out.grad_fn
    while node is not None and len(names) < length:
        names.append(type(node).__name__)
        node = node.next_functions[0][0]
    return tuple(names)


def _linalg_out(T):
    out = T.empty(0)
    result = T.linalg.inv(T.eye(2) * 2, out=out)
    return result is out, out


def _linalg_out_tuple(T):
    sign, logabsdet = T.empty(0), T.empty(0)
    result = T.linalg.slogdet(T.eye(2) * 2, out=(sign, logabsdet))
    return result[0] is sign, result.logabsdet is logabsdet, sign, logabsdet


def _empty_max_pool(T):
    x = T.zeros(0, 3, 4, 4, requires_grad=True)
    out, indices = T.nn.functional.max_pool2d(x, 2, return_indices=True)
    out.sum().backward()
    return list(out.shape), type(out.grad_fn).__name__, list(indices.shape), list(x.grad.shape)


CASES = {
    # -- interpolate: uint8 is the only non-floating dtype PyTorch's kernels take
    "interpolate_nearest_uint8": (
        lambda T: _interpolate(T, "uint8"),
        ([[[[0, 0, 1], [0, 0, 1], [2, 2, 3]]]], "uint8", None),
    ),
    "interpolate_nearest_int64": (
        lambda T: _interpolate(T, "int64"),
        ("raises", "NotImplementedError"),
    ),
    "interpolate_nearest_exact_int32": (
        lambda T: _interpolate(T, "int32", "nearest-exact"),
        ("raises", "NotImplementedError"),
    ),
    "interpolate_nearest_int8_1d": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2, dtype=T.int8), size=3),
        ("raises", "NotImplementedError"),
    ),
    # -- pad: circular padding wraps what negative pads leave
    "pad_circular_crop_right": (
        lambda T: _pad(T, (-1, 2), "circular"),
        (
            ([[[1.0, 2.0, 3.0, 4.0, 1.0, 2.0]]], F32, "CopySlices"),
            ([[[0.0, 2.0, 2.0, 1.0, 1.0]]], F32, None),
        ),
    ),
    "pad_circular_crop_left": (
        lambda T: _pad(T, (3, -2), "circular"),
        (
            ([[[0.0, 1.0, 2.0, 0.0, 1.0, 2.0]]], F32, "CopySlices"),
            ([[[2.0, 2.0, 2.0, 0.0, 0.0]]], F32, None),
        ),
    ),
    "pad_circular_wraps_twice": (
        lambda T: _pad(T, (-2, 4), "circular"),
        ("raises", "RuntimeError"),
    ),
    "pad_reflect_value": (
        lambda T: _pad(T, (1, 1), "reflect", value=1.0),
        ("raises", "RuntimeError"),
    ),
    # -- cdist: PyTorch's node for its matrix-product path, and its compute_mode check
    "cdist_matrix_product_node": (
        lambda T: _cdist(T, "use_mm_for_euclid_dist"),
        (([[5.0, 0.0], [3.6056, 1.4142]], F32, "ViewBackward0"), "EuclideanDistBackward0"),
    ),
    "cdist_many_rows_node": (
        lambda T: type(T.cdist(T.zeros(26, 2, requires_grad=True), T.ones(1, 2)).grad_fn).__name__,
        "ViewBackward0",
    ),
    "cdist_differences_node": (
        lambda T: _cdist(T, "use_mm_for_euclid_dist_if_necessary")[0],
        ([[5.0, 0.0], [3.6056, 1.4142]], F32, "CdistBackward0"),
    ),
    "cdist_bad_compute_mode": (lambda T: _cdist(T, "mm"), ("raises", "ValueError")),
    # -- activations with floating-only kernels refuse integer and bool tensors
    **{
        f"{name}_integer": (
            lambda T, name=name: getattr(T.nn.functional, name)(T.tensor([1, -2])),
            ("raises", "NotImplementedError"),
        )
        for name in ("gelu", "silu", "elu", "softplus", "leaky_relu")
    },
    "gelu_tanh_bool": (
        lambda T: T.nn.functional.gelu(T.tensor([True]), approximate="tanh"),
        ("raises", "NotImplementedError"),
    ),
    "elu_inplace_integer": (
        lambda T: T.nn.functional.elu(T.tensor([1, -2]), inplace=True),
        ("raises", "NotImplementedError"),
    ),
    "leaky_relu_inplace_integer": (
        lambda T: T.nn.functional.leaky_relu_(T.tensor([1, -2])),
        ("raises", "NotImplementedError"),
    ),
    "silu_inplace_integer": (
        lambda T: T.nn.functional.silu(T.tensor([1, -2]), inplace=True),
        ("raises", "NotImplementedError"),
    ),
    "softplus_float": (
        lambda T: T.nn.functional.softplus(T.tensor([0.0, 30.0]), beta=2, threshold=5),
        ([0.3466, 30.0], F32, None),
    ),
    # -- scaled_dot_product_attention: a query that sees no key gets zeros, as PyTorch's
    # reference path (its safe softmax); PyTorch's mask dtypes
    "sdpa_all_masked_row": (
        lambda T: _attention(T, T.tensor([[True, False], [False, False]])),
        (
            ([[[1.0, 3.0], [0.0, 0.0]]], F32, "UnsafeViewBackward0"),
            ([[[0.0, 0.0], [0.0, 0.0]]], F32, None),
            ([[[1.0, 1.0], [0.0, 0.0]]], F32, None),
        ),
    ),
    "sdpa_all_minus_inf_bias": (
        lambda T: _attention(T, T.tensor([[0.0, 0.0], [-math.inf, -math.inf]]))[0],
        ([[[2.0, 4.0], [0.0, 0.0]]], F32, "UnsafeViewBackward0"),
    ),
    "sdpa_safe_softmax_node": (
        lambda T: _attention(T, T.tensor([[True, False], [False, False]]), node=True),
        "SafeSoftmaxBackward0",
    ),
    "sdpa_int_mask": (
        lambda T: _attention(T, T.tensor([[1, 0], [0, 0]])),
        ("raises", "RuntimeError"),
    ),
    "sdpa_float16_mask_of_float64": (
        lambda T: _attention(T, T.zeros(2, 2, dtype=T.float16)),
        ("raises", "RuntimeError"),
    ),
    "sdpa_float32_mask_of_float64": (
        lambda T: _attention(T, T.zeros(2, 2), dtype="float64")[0],
        ([[[2.0, 4.0], [2.0, 4.0]]], "float64", "UnsafeViewBackward0"),
    ),
    # -- losses: PyTorch's dtypes (promoted; logits in the target's dtype; one dtype for
    # binary_cross_entropy), integer inputs, and weights that cannot require grad
    "mse_promotes": (
        lambda T: _loss(T, "mse_loss", "float32", "float64"),
        ((0.4062, "float64", "MseLossBackward0"), ([-0.75, 0.5], F32, None)),
    ),
    "l1_promotes": (
        lambda T: _loss(T, "l1_loss", "float16", "float32")[0],
        (0.625, F32, "MeanBackward0"),
    ),
    "smooth_l1_promotes": (
        lambda T: _loss(T, "smooth_l1_loss", "float32", "float64")[0],
        (0.2031, "float64", "SmoothL1LossBackward0"),
    ),
    "kl_div_promotes": (
        lambda T: _loss(T, "kl_div", "float32", "float64", reduction="sum")[0],
        (-0.25, "float64", "SumBackward0"),
    ),
    "poisson_nll_promotes": (
        lambda T: _loss(T, "poisson_nll_loss", "float32", "float64")[0],
        (1.3414, "float64", "MeanBackward0"),
    ),
    "mse_integers": (
        lambda T: T.nn.functional.mse_loss(T.tensor([0, 1]), T.tensor([1, 0])),
        ("raises", "NotImplementedError"),
    ),
    "mse_integer_input": (
        lambda T: _loss(T, "mse_loss", "int64", "float32"),
        ("raises", "RuntimeError"),  # backward: an integer input cannot require grad
    ),
    "mse_integer_input_value": (
        lambda T: T.nn.functional.mse_loss(T.tensor([0, 1]), T.tensor([1.0, 0.0])),
        (1.0, F32, None),
    ),
    "smooth_l1_integers": (
        lambda T: T.nn.functional.smooth_l1_loss(T.tensor([0, 1]), T.tensor([1, 0])),
        ("raises", "NotImplementedError"),
    ),
    "huber_integer_input": (
        lambda T: T.nn.functional.huber_loss(T.tensor([0, 1]), T.tensor([1.0, 0.0])),
        ("raises", "RuntimeError"),
    ),
    "huber_in_input_dtype": (
        lambda T: T.nn.functional.huber_loss(T.tensor([0.25, 0.5]), T.tensor([1.0, 0.0]).double()),
        (0.2031, F32, None),
    ),
    "kl_div_integer_target": (
        lambda T: T.nn.functional.kl_div(T.tensor([-1.0, -2.0]), T.tensor([1, 0])),
        ("raises", "RuntimeError"),
    ),
    "l1_bool_target": (
        lambda T: T.nn.functional.l1_loss(T.tensor([0.5, 1.0]), T.tensor([True, False])),
        ("raises", "RuntimeError"),
    ),
    "bce_logits_in_target_dtype": (
        lambda T: _loss(T, "binary_cross_entropy_with_logits", "float64", "float32"),
        (
            (0.775, F32, "BinaryCrossEntropyWithLogitsBackward0"),
            ([-0.2189, 0.3112], "float64", None),
        ),
    ),
    "bce_logits_integer_target": (
        lambda T: _loss(T, "binary_cross_entropy_with_logits", "float32", "int64"),
        ("raises", "RuntimeError"),
    ),
    "bce_logits_integer_input": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.tensor([0, 1]), T.tensor([1.0, 0.0])
        ),
        ("raises", "NotImplementedError"),
    ),
    "bce_dtypes_differ": (
        lambda T: _loss(T, "binary_cross_entropy", "float32", "float64"),
        ("raises", "RuntimeError"),
    ),
    "bce_integers": (
        lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0, 1]), T.tensor([1, 0])),
        ("raises", "NotImplementedError"),
    ),
    "bce_weight_requires_grad": (
        lambda T: T.nn.functional.binary_cross_entropy(
            T.tensor([0.5]), T.tensor([1.0]), weight=T.ones(1, requires_grad=True)
        ),
        ("raises", "RuntimeError"),
    ),
    "bce_logits_weight_requires_grad": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.tensor([0.5]), T.tensor([1.0]), weight=T.ones(1, requires_grad=True)
        ),
        ("raises", "RuntimeError"),
    ),
    "bce_logits_weight_requires_grad_no_grad": (
        lambda T: _without_grad(
            T,
            lambda: T.nn.functional.binary_cross_entropy_with_logits(
                T.tensor([0.0]), T.tensor([1.0]), weight=T.ones(1, requires_grad=True)
            ),
        ),
        (0.6931, F32, None),
    ),
    "hinge_embedding_integer_margin": (
        lambda T: T.nn.functional.hinge_embedding_loss(
            T.tensor([1, 2]), T.tensor([1, -1]), margin=2.5, reduction="sum"
        ),
        (1, "int64", None),
    ),
    "hinge_embedding_integer_mean": (
        lambda T: T.nn.functional.hinge_embedding_loss(T.tensor([1, 2]), T.tensor([1, -1])),
        ("raises", "RuntimeError"),
    ),
    # -- DataLoader: its iterator has a length; worker-only options; PyTorch's collate path
    "dataloader_iterator_len": (
        lambda T: _loader_iterator(T, T.utils.data.DataLoader(list(range(5)), batch_size=2)),
        (3, ([0, 1], "int64", None), ([2, 3], "int64", None)),
    ),
    "dataloader_iterator_stops": (
        lambda T: list(iter(T.utils.data.DataLoader([1.0, 2.0], batch_size=None))),
        (1.0, 2.0),
    ),
    "dataloader_prefetch_without_workers": (
        lambda T: T.utils.data.DataLoader([1], prefetch_factor=2),
        ("raises", "ValueError"),
    ),
    "collate_module_path": (
        lambda T: __import__(
            T.__name__ + ".utils.data._utils.collate", fromlist=["_"]
        ).default_collate([1, 2]),
        ([1, 2], "int64", None),
    ),
    # -- pooling of integer tensors: PyTorch's int64 averages (sums truncated toward 0),
    # integer maxima, and its errors for the dtypes it has no kernel for
    "avg_pool2d_int64": (
        lambda T: T.nn.functional.avg_pool2d(T.arange(-8, 8).reshape(1, 1, 4, 4), 2),
        ([[[[-5, -3], [2, 4]]]], "int64", None),
    ),
    "avg_pool1d_int64_padded": (
        lambda T: T.nn.functional.avg_pool1d(
            T.arange(-4, 4).reshape(1, 1, 8), 3, 2, 1, count_include_pad=False
        ),
        ([[[-3, -2, 0, 2]]], "int64", None),
    ),
    "avg_pool3d_int64_divisor": (
        lambda T: T.nn.functional.avg_pool3d(
            T.arange(16).reshape(1, 1, 1, 4, 4), (1, 2, 2), divisor_override=3
        ),
        ([[[[[3, 6], [14, 16]]]]], "int64", None),
    ),
    "avg_pool2d_int32": (
        lambda T: T.nn.functional.avg_pool2d(T.ones(1, 1, 2, 2, dtype=T.int32), 2),
        ("raises", "NotImplementedError"),
    ),
    "max_pool2d_int": (
        lambda T: T.nn.functional.max_pool2d(
            T.arange(-8, 8).reshape(1, 1, 4, 4).to(T.int8), 3, 2, 1, return_indices=True
        ),
        (([[[[-3, -1], [5, 7]]]], "int8", None), ([[[[5, 7], [13, 15]]]], "int64", None)),
    ),
    "max_pool3d_uint8": (
        lambda T: T.nn.functional.max_pool3d(T.arange(8).reshape(1, 1, 2, 2, 2).to(T.uint8), 2),
        ([[[[[7]]]]], "uint8", None),
    ),
    "max_pool2d_bool": (
        lambda T: T.nn.functional.max_pool2d(T.ones(1, 1, 2, 2, dtype=T.bool), 2),
        ("raises", "NotImplementedError"),
    ),
    "max_pool1d_int": (
        lambda T: T.nn.functional.max_pool1d(T.arange(4).reshape(1, 1, 4), 2),
        ("raises", "NotImplementedError"),
    ),
    "max_pool1d_int_indices": (
        lambda T: T.nn.functional.max_pool1d(T.arange(4).reshape(1, 1, 4), 2, return_indices=True),
        (([[[1, 3]]], "int64", None), ([[[1, 3]]], "int64", None)),
    ),
    # -- linalg and float16: the norms take it (the SVD-based ones refuse it), PyTorch's
    # RuntimeErrors elsewhere rather than NumPy's TypeError; integers checked before dtype=
    "vector_norm_half": (
        lambda T: T.linalg.vector_norm(T.tensor([3.0, -4.0], dtype=T.float16), ord=1),
        (7.0, "float16", None),
    ),
    "matrix_norm_half": (
        lambda T: T.linalg.matrix_norm(T.tensor([[3.0, 0.0], [0.0, 4.0]], dtype=T.float16)),
        (5.0, "float16", None),
    ),
    "linalg_norm_half_inf": (
        lambda T: T.linalg.norm(T.tensor([[1.0, -2.0], [3.0, 4.0]], dtype=T.float16), ord=math.inf),
        (7.0, "float16", None),
    ),
    "matrix_norm_half_nuc": (
        lambda T: T.linalg.matrix_norm(T.eye(2, dtype=T.float16), ord="nuc"),
        ("raises", "RuntimeError"),
    ),
    "vector_norm_integer_dtype": (
        lambda T: T.linalg.vector_norm(T.tensor([3, 4]), dtype=T.float32),
        ("raises", "RuntimeError"),
    ),
    **{
        f"{name}_half": (
            lambda T, name=name: getattr(T.linalg, name)(T.eye(2, dtype=T.float16)),
            ("raises", "RuntimeError"),
        )
        for name in ("inv", "slogdet", "pinv", "matrix_rank")
    },
    "lstsq_half": (
        lambda T: T.linalg.lstsq(T.eye(2, dtype=T.float16), T.eye(2, dtype=T.float16)),
        ("raises", "RuntimeError"),
    ),
    # -- nll_loss of integer scores: PyTorch has no kernel (was a value read from garbage)
    "nll_loss_integer_input": (
        lambda T: T.nn.functional.nll_loss(T.tensor([[0, 1], [2, 3]]), T.tensor([0, 1])),
        ("raises", "NotImplementedError"),
    ),
    "nll_loss_uint8_input": (
        lambda T: T.nn.functional.nll_loss(
            T.tensor([[0, 1], [2, 3]], dtype=T.uint8), T.tensor([0, 1]), reduction="sum"
        ),
        ("raises", "NotImplementedError"),
    ),
    "nll_loss_float_input": (
        lambda T: T.nn.functional.nll_loss(T.tensor([[0.0, 1.0], [2.0, 3.0]]), T.tensor([0, 1])),
        (-1.5, F32, None),
    ),
    # -- PyTorch's NotImplementedError rather than NumPy's or finfo's TypeError
    "cross_bool": (
        lambda T: T.linalg.cross(T.tensor([True, False, True]), T.tensor([False, True, True])),
        ("raises", "NotImplementedError"),
    ),
    "cross_uint8_wraps": (
        lambda T: T.linalg.cross(
            T.tensor([1, 2, 3], dtype=T.uint8), T.tensor([3, 2, 1], dtype=T.uint8)
        ),
        ([252, 8, 252], "uint8", None),
    ),
    "rms_norm_integer": (
        lambda T: T.nn.functional.rms_norm(T.tensor([[1, 2]]), (2,)),
        ("raises", "NotImplementedError"),
    ),
    # -- nll_loss and cross_entropy (class indices) take a weight of the input's dtype
    "cross_entropy_weight_dtype": (
        lambda T: T.nn.functional.cross_entropy(
            T.zeros(2, 3, dtype=T.float64), T.tensor([0, 2]), weight=T.ones(3)
        ),
        ("raises", "RuntimeError"),
    ),
    "nll_loss_weight_dtype": (
        lambda T: T.nn.functional.nll_loss(
            T.zeros(2, 3), T.tensor([0, 2]), weight=T.ones(3, dtype=T.float64)
        ),
        ("raises", "RuntimeError"),
    ),
    "cross_entropy_probabilities_weight_dtype": (
        lambda T: T.nn.functional.cross_entropy(
            T.zeros(1, 2, dtype=T.float64),
            T.tensor([[0.5, 0.5]], dtype=T.float64),
            weight=T.tensor([1.0, 3.0]),
        ),
        (1.3863, "float64", None),
    ),
    # -- dtypes PyTorch's activation and distance kernels refuse
    "relu_bool": (lambda T: T.relu(T.tensor([True])), ("raises", "RuntimeError")),
    "relu_bool_in_place": (
        lambda T: T.nn.functional.relu(T.tensor([True]), inplace=True),
        ("raises", "RuntimeError"),
    ),
    "relu_integer": (lambda T: T.relu(T.tensor([-1, 2])), ([0, 2], "int64", None)),
    "relu6_bool": (
        lambda T: T.nn.functional.relu6(T.tensor([True])),
        ("raises", "RuntimeError"),
    ),
    "hardtanh_uint8_negative_limit": (
        lambda T: T.nn.functional.hardtanh(T.tensor([1], dtype=T.uint8)),
        ("raises", "RuntimeError"),
    ),
    "relu6_uint8": (
        lambda T: T.nn.functional.relu6(T.tensor([1, 9], dtype=T.uint8)),
        ([1, 6], "uint8", None),
    ),
    "prelu_integer": (
        lambda T: T.nn.functional.prelu(T.tensor([1, -2]), T.tensor([1])),
        ("raises", "NotImplementedError"),
    ),
    "softsign_bool": (
        lambda T: T.nn.functional.softsign(T.tensor([True])),
        ("raises", "NotImplementedError"),
    ),
    "pdist_half": (
        lambda T: T.nn.functional.pdist(T.ones(2, 2, dtype=T.float16)),
        ("raises", "NotImplementedError"),
    ),
    "cdist_half": (
        lambda T: T.cdist(T.ones(2, 2, dtype=T.float16), T.ones(2, 2, dtype=T.float16)),
        ("raises", "NotImplementedError"),
    ),
    "multi_margin_half": (
        lambda T: T.nn.functional.multi_margin_loss(
            T.ones(2, 2, dtype=T.float16), T.tensor([0, 1])
        ),
        ("raises", "NotImplementedError"),
    ),
    "multilabel_margin_half": (
        lambda T: T.nn.functional.multilabel_margin_loss(
            T.ones(2, 2, dtype=T.float16), T.tensor([[0, 1], [1, -1]])
        ),
        ("raises", "NotImplementedError"),
    ),
    "ctc_half": (
        lambda T: T.nn.functional.ctc_loss(
            T.ones(3, 1, 2, dtype=T.float16), T.tensor([[1]]), T.tensor([3]), T.tensor([1])
        ),
        ("raises", "NotImplementedError"),
    ),
    "embedding_bag_integer_weight": (
        lambda T: T.nn.functional.embedding_bag(T.tensor([[0, 1]]), T.ones(2, 2, dtype=T.int64)),
        ("raises", "RuntimeError"),
    ),
    "eigh_integer": (
        lambda T: T.linalg.eigh(T.eye(2, dtype=T.int64)),
        ("raises", "NotImplementedError"),
    ),
    "eigvalsh_integer": (
        lambda T: T.linalg.eigvalsh(T.eye(2, dtype=T.int32)),
        ("raises", "NotImplementedError"),
    ),
    "det_integer": (
        lambda T: T.linalg.det(T.eye(2, dtype=T.int64)),
        ("raises", "RuntimeError"),
    ),
    # -- mse_loss and l1_loss take PyTorch's weight (the mean divides by the weights' sum)
    **{
        f"{name}_weight_{reduction}": (
            lambda T, name=name, reduction=reduction: _weighted_loss(T, name, reduction),
            expected,
        )
        for name, reduction, expected in (
            (
                "mse_loss",
                "mean",
                ((6.3333, F32, "DivBackward0"), ([0.6667, 0.0, 4.0], F32, None)),
            ),
            ("mse_loss", "sum", ((19.0, F32, "SumBackward0"), ([2.0, 0.0, 12.0], F32, None))),
            (
                "l1_loss",
                "none",
                (([1.0, 0.0, 6.0], F32, "MulBackward0"), ([1.0, 0.0, 2.0], F32, None)),
            ),
            (
                "l1_loss",
                "mean",
                ((2.3333, F32, "DivBackward0"), ([0.3333, 0.0, 0.6667], F32, None)),
            ),
        )
    },
    "mse_loss_weight_shape": (
        lambda T: T.nn.functional.mse_loss(T.ones(3), T.zeros(3), weight=T.ones(1)),
        ("raises", "ValueError"),
    ),
    # -- linear_cross_entropy (PyTorch 2.13): cross_entropy of a linear map's logits
    "linear_cross_entropy": (
        lambda T: _linear_cross_entropy(T, T.tensor([0, 1])),
        ((0.6931, F32, "NllLossBackward0"), ([[0.0, 0.0], [0.0, 0.0]], F32, None)),
    ),
    "linear_cross_entropy_bias_none": (
        lambda T: _linear_cross_entropy(
            T, T.tensor([0, 1]), linear_bias=T.tensor([1.0, 0.0]), reduction="none"
        )[0],
        ([0.3133, 1.3133], F32, "NllLossBackward0"),
    ),
    "linear_cross_entropy_k_dimensional": (
        lambda T: T.nn.functional.linear_cross_entropy(
            T.ones(1, 2), T.ones(2, 3, 2), T.tensor([[0, 1, 1]])
        ),
        (0.6931, F32, None),
    ),
    "linear_cross_entropy_probabilities_ignore_index": (
        lambda T: _linear_cross_entropy(T, T.full((2, 2), 0.5), ignore_index=-100),
        ("raises", "RuntimeError"),
    ),
    "linear_cross_entropy_3d_input": (
        lambda T: T.nn.functional.linear_cross_entropy(T.ones(1, 1, 2), T.eye(2), T.tensor([[0]])),
        ("raises", "RuntimeError"),
    ),
    # -- pairwise_distance adds eps as ATen does (a Scalar: AddBackward1 under the norm)
    "pairwise_distance_nodes": (
        lambda T: _node_chain(
            T.nn.functional.pairwise_distance(T.ones(1, 2, requires_grad=True), T.zeros(1, 2))
        ),
        ("NormBackward1", "AddBackward1", "SubBackward0"),
    ),
    # -- default_collate reads the dtype from every number when the first is an int
    "collate_int_then_float": (
        lambda T: T.utils.data.default_collate([1, 2.5]),
        ([1.0, 2.5], F32, None),
    ),
    "collate_ints": (lambda T: T.utils.data.default_collate([1, 2]), ([1, 2], "int64", None)),
    "collate_bools": (
        lambda T: T.utils.data.default_collate([True, False]),
        ([True, False], "bool", None),
    ),
    "collate_float_then_int": (
        lambda T: T.utils.data.default_collate([2.5, 1]),
        ([2.5, 1.0], "float64", None),
    ),
    "dataloader_context_without_workers": (
        lambda T: T.utils.data.DataLoader([1], multiprocessing_context="spawn"),
        ("raises", "ValueError"),
    ),
    # -- torch.linalg: PyTorch's keyword names and out= (a tuple for several results)
    "linalg_input_keyword": (
        lambda T: (
            T.linalg.pinv(input=T.eye(2) * 2),
            T.linalg.matrix_power(input=T.eye(2) * 2, n=2),
            T.linalg.lstsq(input=T.eye(2), b=T.ones(2, 1)).solution,
            T.linalg.cholesky(x=T.eye(2) * 4),
            T.linalg.vector_norm(input=T.tensor([3.0, 4.0])),
        ),
        (
            ([[0.5, 0.0], [0.0, 0.5]], F32, None),
            ([[4.0, 0.0], [0.0, 4.0]], F32, None),
            ([[1.0], [1.0]], F32, None),
            ([[2.0, 0.0], [0.0, 2.0]], F32, None),
            (5.0, F32, None),
        ),
    ),
    "linalg_out": (lambda T: _linalg_out(T), (True, ([[0.5, 0.0], [0.0, 0.5]], F32, None))),
    "linalg_out_tuple": (
        lambda T: _linalg_out_tuple(T),
        (True, True, (1.0, F32, None), (1.3863, F32, None)),
    ),
    "linalg_out_requires_grad": (
        lambda T: T.linalg.det(T.eye(2, requires_grad=True), out=T.empty(0)),
        ("raises", "RuntimeError"),
    ),
    "linalg_matrix_exp_no_out": (
        lambda T: T.linalg.matrix_exp(T.eye(2), out=T.empty(0)),
        ("raises", "TypeError"),
    ),
    "one_hot_input_keyword": (
        lambda T: T.nn.functional.one_hot(input=T.tensor([1, 0])),
        ([[0, 1], [1, 0]], "int64", None),
    ),
    "gaussian_nll_integer_var": (
        lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2), T.ones(2), 2),
        ("raises", "TypeError"),
    ),
    # -- modules: ReLU6 is a Hardtanh from 0 to 6; PReLU keeps its init
    "relu6_module_is_hardtanh": (
        lambda T: (
            isinstance(T.nn.ReLU6(), T.nn.Hardtanh),
            T.nn.ReLU6().min_val,
            T.nn.ReLU6().max_val,
            repr(T.nn.ReLU6(inplace=True)),
        ),
        (True, 0.0, 6.0, "ReLU6(inplace=True)"),
    ),
    "prelu_module_init": (lambda T: T.nn.PReLU(init=0.5).init, 0.5),
    # -- a weight or pos_weight that doesn't broadcast: PyTorch's RuntimeError
    "bce_weight_not_broadcasting": (
        lambda T: T.nn.functional.binary_cross_entropy(
            T.full((3, 4), 0.5), T.ones(3, 4), weight=T.ones(3)
        ),
        ("raises", "RuntimeError"),
    ),
    "bce_logits_pos_weight_not_broadcasting": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.zeros(3, 4), T.ones(3, 4), pos_weight=T.ones(3)
        ),
        ("raises", "RuntimeError"),
    ),
    "bce_logits_pos_weight_column": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            T.zeros(2, 2), T.ones(2, 2), pos_weight=T.tensor([[1.0], [2.0]]), reduction="sum"
        ),
        (4.1589, F32, None),
    ),
    # -- unfold and fold take bool tensors, as PyTorch's im2col/col2im (overlaps: or)
    "unfold_bool": (
        lambda T: T.nn.functional.unfold(T.tensor([[[[True, False], [False, True]]]]), (1, 2)),
        ([[[True, False], [False, True]]], "bool", None),
    ),
    "fold_bool_overlapping": (
        lambda T: T.nn.functional.fold(
            T.tensor([[[True, False, False, False]] * 4]), (3, 3), 2, stride=1
        ),
        ([[[[True, True, False], [True, True, False], [False, False, False]]]], "bool", None),
    ),
    "unfold_integer": (
        lambda T: T.nn.functional.unfold(T.ones(1, 1, 2, 2, dtype=T.int64), 2),
        ("raises", "NotImplementedError"),
    ),
    # -- products of bool tensors: PyTorch has no kernel for them
    **{
        f"{name}_bool": (
            lambda T, name=name, shapes=shapes: getattr(T, name)(
                *(T.ones(*shape, dtype=T.bool) for shape in shapes)
            ),
            ("raises", "NotImplementedError"),
        )
        for name, shapes in (
            ("matmul", ((2, 2), (2, 2))),
            ("mm", ((2, 2), (2, 2))),
            ("mv", ((2, 2), (2,))),
            ("dot", ((2,), (2,))),
            ("bmm", ((1, 2, 2), (1, 2, 2))),
        )
    },
    "multi_dot_bool": (
        lambda T: T.linalg.multi_dot([T.ones(2, 2, dtype=T.bool)] * 2),
        ("raises", "NotImplementedError"),
    ),
    "matmul_integer": (
        lambda T: T.matmul(T.ones(2, 2, dtype=T.int64), T.ones(2, 2, dtype=T.int64)),
        ([[2, 2], [2, 2]], "int64", None),
    ),
    # -- convolutions: no bool kernels; transposed ones only for floating dtypes and int64
    "conv2d_bool": (
        lambda T: T.nn.functional.conv2d(
            T.ones(1, 1, 2, 2, dtype=T.bool), T.ones(1, 1, 2, 2, dtype=T.bool)
        ),
        ("raises", "NotImplementedError"),
    ),
    "conv_transpose2d_int32": (
        lambda T: T.nn.functional.conv_transpose2d(
            T.ones(1, 1, 2, 2, dtype=T.int32), T.ones(1, 1, 2, 2, dtype=T.int32)
        ),
        ("raises", "NotImplementedError"),
    ),
    "conv_transpose1d_int64": (
        lambda T: T.nn.functional.conv_transpose1d(
            T.ones(1, 1, 2, dtype=T.int64), T.ones(1, 1, 2, dtype=T.int64)
        ),
        ([[[1, 2, 1]]], "int64", None),
    ),
    "conv1d_uint8": (
        lambda T: T.nn.functional.conv1d(
            T.ones(1, 1, 3, dtype=T.uint8), T.ones(1, 1, 2, dtype=T.uint8)
        ),
        ([[[2, 2]]], "uint8", None),
    ),
    # -- outer as ATen composes it: the first vector reshaped to a column
    "outer_nodes": (
        lambda T: tuple(
            type(node[0]).__name__
            for node in T.outer(
                T.ones(3, requires_grad=True), T.ones(2, requires_grad=True)
            ).grad_fn.next_functions
        ),
        ("ViewBackward0", "AccumulateGrad"),
    ),
    "pad_replicate_empty_dimension": (
        lambda T: T.nn.functional.pad(T.zeros(1, 2, 0), (1, 1), mode="replicate"),
        ("raises", "RuntimeError"),
    ),
    # -- max pooling of an empty batch (was NumPy's reshape error)
    "max_pool2d_empty_batch": (
        lambda T: _empty_max_pool(T),
        ((0, 3, 2, 2), "MaxPool2DWithIndicesBackward0", (0, 3, 2, 2), (0, 3, 4, 4)),
    ),
    # -- PyTorch's 3-d average pooling has no float16 kernel (local_response_norm uses it)
    "avg_pool3d_half": (
        lambda T: T.nn.functional.avg_pool3d(T.ones(1, 1, 2, 2, 2, dtype=T.float16), 2),
        ("raises", "NotImplementedError"),
    ),
    "local_response_norm_half_4d": (
        lambda T: T.nn.functional.local_response_norm(T.ones(1, 2, 2, 2, dtype=T.float16), 2),
        ("raises", "NotImplementedError"),
    ),
    "avg_pool2d_half": (
        lambda T: T.nn.functional.avg_pool2d(T.ones(1, 1, 2, 2, dtype=T.float16), 2),
        ([[[[1.0]]]], "float16", None),
    ),
}


test_symgrad, test_table_is_pytorchs = table_tests(CASES)
