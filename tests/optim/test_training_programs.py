"""Training-loop programs checked against PyTorch: optimizers, schedulers and the gradient
utilities of ``torch.nn.utils`` as scripts use them.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from _torch_table import table_tests

import symgrad

F32 = "float32"
F64 = "float64"


def _param(T, values=(1.0, -2.0, 3.0), dtype=None):
    return T.nn.Parameter(T.tensor(list(values), dtype=dtype))


def _steps(T, make, steps=3, dtype=None):
    """``p`` after ``steps`` steps of the optimizer ``make(T, [p])`` on ``sum(p**2 + p)``."""
    p = _param(T, dtype=dtype)
    opt = make(T, [p])
    for _ in range(steps):
        opt.zero_grad()
        (p * p + p).sum().backward()
        opt.step()
    return p.detach()


def _graded(T, grads, dtype=None):
    """Parameters whose ``.grad`` hold ``grads``."""
    params = []
    for g in grads:
        p = T.nn.Parameter(T.zeros(len(g), dtype=dtype))
        p.grad = T.tensor(list(g), dtype=dtype)
        params.append(p)
    return params


def _clip_norm(T, clip):
    params = _graded(T, [(3.0, -4.0), (12.0,)])
    total = clip(T, params)
    return total, params[0].grad, params[1].grad


def _vector_to_parameters(T, vector):
    params = [T.zeros(2), T.zeros(1)]
    T.nn.utils.vector_to_parameters(vector, params)
    return tuple(params)


def _old_style_schedule(T):
    class Halving(T.optim.lr_scheduler._LRScheduler):
        def get_lr(self):
            return [lr * 0.5**self.last_epoch for lr in self.base_lrs]

    opt = T.optim.SGD([_param(T)], lr=1.0)
    schedule = Halving(opt)
    rates = [schedule.get_last_lr()[0]]
    for _ in range(3):
        opt.step()
        schedule.step()
        rates.append(schedule.get_last_lr()[0])
    return rates, isinstance(schedule, T.optim.lr_scheduler.LRScheduler)


def _differentiable_steps(T, name, **kw):
    """Two recorded steps of ``name`` on a non-leaf copy of ``w0`` with gradient ``g``; the
    result and the gradients reaching ``w0`` and ``g``."""
    w0 = T.tensor([1.0, -2.0, 3.0], dtype=T.float64, requires_grad=True)
    g = T.tensor([0.5, 0.25, -1.0], dtype=T.float64, requires_grad=True)
    w = w0.clone()
    opt = getattr(T.optim, name)([w], lr=0.1, differentiable=True, **kw)
    for _ in range(2):
        w.grad = g * 1.0
        opt.step()
    (w**2).sum().backward()
    return w.detach(), w0.grad, g.grad, w.grad_fn is not None


def _differentiable_leaf(T):
    w = T.nn.Parameter(T.ones(2))
    w.grad = T.ones(2)
    T.optim.SGD([w], lr=0.1, differentiable=True).step()


def _multiplicative_with_epochs(T):
    opt = T.optim.SGD([_param(T)], lr=1.0)
    schedule = T.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    rates = []
    for epoch in (0, 0, 1):
        opt.step()
        schedule.step(epoch)
        rates.append(schedule.get_last_lr()[0])
    return rates


def _capturable_step(T, name, with_grad=True):
    p = _param(T)
    opt = getattr(T.optim, name)([p], capturable=True)
    if with_grad:
        p.grad = T.ones(3)
    opt.step()
    return p.detach()


def _adafactor(T, **kw):
    """Five Adafactor steps on a batch of matrices, a vector and a scalar (float64); the
    parameters and the shapes of the state kept for the batch."""
    dt = T.float64
    w = T.nn.Parameter(T.tensor([[[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]]] * 2, dtype=dt))
    b = T.nn.Parameter(T.tensor([0.2, -0.4, 0.9], dtype=dt))
    s = T.nn.Parameter(T.tensor(0.7, dtype=dt))
    opt = T.optim.Adafactor([w, b, s], **kw)
    for _ in range(5):
        opt.zero_grad()
        ((w.sum(0) @ b.sin()) ** 2).sum().backward()
        ((s * 3) ** 2).backward()
        opt.step()
    shapes = [tuple(opt.state[w][k].shape) for k in ("step", "row_var", "col_var")]
    return w.detach()[0], b.detach(), s.detach(), shapes, sorted(opt.state[b])


_ORIGINAL_OPTIONS = {"lr", "betas", "eps", "weight_decay", "momentum", "alpha", "params"}


def _old_checkpoint(T, name, number_step=False):
    """A state dict saved before the newer options existed (and, optionally, with the plain
    number ``step`` of old releases) loaded into a fresh optimizer, which then steps."""
    w = T.nn.Parameter(T.tensor([1.0, -2.0]))
    opt = getattr(T.optim, name)([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    saved = opt.state_dict()
    saved["param_groups"] = [
        {k: v for k, v in group.items() if k in _ORIGINAL_OPTIONS}
        for group in saved["param_groups"]
    ]
    if number_step:
        saved["state"][0]["step"] = float(saved["state"][0]["step"])
    again = getattr(T.optim, name)([w], lr=0.1, maximize=True)
    again.load_state_dict(saved)
    again.zero_grad()
    (w * w).sum().backward()
    again.step()
    group = again.param_groups[0]
    return w.detach(), group["maximize"], group.get("amsgrad"), again.state[w]["step"]


def _ema_of_integers(T):
    averaged = [T.tensor([5, -7, 3])]
    T.optim.swa_utils.get_ema_multi_avg_fn(0.3)(averaged, [T.tensor([10, 2, 4])], 1)
    return averaged[0]


def _ema_with_buffers(T):
    model = T.nn.Sequential(T.nn.Identity(), T.nn.BatchNorm1d(2))
    ema = T.optim.swa_utils.get_ema_multi_avg_fn(0.5)
    averaged = T.optim.swa_utils.AveragedModel(model, multi_avg_fn=ema, use_buffers=True)
    for batch in ([[1.0, 2.0], [3.0, 5.0]], [[0.0, 2.0], [3.0, 1.0]]):
        model(T.tensor(batch))
        averaged.update_parameters(model)
    bn = averaged.module[1]
    return bn.running_mean, bn.num_batches_tracked


CASES = {
    # -- a 0-d tensor alpha is read as its number (an optimizer's tensor lr passes it on)
    "add_tensor_alpha": (
        lambda T: T.ones(2).add(T.ones(2), alpha=T.tensor(2)),
        ([3.0, 3.0], F32, None),
    ),
    "add_inplace_tensor_alpha": (
        lambda T: T.ones(2).add_(T.tensor([1.0, 2.0]), alpha=T.tensor(-0.5)),
        ([0.5, 0.0], F32, None),
    ),
    "sub_tensor_alpha": (
        lambda T: T.sub(
            T.ones(2, dtype=T.float64), T.ones(2, dtype=T.float64), alpha=T.tensor(0.25)
        ),
        ([0.75, 0.75], F64, None),
    ),
    "add_tensor_alpha_grad": (
        lambda T: (lambda x: x.add(x, alpha=T.tensor(3.0)))(T.ones(2, requires_grad=True)),
        ([4.0, 4.0], F32, "AddBackward0"),
    ),
    "add_one_element_alpha": (
        lambda T: T.add(T.ones(2), T.ones(2), alpha=T.tensor([0.5])),
        ("raises", "TypeError"),
    ),
    "add_int_float_tensor_alpha": (
        lambda T: T.tensor([1, 2]).add(T.tensor([1, 1]), alpha=T.tensor(0.5)),
        ("raises", "RuntimeError"),
    ),
    "sgd_tensor_lr": (
        lambda T: _steps(T, lambda T, p: T.optim.SGD(p, lr=T.tensor(0.1))),
        ([0.268, -1.268, 1.292], F32, None),
    ),
    "sgd_tensor_lr_momentum": (
        lambda T: _steps(
            T, lambda T, p: T.optim.SGD(p, lr=T.tensor(0.1), momentum=0.9), dtype=T.float64
        ),
        ([-0.407, -0.593, -0.283], F64, None),
    ),
    "old_scheduler_base_class": (_old_style_schedule, ((1.0, 0.5, 0.25, 0.125), True)),
    # -- differentiable=True records the step (as in MAML-style inner loops)
    "sgd_differentiable": (
        lambda T: _differentiable_steps(T, "SGD", momentum=0.9),
        (
            ([0.855, -2.0725, 3.29], F64, None),
            ([1.71, -4.145, 6.58], F64, None),
            ([-0.171, 0.4145, -0.658], F64, None),
            True,
        ),
    ),
    "radam_differentiable": (
        lambda T: _differentiable_steps(T, "RAdam"),
        (
            ([0.9, -2.05, 3.2], F64, None),
            ([1.8, -4.1, 6.4], F64, None),
            ([-0.36, 0.82, -1.28], F64, None),
            True,
        ),
    ),
    "adagrad_differentiable": (
        lambda T: _differentiable_steps(T, "Adagrad"),
        (
            ([0.8293, -2.1707, 3.1707], F64, None),
            ([1.6586, -4.3414, 6.3414], F64, None),
            ([0.0, 0.0, 0.0], F64, None),
            True,
        ),
    ),
    "rmsprop_differentiable": (
        lambda T: _differentiable_steps(T, "RMSprop", weight_decay=0.1),
        (
            ([-0.6421, -2.2911, 4.6527], F64, None),
            ([-1.268, 1.8817, 9.2223], F64, None),
            ([0.1615, 64.639, -0.8301], F64, None),
            True,
        ),
    ),
    "differentiable_leaf_in_place": (_differentiable_leaf, ("raises", "RuntimeError")),
    "multiplicative_explicit_epoch_zero": (_multiplicative_with_epochs, (0.5, 0.25, 0.125)),
    # -- capturable=True is kept, but the CPU cannot step it
    **{
        f"capturable_{name.lower()}": (
            lambda T, name=name: _capturable_step(T, name),
            ("raises", "AssertionError"),
        )
        for name in ("Adam", "AdamW", "NAdam", "RAdam", "Adamax", "Adadelta", "RMSprop", "Rprop")
    },
    "capturable_without_gradients": (
        lambda T: _capturable_step(T, "Adam", with_grad=False),
        ([1.0, -2.0, 3.0], F32, None),
    ),
    # -- fused=True excludes foreach and differentiable
    **{
        f"fused_{name.lower()}_{other}": (
            lambda T, name=name, other=other: getattr(T.optim, name)(
                [_param(T)], lr=0.1, fused=True, **{other: True}
            ),
            ("raises", "RuntimeError"),
        )
        for name in ("SGD", "Adam", "AdamW", "Adagrad")
        for other in ("foreach", "differentiable")
    },
    "fused_alone": (
        lambda T: _steps(T, lambda T, p: T.optim.SGD(p, lr=0.1, fused=True), steps=1),
        ([0.7, -1.7, 2.3], F32, None),
    ),
    # -- Adafactor
    "adafactor": (
        _adafactor,
        (
            ([[0.949, -1.9483, 0.4479], [0.3512, 0.6481, -1.0477]], F64, None),
            ([0.1727, -0.3721, 0.8721], F64, None),
            (0.666, F64, None),
            ((), (2, 2, 1), (2, 1, 3)),
            ("step", "variance"),
        ),
    ),
    "adafactor_options": (
        lambda T: _adafactor(
            T,
            lr=0.05,
            beta2_decay=-0.5,
            eps=(1e-20, 1e-2),
            d=2.0,
            weight_decay=0.1,
            maximize=True,
        ),
        (
            ([[1.2936, -2.2622, 0.7941], [-0.0239, 0.9925, -1.3775]], F64, None),
            ([0.3658, -0.5554, 1.043], F64, None),
            (0.877, F64, None),
            ((), (2, 2, 1), (2, 1, 3)),
            ("step", "variance"),
        ),
    ),
    "adafactor_tensor_lr": (
        lambda T: _adafactor(T, lr=T.tensor(0.3))[:3],
        (
            ([[0.5999, -1.5042, -0.1202], [0.7406, 0.1237, -0.3336]], F64, None),
            ([0.0748, -0.0759, 0.5852], F64, None),
            (0.1919, F64, None),
        ),
    ),
    "adafactor_bad_decay": (lambda T: _adafactor(T, beta2_decay=0.5), ("raises", "ValueError")),
    "adafactor_bad_d": (lambda T: _adafactor(T, d=0.5), ("raises", "ValueError")),
    # -- older checkpoints: the missing options take the constructor's defaults
    "adam_checkpoint_without_new_options": (
        lambda T: _old_checkpoint(T, "Adam"),
        (([0.8004, -1.8002], F32, None), False, False, (2.0, F32, None)),
    ),
    "rmsprop_checkpoint_without_new_options": (
        lambda T: _old_checkpoint(T, "RMSprop"),
        (([0.0, -0.551], F32, None), False, None, (2.0, F32, None)),
    ),
    "adam_checkpoint_number_step": (
        lambda T: _old_checkpoint(T, "Adam", number_step=True),
        (([0.8004, -1.8002], F32, None), False, False, (2.0, F32, None)),
    ),
    "radam_checkpoint_number_step": (
        lambda T: _old_checkpoint(T, "RAdam", number_step=True),
        (([0.6211, -1.2421], F32, None), False, None, (2.0, F32, None)),
    ),
    "multiplicative_not_callable": (
        lambda T: T.optim.lr_scheduler.MultiplicativeLR(T.optim.SGD([_param(T)], lr=0.1), 5),
        ("raises", "TypeError"),
    ),
    "sequential_not_a_schedule": (
        lambda T: (
            lambda opt: T.optim.lr_scheduler.SequentialLR(
                opt, [T.optim.lr_scheduler.StepLR(opt, 1), 5], milestones=[1]
            )
        )(T.optim.SGD([_param(T)], lr=0.1)),
        ("raises", "TypeError"),
    ),
    # -- hyperparameter checks at construction
    "lr_two_element_tensor": (
        lambda T: T.optim.RMSprop([_param(T)], lr=T.tensor([0.1, 0.2])),
        ("raises", "ValueError"),
    ),
    "adam_int_beta": (
        lambda T: T.optim.Adam([_param(T)], betas=(0, 0.9)),
        ("raises", "ValueError"),
    ),
    "adamw_betas_list_becomes_tuple": (
        lambda T: T.optim.AdamW([_param(T)], betas=[0.8, 0.9]).defaults["betas"],
        (0.8, 0.9),
    ),
    "adam_betas_tensor_and_float": (
        lambda T: T.optim.Adam([_param(T)], betas=(T.tensor(0.8), 0.9)),
        ("raises", "ValueError"),
    ),
    "adam_one_element_betas": (
        lambda T: T.optim.Adam([_param(T)], betas=(T.tensor([0.8]), T.tensor(0.9))).defaults[
            "betas"
        ],
        ((0.8, F32, None), (0.9, F32, None)),
    ),
    "repr_two_groups": (
        lambda T: repr(
            T.optim.Adagrad([{"params": [_param(T)]}, {"params": [_param(T)], "lr": 0.5}])
        ).replace("torch", "symgrad"),
        "Adagrad (\nParameter Group 0\n    differentiable: False\n    eps: 1e-10\n"
        "    foreach: None\n    fused: None\n    initial_accumulator_value: 0\n    lr: 0.01\n"
        "    lr_decay: 0\n    maximize: False\n    weight_decay: 0\n\nParameter Group 1\n"
        "    differentiable: False\n    eps: 1e-10\n    foreach: None\n    fused: None\n"
        "    initial_accumulator_value: 0\n    lr: 0.5\n    lr_decay: 0\n    maximize: False\n"
        "    weight_decay: 0\n)",
    ),
    # -- swa_utils: an integer buffer (num_batches_tracked) takes the truncated average
    "ema_integer_buffer": (_ema_of_integers, ([8, 0, 3], "int64", None)),
    "ema_model_with_batch_norm_buffers": (
        _ema_with_buffers,
        (([0.265, 0.4075], F32, None), (1, "int64", None)),
    ),
    # -- nn.utils
    "clip_grad_norm_deprecated": (
        lambda T: _clip_norm(T, lambda T, p: T.nn.utils.clip_grad_norm(p, 1.0)),
        ((13.0, F32, None), ([0.2308, -0.3077], F32, None), ([0.9231], F32, None)),
    ),
    "clip_grad_norm_float16": (
        lambda T: (lambda params: (T.nn.utils.clip_grad_norm_(params, 1.0), params[0].grad))(
            _graded(T, [(3.0, -4.0), (12.0,)], dtype=T.float16)
        ),
        ((13.0, "float16", None), ([0.2307, -0.3076], "float16", None)),
    ),
    "total_norm_float16_sums_wide": (
        lambda T: T.nn.utils.get_total_norm([T.full((1000,), 100.0, dtype=T.float16)]),
        (3162.0, "float16", None),
    ),
    "vector_to_parameters_longer_vector": (
        lambda T: _vector_to_parameters(T, T.arange(5.0)),
        (([0.0, 1.0], F32, None), ([2.0], F32, None)),
    ),
    "vector_to_parameters_short_vector": (
        lambda T: _vector_to_parameters(T, T.arange(2.0)),
        ("raises", "RuntimeError"),
    ),
}


test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def test_clip_grad_norm_warns_that_it_is_deprecated():
    (p,) = _graded(symgrad, [(3.0, 4.0)])
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        total = symgrad.nn.utils.clip_grad_norm(p, 1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)
