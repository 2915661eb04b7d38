"""``nn.SyncBatchNorm`` in one process (every symgrad program): batch normalization of inputs
of 2 dims or more, as PyTorch's without a distributed group, and ``convert_sync_batchnorm``
replacing a model's batch normalizations with it, parameters shared.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data (recorded from PyTorch 2.13), checked for symgrad always and
for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

X = np.random.default_rng(3).standard_normal((4, 2, 3)).round(2)


def _r(v):
    return round(v, 4) + 0.0  # (-0.0 as 0.0)


def _train_then_eval(shape, **options):
    def case(T):
        bn = T.nn.SyncBatchNorm(2, **options)
        x = T.tensor(X.reshape(shape), dtype=T.float32).requires_grad_()
        y = bn(x)
        (y * y * T.arange(y.numel(), dtype=T.float32).reshape(y.shape)).sum().backward()
        bn.eval()
        z = bn(T.tensor(X.reshape(shape), dtype=T.float32))
        running = None if bn.running_mean is None else [_r(v) for v in bn.running_mean.tolist()]
        return (
            type(y.grad_fn).__name__,
            _r(y.sum().item()),
            _r(x.grad.abs().sum().item()),
            running,
            _r(z.sum().item()),
            bn.extra_repr(),
        )

    return case


def _converted(T):
    model = T.nn.Sequential(
        T.nn.Conv2d(2, 2, 1), T.nn.BatchNorm2d(2, bias=False), T.nn.Sequential(T.nn.BatchNorm1d(3))
    )
    model[1].eval()
    weight = model[1].weight
    out = T.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    return (
        [type(m).__name__ for m in out.modules()],
        out[1].weight is weight,
        out[1].bias is None,
        out[1].training,
        out[2][0].training,
        list(out.state_dict()),
    )


def _alone(T):
    bn = T.nn.BatchNorm1d(3, momentum=None)
    converted = T.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
    return type(converted).__name__, converted.momentum, converted.running_var is bn.running_var


def _input(T, shape):
    return T.nn.SyncBatchNorm(2)(T.zeros(shape))


CASES = {
    "2d_input": (
        _train_then_eval((12, 2)),
        (
            "NativeBatchNormBackward0",
            0.0,
            181.1429,
            (0.0002, -0.0089),
            -0.9026,
            "2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True",
        ),
    ),
    "3d_input": (
        _train_then_eval((4, 2, 3)),
        (
            "NativeBatchNormBackward0",
            0.0,
            178.1384,
            (-0.0371, 0.0283),
            -0.8881,
            "2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True",
        ),
    ),
    "4d_input": (
        _train_then_eval((2, 2, 3, 2)),
        (
            "NativeBatchNormBackward0",
            0.0,
            136.6024,
            (-0.0292, 0.0204),
            -1.0039,
            "2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True",
        ),
    ),
    "cumulative": (
        _train_then_eval((4, 2, 3), momentum=None, bias=False),
        (
            "NativeBatchNormBackward0",
            0.0,
            178.1384,
            (-0.3708, 0.2833),
            0.0,
            "2, eps=1e-05, momentum=None, affine=True, bias=False, track_running_stats=True",
        ),
    ),
    "no_running_stats": (
        _train_then_eval((4, 2, 3), track_running_stats=False, affine=False),
        (
            "NativeBatchNormBackward0",
            0.0,
            178.1384,
            None,
            0.0,
            "2, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False",
        ),
    ),
    "convert": (
        _converted,
        (
            ("Sequential", "Conv2d", "SyncBatchNorm", "Sequential", "SyncBatchNorm"),
            True,
            True,
            False,
            True,
            (
                "0.weight",
                "0.bias",
                "1.weight",
                "1.running_mean",
                "1.running_var",
                "1.num_batches_tracked",
                "2.0.weight",
                "2.0.bias",
                "2.0.running_mean",
                "2.0.running_var",
                "2.0.num_batches_tracked",
            ),
        ),
    ),
    "convert_one": (_alone, ("SyncBatchNorm", None, True)),
    "1d_input": (lambda T: _input(T, (2,)), ("raises", "ValueError")),
    "no_channels": (lambda T: _input(T, (2, 0, 3)), ("raises", "ValueError")),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
