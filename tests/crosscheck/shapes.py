"""Shape ops, indexing (reading and writing) and matrix products."""

from __future__ import annotations

from crosscheck.spec import B, C, F, I, program

# -- shape ops ----------------------------------------------------------------------------------


@program(F(2, 6))
def reshape(T, x):
    return x.reshape(3, 4)


@program(F(2, 6))
def reshape_infer(T, x):
    return T.reshape(x, (-1, 2))


@program(F(2, 6))
def view(T, x):
    return x.view(4, 3)


@program(F(2, 3, 2))
def flatten(T, x):
    return x.flatten()


@program(F(2, 3, 2))
def flatten_range(T, x):
    return T.flatten(x, 1)


@program(F(2, 3, 4))
def transpose(T, x):
    return x.transpose(0, -1)


@program(F(2, 3, 4))
def permute(T, x):
    return x.permute(2, 0, 1)


@program(F(2, 3))
def t_method(T, x):
    return x.t()


@program(F(2, 3))
def t_function(T, x):
    return T.t(x)


@program(F(2, 3))
def T_property(T, x):  # noqa: N802 - named after the property it exercises
    return x.T


@program(F(2, 1, 3, 1))
def squeeze_all(T, x):
    return x.squeeze()


@program(F(2, 1, 3, 1))
def squeeze_dim(T, x):
    return x.squeeze(-1)


@program(F(2, 1, 3, 1))
def squeeze_dims_tuple(T, x):
    return x.squeeze((1, 3))


@program(F(2, 3))
def unsqueeze(T, x):
    return T.unsqueeze(x, -1)


@program(F(3, 1))
def expand(T, x):
    return x.expand(2, 3, 4)


@program(F(3, 1))
def expand_keep(T, x):
    return x.expand(-1, 4)


@program(F(1, 3))
def broadcast_to(T, x):
    return T.broadcast_to(x, (4, 3))


@program(F(2, 3), F(1, 3), F(4, 3))
def cat(T, x, y, z):
    return T.cat([x, y, z])


@program(F(2, 3), F(2, 1))
def cat_last(T, x, y):
    return T.cat((x, y), dim=-1)


@program(F(2, 3), F(2, 3))
def stack(T, x, y):
    return T.stack([x, y], dim=1)


@program(F(5, 2), composite=True)
def split(T, x):
    return x.split(2)


@program(F(2, 6), composite=True)
def split_sections(T, x):
    return T.split(x, [1, 3, 2], dim=1)


@program(F(5, 2), composite=True)
def chunk(T, x):
    return x.chunk(3)


@program(F(2, 3, 4))
def flip(T, x):
    return T.flip(x, (0, 2))


@program(F(2, 3))
def flip_method(T, x):
    return x.flip(-1)


# -- indexing -------------------------------------------------------------------------------------


@program(F(3, 4))
def index_int(T, x):
    return x[1]


@program(F(3, 4))
def index_negative_int(T, x):
    return x[:, -1]


@program(F(3, 4))
def index_slice(T, x):
    return x[:, 1:3]


@program(F(5, 4))
def index_slice_step(T, x):
    return x[::2, 1:]


@program(F(3, 4))
def index_none_ellipsis(T, x):
    return x[None, ..., 0]


@program(F(3, 4))
def index_ellipsis_none(T, x):
    return x[..., None]


@program(F(3, 4), I(1))
def index_0d_tensor(T, x, i):
    return x[i]


@program(F(4, 3), I([0, 2, 0, 3]))
def index_tensor_repeats(T, x, i):
    """Repeated indices accumulate their gradients."""
    return x[i]


@program(F(3, 4), I([0, 2]), I([1, 1]))
def index_tensor_pairs(T, x, i, j):
    return x[i, j]


@program(F(3, 4), I([2, 0]))
def index_tensor_then_none(T, x, i):
    return x[i, None, 1:]


@program(F(3, 4), B([[True, False, True, True], [False] * 4, [True, False, False, True]]))
def index_bool_mask(T, x, m):
    return x[m]


@program(F(3, 4))
def index_comparison_mask(T, x):
    return x[x > 0.5]


@program(F(3, 4), F(4))
def setitem_non_leaf(T, x, v):
    y = x * 2
    y[0] = v
    y[:, 1] = 0.0
    return y


@program(F(3, 4))
def setitem_mask_then_sum(T, x):
    y = x * x
    y[x < 0] = 0.0
    return (y * x).sum()


# -- matmul ---------------------------------------------------------------------------------------


@program(F(4), F(4), second_order=True)
def matmul_1d_1d(T, x, y):
    return x @ y


@program(F(3, 4), F(4))
def matmul_2d_1d(T, x, y):
    return T.matmul(x, y)


@program(F(4), F(4, 3), composite=True)
def matmul_1d_2d(T, x, y):
    return x.matmul(y)


@program(F(3, 4), F(4, 2), second_order=True, float32=True)
def matmul_2d_2d(T, x, y):
    return x @ y


@program(F(2, 3, 4), F(4, 2), composite=True)
def matmul_3d_2d(T, x, y):
    return x @ y


@program(F(2, 1, 3, 4), F(5, 4, 2), composite=True, second_order=True)
def matmul_broadcast_batch(T, x, y):
    return T.matmul(x, y)


@program(F(4), F(2, 4, 3), composite=True)
def matmul_1d_3d(T, x, y):
    return x @ y


@program(F(3, 4), F(4, 2))
def mm(T, x, y):
    return T.mm(x, y)


@program(F(4), F(4))
def dot(T, x, y):
    return x.dot(y)


@program(F(3, 4), F(4))
def mv(T, x, y):
    return T.mv(x, y)


@program(F(2, 3, 4), F(2, 4, 5))
def bmm(T, x, y):
    return x.bmm(y)


# -- more shape and index ops ----------------------------------------------------------------------


@program(F(3, 4), I([[0, 2], [1, 1], [3, 0]]))
def gather(T, x, i):
    return x.gather(1, i)


@program(F(3, 4), I([2, 0, 2]))
def index_select(T, x, i):
    return T.index_select(x, 1, i)


@program(F(3, 4), I([-1, 0]))
def index_negative_tensor(T, x, i):
    return x[i]


@program(F(3, 4))
def masked_fill(T, x):
    return x.masked_fill(x > 0.5, -1.0)


@program(F(3, 4), F())
def masked_fill_tensor_value(T, x, v):
    return x.masked_fill(x > 0.5, v)


@program(F(4))
def masked_fill_mask_broadcasts_the_input(T, x):
    return x.masked_fill(T.tensor([[True], [False]]), 2.0)


@program(F(3, 4), I(2))
def index_select_0d_index(T, x, i):
    return T.index_select(x, 1, i)


@program(F(2, 3), F(2, 3), F(2, 3))
def stack_last(T, x, y, z):
    return T.stack([x, y, z], dim=-1)


@program(F(3, 4), composite=True)
def narrow_unbind(T, x):
    return [x.narrow(1, 1, 2)] + list(x.unbind(0))


@program(F(2, 3, 4))
def movedim(T, x):
    return x.movedim(0, -1)


@program(F(3), F(4))
def outer(T, x, y):
    return T.outer(x, y)


@program(F(2, 3, 4), F(4), composite=True)
def matmul_3d_1d(T, x, y):
    return x @ y


@program(F(3, 4), F(2))
def setitem_tensor_index(T, x, v):
    y = x.exp()
    z = y * 1.0
    z[T.tensor([0, 2]), 1] = v
    return z


@program(F(3, 4), F(2, 4))
def setitem_slice_with_tensor(T, x, v):
    y = x * 3
    y[1:] = v.sin()
    return y


@program(F(3, 4))
def silu(T, x):
    return T.nn.functional.silu(x)


@program(F(2, 3), F(2, 3), second_order=True)
def shape_ops_then_nonlinear(T, x, y):
    """Second derivatives through cat, transpose, indexing and expand."""
    z = T.cat([x, y], 0).t()
    return (z[1:].exp() * z[:2].sin()).sum() + (x[:, :1].expand(2, 5) ** 3).sum()


@program(F(4, 3), I([0, 2, 0, 3]), second_order=True)
def index_then_square(T, x, i):
    return (x[i] ** 2 * x[i].cos()).sum()


@program(F(5, 4, lo=-3, hi=3), I([0, 3, 1, 3, 2]), C(4, lo=0.2, hi=2.0))
def nll_loss_sum_weight(T, x, y, w):
    return T.nn.functional.nll_loss(x, y, weight=w, reduction="sum")
