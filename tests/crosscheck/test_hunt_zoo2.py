"""Whole programs of kinds the other tables leave out (a DCGAN step, WGAN-GP, VAEs, policy
gradients, DQN, seq2seq with attention, packed LSTMs, style transfer, adversarial examples,
distillation, ...), and the pieces of such programs where symgrad once differed from PyTorch.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests


def _error(fn) -> tuple | None:
    """The type and message of what ``fn()`` raises (None when it returns)."""
    try:
        fn()
    except Exception as error:  # the type and message are the expected answer
        return type(error).__name__, str(error)
    return None


def _batch_norm_sizes(T):
    """A batch norm given an input of other channels than it was built for (a wrong
    ``in_features`` after a Linear): PyTorch names the running mean first, then the running
    variance, then the weight and bias, and in evaluation asks for missing statistics first."""
    F = T.nn.functional
    x, three, four = T.ones(2, 4), T.ones(3), T.ones(4)
    found = [_error(lambda: T.nn.BatchNorm1d(3)(x))]
    found.append(_error(lambda: T.nn.BatchNorm1d(3, track_running_stats=False)(x)))
    for stats, affine in (
        ((four, three), (three, three)),
        ((four, four), (three, three)),
        ((None, four), (three, three)),
        ((four, None), (three, three)),
        ((four, None), (four, four)),
    ):
        for training in (True, False):
            found.append(_error(lambda: F.batch_norm(x, *stats, *affine, training=training)))
    found.append(_error(lambda: T.batch_norm(x, three, three, four, three, True, 0.1, 1e-5, False)))
    return found


def _channels(name: str) -> tuple:
    return ("RuntimeError", f"{name} should contain 4 elements not 3")


def _undefined(name: str) -> tuple:
    return ("RuntimeError", f"{name} must be defined in evaluation mode")


_BOTH = ("ValueError", "running_mean and running_var must either both be None or neither be None")

CASES = {
    "batch_norm_size_checks": (
        _batch_norm_sizes,
        (
            _channels("running_mean"),
            _channels("weight"),
            _channels("running_var"),
            _channels("running_var"),
            _channels("weight"),
            _channels("weight"),
            _channels("weight"),
            _undefined("running_mean"),
            _channels("weight"),
            _undefined("running_var"),
            _BOTH,
            _undefined("running_var"),
            _channels("running_var"),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
