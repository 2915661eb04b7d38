"""Normalization layers given an input of another dtype than their parameters (a float32
model, float64 data from NumPy): PyTorch's CPU kernels refuse that with a RuntimeError rather
than promoting; a float16 input with float32 parameters is their mixed precision, allowed;
instance norm's running statistics may be of any floating dtype.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

from _torch_table import table_tests


def _x(T, dtype="float64"):
    return T.arange(24.0, dtype=getattr(T, dtype)).reshape(3, 2, 4) / 7


def _summed(make, dtype="float64"):
    def case(T):
        y = make(T)(_x(T, dtype))
        return str(y.dtype).rsplit(".", 1)[-1], round(y.float().sum().item(), 3) + 0.0

    return case


RAISES = ("raises", "RuntimeError")
CASES = {
    "batch_norm": (_summed(lambda T: T.nn.BatchNorm1d(2)), RAISES),
    "batch_norm_eval": (_summed(lambda T: T.nn.BatchNorm1d(2).eval()), RAISES),
    "batch_norm_no_affine": (_summed(lambda T: T.nn.BatchNorm1d(2, affine=False)), RAISES),
    "layer_norm": (_summed(lambda T: T.nn.LayerNorm(4)), RAISES),
    "group_norm": (_summed(lambda T: T.nn.GroupNorm(1, 2)), RAISES),
    "instance_norm_affine": (_summed(lambda T: T.nn.InstanceNorm1d(2, affine=True)), RAISES),
    "layer_norm_float64_weight": (
        lambda T: T.nn.functional.layer_norm(_x(T, "float32"), (4,), T.ones(4, dtype=T.float64)),
        RAISES,
    ),
    "functional_batch_norm_stats": (
        lambda T: T.nn.functional.batch_norm(
            _x(T, "float32"), T.zeros(2, dtype=T.float64), T.ones(2, dtype=T.float64)
        ),
        RAISES,
    ),
    # allowed: the same dtype, float16 with float32 parameters, instance norm's statistics
    "batch_norm_float64_model": (
        _summed(lambda T: T.nn.BatchNorm1d(2, dtype=T.float64)),
        ("float64", 0.0),
    ),
    "batch_norm_half_input": (_summed(lambda T: T.nn.BatchNorm1d(2), "float16"), ("float16", 0.0)),
    "layer_norm_half_input": (_summed(lambda T: T.nn.LayerNorm(4), "float16"), ("float16", 0.0)),
    "instance_norm_stats": (
        _summed(lambda T: T.nn.InstanceNorm1d(2, track_running_stats=True)),
        ("float64", 0.0),
    ),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
