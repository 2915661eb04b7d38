"""Differences from PyTorch found in torch.nn modules by running small models both ways: the
recurrent layers' module API, the containers' operators, the normalisation and attention
layers' checks.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests

F32 = "float32"
NOT_IMPLEMENTED = ("raises", "NotImplementedError")


def _flatten_parameters(T):
    lstm = T.nn.LSTM(2, 3, num_layers=2, bidirectional=True)
    return lstm.flatten_parameters(), len(lstm._flat_weights)


def _all_weights(T):
    gru = T.nn.GRU(2, 3, num_layers=2, bias=False)
    return [[tuple(w.shape) for w in ws] for ws in gru.all_weights]


def _all_weights_are_parameters(T):
    lstm = T.nn.LSTM(2, 3, proj_size=1)
    return [w is p for w, p in zip(lstm.all_weights[0], lstm.parameters())]


def _rnn_input(T, mode, dtype):
    layer = getattr(T.nn, mode)(2, 3)
    return layer(T.zeros(4, 2, dtype=getattr(T, dtype)))


def _names(module):
    return list(module._modules)  # named_children() lists a repeated module once


def _sequential_sum(T):
    a = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU())
    total = a + T.nn.Sequential(T.nn.Tanh())
    a += T.nn.Sequential(T.nn.Sigmoid())
    return _names(total), [type(m).__name__ for m in total], _names(a), type(a[2]).__name__


def _sequential_product(T):
    a = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU())
    twice, thrice = a * 2, 3 * a
    same = twice[0] is twice[2]
    a *= 2
    return _names(twice), len(thrice), same, _names(a), a(T.ones(1, 2)).shape


def _sequential_pop(T):
    a = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU(), T.nn.Tanh())
    popped = a.pop(1)
    return type(popped).__name__, _names(a), type(a[1]).__name__


def _init(T, name, dtype="float32", *args, **kwargs):
    return getattr(T.nn.init, name)(T.zeros(3, 4, dtype=getattr(T, dtype)), *args, **kwargs)


CASES = {
    # -- recurrent layers: the cuDNN hook is a no-op on the CPU, the weights by layer
    "rnn_flatten_parameters": (_flatten_parameters, (None, 16)),
    "rnn_all_weights": (_all_weights, (((9, 2), (9, 3)), ((9, 3), (9, 3)))),
    "rnn_all_weights_parameters": (_all_weights_are_parameters, (True,) * 5),
    "rnn_input_float64": (lambda T: _rnn_input(T, "RNN", "float64"), ("raises", "ValueError")),
    "lstm_input_int64": (lambda T: _rnn_input(T, "LSTM", "int64"), ("raises", "ValueError")),
    "gru_input_float16": (lambda T: _rnn_input(T, "GRU", "float16"), ("raises", "ValueError")),
    # -- Sequential's operators
    "sequential_add": (
        _sequential_sum,
        (("0", "1", "2"), ("Linear", "ReLU", "Tanh"), ("0", "1", "2"), "Sigmoid"),
    ),
    "sequential_add_other": (
        lambda T: T.nn.Sequential() + T.nn.ModuleList(),
        ("raises", "ValueError"),
    ),
    "sequential_iadd_other": (
        lambda T: T.nn.Sequential().__iadd__([T.nn.ReLU()]),
        ("raises", "ValueError"),
    ),
    "sequential_mul": (
        _sequential_product,
        (("0", "1", "2", "3"), 6, True, ("0", "1", "2", "3"), (1, 2)),
    ),
    "sequential_mul_zero": (lambda T: T.nn.Sequential() * 0, ("raises", "ValueError")),
    "sequential_mul_float": (lambda T: T.nn.Sequential() * 2.0, ("raises", "TypeError")),
    "sequential_imul_negative": (
        lambda T: T.nn.Sequential().__imul__(-1),
        ("raises", "ValueError"),
    ),
    "sequential_pop": (_sequential_pop, ("ReLU", ("0", "1"), "Tanh")),
    # -- nn.init: PyTorch's checks of the dtype and of the bounds
    "init_uniform_int": (lambda T: _init(T, "uniform_", "int64"), NOT_IMPLEMENTED),
    "init_uniform_bool": (lambda T: _init(T, "uniform_", "bool"), NOT_IMPLEMENTED),
    "init_normal_int": (lambda T: _init(T, "normal_", "int32"), NOT_IMPLEMENTED),
    "init_kaiming_uniform_int": (
        lambda T: _init(T, "kaiming_uniform_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_kaiming_normal_int": (
        lambda T: _init(T, "kaiming_normal_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_xavier_uniform_int": (
        lambda T: _init(T, "xavier_uniform_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_xavier_normal_int": (
        lambda T: _init(T, "xavier_normal_", "int64"),
        NOT_IMPLEMENTED,
    ),
    "init_uniform_reversed": (
        lambda T: _init(T, "uniform_", "float32", 2.0, 1.0),
        ("raises", "RuntimeError"),
    ),
    "init_normal_negative_std": (
        lambda T: _init(T, "normal_", "float32", 0.0, -1.0),
        ("raises", "RuntimeError"),
    ),
    "init_uniform_equal_bounds": (
        lambda T: _init(T, "uniform_", "float64", 2.0, 2.0).tolist(),
        ((2.0,) * 4,) * 3,
    ),
    "init_normal_zero_std": (
        lambda T: _init(T, "normal_", "float16", 1.0, 0.0),
        ([[1.0] * 4] * 3, "float16", None),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
