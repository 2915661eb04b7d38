"""``nn.functional`` activations, normalizations and losses beyond the classification ones,
with second derivatives and float32."""

from __future__ import annotations

from crosscheck.spec import C, F, I, program

_X = F(4, 6, lo=-4, hi=4)


@program(_X, second_order=True, float32=True)
def selu_celu_mish(T, x):
    f = T.nn.functional
    return f.selu(x) + f.celu(x, 0.5) + f.mish(x)


@program(_X, second_order=True, float32=True)
def hard_activations(T, x):
    f = T.nn.functional
    return f.hardtanh(x, -2.0, 2.5) * f.hardswish(x) + f.relu6(x * 2)


@program(_X, second_order=True, float32=True)
def shrinks_and_logsigmoid(T, x):
    f = T.nn.functional
    return f.softshrink(x, 0.7) * f.hardshrink(x, 0.3) + f.logsigmoid(x) + f.tanhshrink(x)


@program(_X, second_order=True, float32=True)
def glu_softmin_softsign(T, x):
    f = T.nn.functional
    return f.glu(x, 1) * f.softmin(x[:, :3], dim=0) + f.softsign(x[:, 3:])


@program(F(3, 4, 2), F(4, 2), F(4, 2), second_order=True, float32=True)
def layer_norm(T, x, w, b):
    return T.nn.functional.layer_norm(x, (4, 2), w, b)


@program(F(2, 4, 3), F(4), F(4), second_order=True, float32=True)
def group_norm(T, x, w, b):
    return T.nn.functional.group_norm(x, 2, w, b)


@program(F(5, 3, 2), F(3), F(3), second_order=True, float32=True)
def batch_norm_training(T, x, w, b):
    return T.nn.functional.batch_norm(x, None, None, w, b, training=True, eps=1e-3)


@program(F(5, 3), C(3, lo=-1, hi=1), C(3, lo=0.5, hi=2), F(3), second_order=True, float32=True)
def batch_norm_eval(T, x, mean, var, w):
    return T.nn.functional.batch_norm(x, mean, var, w)


@program(F(4, 3), F(4, 3), second_order=True, float32=True)
def cosine_and_distance(T, x, y):
    f = T.nn.functional
    return f.cosine_similarity(x, y) * f.pairwise_distance(x, y) + f.normalize(x).sum(1)


@program(F(4, 3), C(4, 3, lo=0.1, hi=1), second_order=True, float32=True)
def kl_div_batchmean(T, x, t):
    return T.nn.functional.kl_div(x.log_softmax(1), t, reduction="batchmean")


@program(F(4, 3), F(4, 3), second_order=True, float32=True)
def smooth_l1_and_huber(T, x, y):
    f = T.nn.functional
    return f.smooth_l1_loss(x, y, beta=0.5) + f.huber_loss(x, y, delta=0.8, reduction="sum")


@program(F(4, 3), C(4, 3, lo=0, hi=4), F(4, 3), F(4, 3, lo=0.2, hi=2), second_order=True)
def likelihood_losses(T, x, t, m, v):
    f = T.nn.functional
    return f.poisson_nll_loss(x, t, full=True) + f.gaussian_nll_loss(m, x, v, full=True)


@program(F(4, 3), F(4, 3), F(4, 3), second_order=True, float32=True)
def triplet_margin(T, a, p, n):
    return T.nn.functional.triplet_margin_loss(a, p, n, margin=2.0, swap=True)


@program(F(6), F(6), C(values=[1.0, -1.0, 1.0, 1.0, -1.0, -1.0]), second_order=True)
def ranking_and_hinge(T, x, y, t):
    f = T.nn.functional
    return f.margin_ranking_loss(x, y, t, margin=0.3) + f.hinge_embedding_loss(x, t, 0.5)


@program(F(5, 3), I([[4, 0], [2, 2]]), second_order=True, float32=True)
def embedding_padding(T, w, idx):
    return T.nn.functional.embedding(idx, w, padding_idx=2) * 2.0


@program(F(4, 3), F(4, 2), F(5, 3, 2), F(5), second_order=True, float32=True)
def bilinear(T, x, y, w, b):
    return T.nn.functional.bilinear(x, y, w, b)
