"""``nn.functional`` losses and layers, small networks and training loops."""

from __future__ import annotations

from crosscheck.spec import C, F, I, program

# -- nn.functional ---------------------------------------------------------------------------------

_LOGITS = (F(4, 3, lo=-3, hi=3), C(4, 3, lo=0, hi=1))


@program(*_LOGITS, second_order=True, float32=True)
def bce_with_logits(T, x, t):
    return T.nn.functional.binary_cross_entropy_with_logits(x, t)


@program(*_LOGITS)
def bce_with_logits_sum(T, x, t):
    return T.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="sum")


@program(*_LOGITS)
def bce_with_logits_none(T, x, t):
    return T.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none")


@program(*_LOGITS, C(4, 3, lo=0.2, hi=2.0), C(3, lo=0.5, hi=3.0))
def bce_with_logits_weight_pos_weight(T, x, t, w, pw):
    return T.nn.functional.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw)


@program(*_LOGITS, C(3, lo=0.5, hi=3.0))
def bce_with_logits_pos_weight_none(T, x, t, pw):
    f = T.nn.functional
    return f.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none")


@program(F(4, 3, lo=0.05, hi=0.95), C(4, 3, lo=0, hi=1), second_order=True)
def bce(T, p, t):
    return T.nn.functional.binary_cross_entropy(p, t)


@program(F(4, 3, lo=0.05, hi=0.95), C(4, 3, lo=0, hi=1), C(3, lo=0.5, hi=2.0))
def bce_weight_none(T, p, t, w):
    return T.nn.functional.binary_cross_entropy(p, t, weight=w, reduction="none")


@program(F(4, 3, lo=-3, hi=3), C(4, 3, lo=0, hi=1), composite=True)
def bce_of_sigmoid(T, x, t):
    return T.nn.functional.binary_cross_entropy(T.sigmoid(x), t, reduction="sum")


_CLASSES = (F(5, 4, lo=-3, hi=3), I([0, 3, 1, 3, 2]))


@program(*_CLASSES, second_order=True, float32=True)
def cross_entropy(T, x, y):
    return T.nn.functional.cross_entropy(x, y)


@program(*_CLASSES)
def cross_entropy_sum(T, x, y):
    return T.nn.functional.cross_entropy(x, y, reduction="sum")


@program(*_CLASSES)
def cross_entropy_none(T, x, y):
    return T.nn.functional.cross_entropy(x, y, reduction="none")


@program(F(5, 4, lo=-3, hi=3), I([0, -100, 1, 3, -100]))
def cross_entropy_ignore_index(T, x, y):
    return T.nn.functional.cross_entropy(x, y)


@program(F(5, 4, lo=-3, hi=3), I([0, 2, 1, 2, 3]))
def cross_entropy_custom_ignore_index(T, x, y):
    return T.nn.functional.cross_entropy(x, y, ignore_index=2, reduction="sum")


@program(*_CLASSES, C(4, lo=0.2, hi=2.0))
def cross_entropy_weight(T, x, y, w):
    return T.nn.functional.cross_entropy(x, y, weight=w)


@program(F(5, 4, lo=-3, hi=3), I([0, -100, 1, 3, 2]), C(4, lo=0.2, hi=2.0))
def cross_entropy_weight_ignore_index(T, x, y, w):
    return T.nn.functional.cross_entropy(x, y, weight=w)


@program(*_CLASSES, composite=True)
def cross_entropy_label_smoothing(T, x, y):
    return T.nn.functional.cross_entropy(x, y, label_smoothing=0.2)


@program(*_CLASSES, C(4, lo=0.2, hi=2.0), composite=True)
def cross_entropy_label_smoothing_weight(T, x, y, w):
    return T.nn.functional.cross_entropy(x, y, weight=w, label_smoothing=0.1)


@program(F(5, 4, lo=-3, hi=3), I([0, -100, 1, 3, 2]), composite=True)
def cross_entropy_label_smoothing_ignore(T, x, y):
    return T.nn.functional.cross_entropy(x, y, label_smoothing=0.3, reduction="sum")


@program(F(5, 4, lo=-3, hi=3), I([0, -100, 1, 3, 2]), C(4, lo=0.2, hi=2.0), composite=True)
def cross_entropy_label_smoothing_weight_ignore(T, x, y, w):
    return T.nn.functional.cross_entropy(x, y, weight=w, label_smoothing=0.25)


@program(F(5, 4, lo=-3, hi=3), I([0, -100, 1, 3, 2]), composite=True)
def cross_entropy_label_smoothing_ignore_mean(T, x, y):
    return T.nn.functional.cross_entropy(x, y, label_smoothing=0.3)


@program(F(5, 4, lo=-3, hi=3), C(5, 4, lo=0, hi=1), composite=True, second_order=True)
def cross_entropy_probabilities(T, x, p):
    return T.nn.functional.cross_entropy(x, p)


@program(F(5, 4, lo=-3, hi=3), C(5, 4, lo=0, hi=1), C(4, lo=0.2, hi=2.0), composite=True)
def cross_entropy_probabilities_weight_smoothing(T, x, p, w):
    f = T.nn.functional
    return f.cross_entropy(x, p, weight=w, label_smoothing=0.1, reduction="none")


@program(F(2, 3, 4, lo=-3, hi=3), I([[0, 2, 1, 0], [2, 2, -100, 1]]))
def cross_entropy_spatial(T, x, y):
    """Class scores along dim 1 of an (N, C, d) input."""
    return T.nn.functional.cross_entropy(x, y)


@program(F(4, lo=-3, hi=3), I(2))
def cross_entropy_unbatched(T, x, y):
    return T.nn.functional.cross_entropy(x, y)


@program(*_CLASSES, C(4, lo=0.2, hi=2.0))
def nll_loss_of_log_softmax(T, x, y, w):
    f = T.nn.functional
    return f.nll_loss(f.log_softmax(x, 1), y, weight=w)


@program(F(5, 4, lo=-3, hi=0), I([0, -100, 1, 3, 2]))
def nll_loss_none(T, x, y):
    return T.nn.functional.nll_loss(x, y, reduction="none")


@program(F(3, 4), C(3, 4), second_order=True, float32=True)
def mse_loss(T, x, t):
    return T.nn.functional.mse_loss(x, t)


@program(F(3, 4), F(3, 4))
def mse_loss_both_sum(T, x, t):
    return T.nn.functional.mse_loss(x, t, reduction="sum")


@program(F(3, 4), C(3, 4))
def mse_loss_none(T, x, t):
    return T.nn.functional.mse_loss(x, t, reduction="none")


@program(F(3, 4), C(3, 4), composite=True)
def l1_loss(T, x, t):
    return T.nn.functional.l1_loss(x, t)


@program(F(3, 4), F(3, 4), composite=True)
def l1_loss_sum(T, x, t):
    return T.nn.functional.l1_loss(x, t, reduction="sum")


@program(F(5, 3), F(4, 3), F(4), second_order=True, float32=True)
def linear(T, x, w, b):
    return T.nn.functional.linear(x, w, b)


@program(F(2, 5, 3), F(4, 3))
def linear_no_bias_3d(T, x, w):
    return T.nn.functional.linear(x, w)


@program(
    F(6, 4),
    F(5, 4, lo=-1, hi=1),
    F(5),
    F(3, 5, lo=-1, hi=1),
    F(3),
    I([0, 2, 1, 1, 0, 2]),
    second_order=True,
    float32=True,
)
def mlp_cross_entropy(T, x, w1, b1, w2, b2, y):
    f = T.nn.functional
    hidden = f.relu(f.linear(x, w1, b1))
    return f.cross_entropy(f.linear(hidden, w2, b2), y)


@program(F(6, 3), F(3, 4, lo=-1, hi=1), F(4), F(4, 1, lo=-1, hi=1), C(6, 1, lo=0, hi=1))
def two_layer_tanh_bce(T, x, w1, b1, w2, t):
    h = T.tanh(x @ w1 + b1)
    return T.nn.functional.binary_cross_entropy_with_logits(h @ w2, t)


# -- training loops --------------------------------------------------------------------------------


def _sgd_step(T, params, lr):
    """One SGD step in place, the way PyTorch tutorials write it."""
    with T.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad.zero_()


@program(C(8, 3), F(3, 1), F(1), C(8, 1))
def sgd_linear_regression(T, x, w, b, y):
    for _ in range(4):
        loss = T.nn.functional.mse_loss(x @ w + b, y)
        loss.backward()
        _sgd_step(T, (w, b), 0.1)
    return T.nn.functional.mse_loss(x @ w + b, y)


@program(C(8, 3), F(3, 1), F(1), C(8, 1, lo=0, hi=1), float32=True)
def sgd_logistic_regression(T, x, w, b, y):
    for _ in range(3):
        z = T.matmul(x, w) + b
        loss = T.nn.functional.binary_cross_entropy_with_logits(z, y)
        loss.backward()
        _sgd_step(T, (w, b), 0.5)
    return T.nn.functional.binary_cross_entropy_with_logits(T.matmul(x, w) + b, y)


@program(C(6, 4), F(4, 5, lo=-1, hi=1), F(5), F(5, 3, lo=-1, hi=1), F(3), I([0, 2, 1, 1, 0, 2]))
def sgd_mlp(T, x, w1, b1, w2, b2, y):
    def loss_fn():
        hidden = (x @ w1 + b1).relu()
        return T.nn.functional.cross_entropy(hidden @ w2 + b2, y)

    for _ in range(3):
        loss_fn().backward()
        _sgd_step(T, (w1, b1, w2, b2), 0.3)
    return loss_fn()


@program(F(3), F(3))
def grad_accumulation_retain_graph(T, x, y):
    """Two backward passes through one retained graph add up in ``.grad``."""
    loss = (x * y).exp().sum()
    loss.backward(retain_graph=True)
    return loss


@program(F(2, 3))
def detach_and_no_grad(T, x):
    with T.no_grad():
        scale = x.abs().sum()
    frozen = (x * 3).detach()
    return x * scale + frozen * x
