"""Small whole programs as PyTorch users write them (a logistic regression by hand, a model
resumed from a checkpoint), and the pieces of programs where symgrad once differed from
PyTorch: formatting tensors in f-strings, uint8 class labels, loading a DataParallel
checkpoint with ``torch.nn.modules.utils``, picking Q-values with ``take_along_dim``, the KL
term of a full-covariance VAE, unsorted padded sequences through a batch-first GRU,
``argmax(keepdim=True)`` over all elements, ``sum(keepdim=True)`` without a dim, shapes
built with tuples in front of a ``Size``, ``arange(end=n)``, float16 arithmetic with
numbers and a float16 batch norm's running statistics.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests


def _init(T, module, seed=0, scale=0.5):
    """``module`` with its parameters drawn from NumPy, the same for symgrad and PyTorch."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(T.tensor(rng.normal(size=tuple(p.shape)) * scale))
    return module


def _format(value, spec):
    try:
        return format(value, spec)
    except TypeError as error:
        return ("raises", type(error).__name__, str(error))


def _formats(T):
    """A 0-d tensor formats as its number; anything else only without a spec."""
    loss = T.tensor(0.25, requires_grad=True) * 2
    param = T.nn.Parameter(T.tensor(1.5))
    return (
        _format(loss, ".3f"),
        _format(T.tensor(7), "5"),
        _format(T.tensor([1.5]), ""),
        _format(T.tensor([1.5]), ".2f"),
        _format(T.tensor([1.5, 2.0]), ">20"),
        _format(param, "").replace("symgrad", "torch"),
        _format(param, ".2f"),
    )


def _uint8_labels(T):
    """A classifier trained on labels read as uint8, which PyTorch takes as class indices."""
    F = T.nn.functional
    model = _init(T, T.nn.Linear(2, 3).double())
    x = T.tensor([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0], [1.0, 1.0]], dtype=T.float64)
    labels = T.from_numpy(np.array([0, 2, 1, 2], dtype=np.uint8))
    opt = T.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), labels, label_smoothing=0.1)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    nll = F.nll_loss(model(x).log_softmax(1), labels, reduction="none")
    accuracy = (model(x).argmax(1) == labels).float().mean()
    return losses, nll, T.nn.CrossEntropyLoss(ignore_index=1)(model(x), labels), accuracy


def _uint8_spatial(T):
    return T.nn.functional.cross_entropy(T.zeros(1, 3, 2, 2), T.zeros(1, 2, 2, dtype=T.uint8))


def _uint8_smoothing_weight(T):
    weight = T.tensor([1.0, 2.0, 1.0])
    labels = T.tensor([0, 1], dtype=T.uint8)
    return T.nn.functional.cross_entropy(T.zeros(2, 3), labels, weight, label_smoothing=0.1)


def _data_parallel_checkpoint(T):
    """A checkpoint of a ``DataParallel`` model (keys ``module.<name>``) loaded into the bare
    model once ``consume_prefix_in_state_dict_if_present`` strips the prefix."""
    from importlib import import_module

    utils = import_module(T.__name__ + ".nn.modules.utils")
    wrapped = T.nn.DataParallel(_init(T, T.nn.Sequential(T.nn.Linear(2, 2))))
    state = wrapped.state_dict()
    keys = list(state)
    utils.consume_prefix_in_state_dict_if_present(state, "module.")
    bare = T.nn.Sequential(T.nn.Linear(2, 2))
    result = bare.load_state_dict(state)
    out = bare(T.tensor([[1.0, -1.0]]))
    pairs = utils._pair(3), utils._pair((1, 2)), utils._triple(2), utils._single([4])
    return keys, list(state), sorted(state._metadata), str(result), out, pairs


def _q_values(T, n_actions):
    """A DQN's Q-values of the actions taken, picked with ``take_along_dim``; the actions of
    the wrong batch size don't broadcast (PyTorch's RuntimeError, not NumPy's ValueError)."""
    q = T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    actions = T.tensor([1, 0, 1][:n_actions]).unsqueeze(1)
    picked = q.take_along_dim(actions, 1).squeeze(1)
    picked.sum().backward()
    return picked, q.grad


def _vae_full_covariance_kl(T):
    """The KL term of a VAE whose posterior has a full covariance (a Cholesky factor), against
    the standard normal prior: PyTorch's value and its last node, AddBackward0."""
    D = T.distributions
    loc = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
    raw = T.tensor([[0.2, 0.0], [0.3, -0.4]], dtype=T.float64, requires_grad=True)
    tril = T.tril(raw, -1) + T.diag_embed(T.exp(raw.diagonal()))
    posterior = D.MultivariateNormal(loc, scale_tril=tril)
    prior = D.MultivariateNormal(T.zeros(2, dtype=T.float64), T.eye(2, dtype=T.float64))
    kl = D.kl_divergence(posterior, prior)
    kl.backward()
    return kl, loc.grad, raw.grad


def _unsorted_batch_first_gru(T):
    """Sequences of unsorted lengths packed, run through a batch-first GRU and padded back:
    the output's node is PyTorch's IndexSelectBackward0 (the original order restored last)."""
    rnn = T.nn.utils.rnn
    gru = _init(T, T.nn.GRU(2, 3, batch_first=True).double())
    x = T.tensor(np.linspace(-1.0, 1.0, 3 * 4 * 2).reshape(3, 4, 2), requires_grad=True)
    packed = rnn.pack_padded_sequence(
        x, T.tensor([2, 4, 1]), batch_first=True, enforce_sorted=False
    )
    out, lengths = rnn.pad_packed_sequence(gru(packed)[0], batch_first=True)
    out.sum().backward()
    return type(out.grad_fn).__name__, out[:, :, 0].detach(), lengths, x.grad.abs().sum(dim=(1, 2))


def _size_arithmetic(T):
    """Shapes as programs build them: a tuple in front of a Size gives a Size, NumPy sizes
    print as ints, a list can't be added."""
    x = T.ones(2, 3)
    batch = (4,) + x.shape
    shown = repr(T.Size([np.int64(2), 3])).replace("symgrad", "torch")
    try:
        x.shape + [5]
        added = "no error"
    except TypeError as error:
        added = type(error).__name__
    return type(batch).__name__, tuple(batch), T.zeros(batch).shape[0], shown, added


def _half_with_numbers(T):
    """A float16 model's arithmetic with Python numbers: PyTorch rounds the number to float16
    first (1.1 is 1.0996) for sums, differences and powers, not for products. (Its alpha too,
    but its kernels for a few elements round ``alpha * other`` on its own: not compared.)"""
    x = T.tensor([0.1257, -1.5, 2.3], dtype=T.float16)
    return (x - 1.1, 1.1 + x, x.abs() ** 1.1, 1.1**x, x * 1.1, x - T.tensor(1.1))


def _half_batch_norm_statistics(T):
    """A float16 batch norm's running statistics after a step: PyTorch computes the update in
    float32 and rounds once (0.1 * 0.75 gives 0.07501, not float16 arithmetic's 0.07495)."""
    bn = T.nn.BatchNorm1d(3).half()
    bn(T.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]).half())
    return bn.running_mean, bn.running_var


_X = np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0], [1.0, 1.0], [-1.5, -0.5], [0.25, -2.0]])
_Y = np.array([0, 1, 1, 1, 0, 0])


def _logistic_regression_by_hand(T):
    """Weights updated by hand under no_grad, the gradients zeroed in place."""
    x, y = T.tensor(_X, dtype=T.float32), T.tensor(_Y, dtype=T.float32)
    w = T.zeros(2, requires_grad=True)
    b = T.zeros(1, requires_grad=True)
    losses = []
    for _ in range(5):
        p = T.sigmoid(x @ w + b)
        loss = -(y * T.log(p) + (1 - y) * T.log(1 - p)).mean()
        loss.backward()
        with T.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
            w.grad.zero_()
            b.grad.zero_()
        losses.append(round(loss.item(), 4))
    accuracy = ((p > 0.5).float() == y).float().mean().item()
    return losses, w, b, accuracy


def _train(T, model, opt, sched, steps):
    x, y = T.tensor(_X, dtype=T.float32), T.tensor(_Y)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(round(loss.item(), 4))
    return losses


def _checkpoint_resume(T):
    """An MLP trained with AdamW and OneCycleLR, saved mid-training with its optimizer and
    scheduler, then resumed in a fresh model: the resumed curve is the uninterrupted one."""
    import io

    def fresh():
        model = _init(T, T.nn.Sequential(T.nn.Linear(2, 4), T.nn.Tanh(), T.nn.Linear(4, 2)))
        opt = T.optim.AdamW(model.parameters(), lr=0.05, amsgrad=True)
        sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=8)
        return model, opt, sched

    model, opt, sched = fresh()
    first = _train(T, model, opt, sched, 4)
    buffer = io.BytesIO()
    state = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
    T.save(state, buffer)
    rest = _train(T, model, opt, sched, 4)
    buffer.seek(0)
    saved = T.load(buffer)
    model2, opt2, sched2 = fresh()
    model2.load_state_dict(saved["model"])
    opt2.load_state_dict(saved["opt"])
    sched2.load_state_dict(saved["sched"])
    resumed = _train(T, model2, opt2, sched2, 4)
    return first, rest, resumed == rest, [round(v, 8) for v in sched2.get_last_lr()]


CASES = {
    # whole programs: their curves, weights and bookkeeping
    "logistic_regression_by_hand": (
        _logistic_regression_by_hand,
        (
            (0.6931, 0.5273, 0.4203, 0.348, 0.2966),
            ([0.4438, 0.9554], "float32", None),
            ([-0.0118], "float32", None),
            1.0,
        ),
    ),
    "checkpoint_resume": (
        _checkpoint_resume,
        (
            (0.4602, 0.452, 0.3531, 0.2569),
            (0.1727, 0.118, 0.0916, 0.0841),
            True,
            (0.00766416,),
        ),
    ),
    "format": (
        _formats,
        (
            "0.500",
            "    7",
            "tensor([1.5000])",
            ("raises", "TypeError", "unsupported format string passed to Tensor.__format__"),
            ("raises", "TypeError", "unsupported format string passed to Tensor.__format__"),
            "Parameter containing:\ntensor(1.5000, requires_grad=True)",
            ("raises", "TypeError", "unsupported format string passed to Parameter.__format__"),
        ),
    ),
    # uint8 labels: class indices for an input of at most 2 dims, refused by the spatial
    # kernel and by label smoothing with class weights; other integer types refused
    "uint8_labels": (
        _uint8_labels,
        (
            (1.5091, 1.1122, 0.8533),
            ([0.5129, 0.7274, 0.585, 0.7277], "float64", "NllLossBackward0"),
            (0.656, "float64", "NllLossBackward0"),
            (1.0, "float32", None),
        ),
    ),
    "uint8_spatial": (_uint8_spatial, ("raises", "RuntimeError")),
    "uint8_smoothing_weight": (_uint8_smoothing_weight, ("raises", "RuntimeError")),
    "int32_labels": (
        lambda T: T.nn.functional.nll_loss(T.zeros(2, 3), T.tensor([0, 1], dtype=T.int32)),
        ("raises", "RuntimeError"),
    ),
    "data_parallel_checkpoint": (
        _data_parallel_checkpoint,
        (
            ("module.0.weight", "module.0.bias"),
            ("0.weight", "0.bias"),
            ("", "0"),
            "<All keys matched successfully>",
            ([[-0.1389, 0.4486]], "float32", "AddmmBackward0"),
            ((3, 3), (1, 2), (2, 2, 2), (4,)),
        ),
    ),
    "q_values": (
        lambda T: _q_values(T, 3),
        (
            ([2.0, 3.0, 6.0], "float32", "SqueezeBackward1"),
            ([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], "float32", None),
        ),
    ),
    "q_values_batch_mismatch": (lambda T: _q_values(T, 2), ("raises", "RuntimeError")),
    "vae_full_covariance_kl": (
        _vae_full_covariance_kl,
        (
            (0.8406, "float64", "AddBackward0"),
            ([0.5, -1.0], "float64", None),
            ([[0.4918, 0.0], [0.3, -0.5507]], "float64", None),
        ),
    ),
    "unsorted_batch_first_gru": (
        _unsorted_batch_first_gru,
        (
            "IndexSelectBackward0",
            (
                [
                    [0.2435, 0.2988, 0.0, 0.0],
                    [-0.0798, -0.1576, -0.2332, -0.3016],
                    [-0.1245, 0.0, 0.0, 0.0],
                ],
                "float64",
                None,
            ),
            ([2, 4, 1], "int64", None),
            ([1.7323, 4.9686, 0.5129], "float64", None),
        ),
    ),
    # the index over all elements with keepdim: a 1 for every dimension (a 0-d input stays 0-d)
    "argmax_all_keepdim": (
        lambda T: (
            T.tensor([[1.0, 3.0], [4.0, 2.0]]).argmax(keepdim=True),
            T.argmin(T.ones(2, 1, 3), keepdim=True),
            T.tensor(5.0).argmax(keepdim=True),
        ),
        (([[2]], "int64", None), ([[[0]]], "int64", None), (0, "int64", None)),
    ),
    "size_arithmetic": (
        _size_arithmetic,
        ("Size", (4, 2, 3), 4, "torch.Size([2, 3])", "TypeError"),
    ),
    # arange's overloads (end), (start, end), (start, end, step), also by keyword
    "arange_keywords": (
        lambda T: (
            T.arange(end=3),
            T.arange(start=1, end=3),
            T.arange(1, end=2.5, step=0.5),
            T.arange(end=2, dtype=T.float64),
        ),
        (
            ([0, 1, 2], "int64", None),
            ([1, 2], "int64", None),
            ([1.0, 1.5, 2.0], "float32", None),
            ([0.0, 1.0], "float64", None),
        ),
    ),
    "arange_end_and_step": (lambda T: T.arange(end=4, step=2), ("raises", "TypeError")),
    "half_with_numbers": (
        lambda T: tuple(tuple(round(v, 6) for v in t.tolist()) for t in _half_with_numbers(T)),
        (
            (-0.973633, -2.599609, 1.201172),
            (1.225586, -0.400391, 3.400391),
            (0.102295, 1.561523, 2.5),
            (1.011719, 0.867188, 1.244141),
            (0.138306, -1.650391, 2.53125),
            (-0.973633, -2.599609, 1.201172),
        ),
    ),
    "half_batch_norm_statistics": (
        lambda T: tuple(
            tuple(round(v, 8) for v in t.tolist()) for t in _half_batch_norm_statistics(T)
        ),
        ((0.07501221, 0.04998779, 0.25), (0.91259766, 1.34960938, 0.95019531)),
    ),
    # sum, mean and prod: keepdim goes with a dim (None keeps every dimension)
    "sum_keepdim_without_dim": (lambda T: T.ones(2, 3).sum(keepdim=True), ("raises", "TypeError")),
    "mean_keepdim_without_dim": (
        lambda T: T.ones(2, 3).mean(keepdim=True),
        ("raises", "TypeError"),
    ),
    "sum_keepdim_dim_none": (
        lambda T: T.ones(2, 3).sum(None, True),
        ([[6.0]], "float32", None),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
