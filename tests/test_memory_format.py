"""Memory formats as PyTorch has them: the four constants, the strides they give (a
channels-last tensor is an NHWC array viewed as NCHW), what ``preserve_format`` keeps,
``is_contiguous(memory_format=...)``, and ``to``/``contiguous`` returning the tensor itself
when nothing changes. Each call of the table runs in symgrad against PyTorch's strides written
out, and against PyTorch itself when it is installed."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import symgrad


def _cl(T, *shape):
    return T.arange(float(np.prod(shape))).reshape(shape).contiguous(memory_format=T.channels_last)


def _cl3(T, *shape):
    x = T.arange(float(np.prod(shape))).reshape(shape)
    return x.contiguous(memory_format=T.channels_last_3d)


def _x(T, *shape):
    return T.arange(float(np.prod(shape))).reshape(shape)


def _grad(T, leaf, fn, times=1, create_graph=False):
    """``leaf.grad`` after ``times`` backward passes of ``fn(leaf).sum()``."""
    leaf.requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's warning for backward(create_graph=True)
        for _ in range(times):
            fn(leaf).sum().backward(create_graph=create_graph)
    return leaf.grad


# name -> (a call of the module T, PyTorch's strides of its result)
STRIDES = {
    # PyTorch's AccumulateGrad layout contract: a leaf's .grad has the leaf's strides where its
    # elements fill a block, else row-major ones
    "grad_of_channels_last_leaf": (
        lambda T: _grad(T, _cl(T, 2, 3, 4, 5), lambda w: w * 2),
        (60, 1, 15, 3),
    ),
    "grad_of_channels_last_leaf_twice": (
        lambda T: _grad(T, _cl(T, 2, 3, 4, 5), lambda w: w * 2, times=2),
        (60, 1, 15, 3),
    ),
    "grad_of_channels_last_leaf_create_graph": (
        lambda T: _grad(T, _cl(T, 2, 3, 4, 5), lambda w: w * w, create_graph=True),
        (60, 1, 15, 3),
    ),
    "grad_of_transposed_leaf": (lambda T: _grad(T, _x(T, 4, 3).t(), lambda w: w * 2), (1, 3)),
    "grad_through_a_transpose": (
        lambda T: _grad(T, _x(T, 3, 4), lambda w: w.t() * _x(T, 4, 3)),
        (4, 1),
    ),
    "grad_of_strided_leaf": (lambda T: _grad(T, _x(T, 4, 6)[:, ::2], lambda w: w * 2), (3, 1)),
    "empty_channels_last": (
        lambda T: T.empty(2, 3, 4, 5, memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "empty_channels_last_one_channel": (
        lambda T: T.empty(2, 1, 4, 5, memory_format=T.channels_last),
        (20, 1, 5, 1),
    ),
    "empty_channels_last_no_batch": (
        lambda T: T.empty(0, 3, 4, 5, memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "empty_channels_last_no_rows": (
        lambda T: T.empty(2, 3, 0, 5, memory_format=T.channels_last),
        (0, 1, 15, 3),
    ),
    "empty_channels_last_3d": (
        lambda T: T.empty(2, 3, 4, 5, 6, memory_format=T.channels_last_3d),
        (360, 1, 90, 18, 3),
    ),
    "empty_contiguous": (
        lambda T: T.empty(2, 3, 4, 5, memory_format=T.contiguous_format),
        (60, 20, 5, 1),
    ),
    "empty_none": (lambda T: T.empty(2, 3, memory_format=None), (3, 1)),
    "clone_channels_last": (
        lambda T: _x(T, 2, 3, 4, 5).clone(memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "clone_keeps_channels_last": (lambda T: _cl(T, 2, 3, 4, 5).clone(), (60, 1, 15, 3)),
    "clone_contiguous_of_channels_last": (
        lambda T: _cl(T, 2, 3, 4, 5).clone(memory_format=T.contiguous_format),
        (60, 20, 5, 1),
    ),
    "clone_keeps_permutation": (
        lambda T: _x(T, 5, 4, 3, 2).permute(3, 2, 1, 0).clone(),
        (1, 2, 6, 24),
    ),
    "clone_of_strided_permuted": (
        lambda T: _x(T, 5, 4, 3, 2).permute(3, 2, 1, 0)[:, :, ::2].clone(),
        (1, 2, 6, 12),
    ),
    "clone_of_sliced_channels_last": (
        lambda T: _cl(T, 2, 3, 4, 5)[:, :, ::2].clone(),
        (30, 1, 15, 3),
    ),
    "clone_of_channel_slice": (lambda T: _cl(T, 2, 3, 4, 5)[:, 1:].clone(), (40, 1, 10, 2)),
    "clone_of_sliced_rows": (lambda T: _x(T, 2, 3, 4, 5)[:, :, ::2].clone(), (30, 10, 5, 1)),
    "clone_of_column": (lambda T: _x(T, 4, 5)[:, 2:3].clone(), (1, 1)),
    "clone_of_one_channel": (lambda T: _x(T, 2, 3, 4, 5)[:, :1].clone(), (20, 20, 5, 1)),
    "clone_of_expanded": (lambda T: _x(T, 3, 1, 1).expand(2, 3, 4, 5).clone(), (60, 20, 5, 1)),
    "clone_of_expanded_row": (lambda T: _x(T, 1, 5).expand(4, 5).clone(), (5, 1)),
    "clone_of_transposed": (lambda T: _x(T, 3, 4).t().clone(), (1, 4)),
    "clone_0d": (lambda T: T.tensor(1.0).clone(memory_format=T.contiguous_format), ()),
    "contiguous_channels_last": (
        lambda T: _x(T, 2, 3, 4, 5).contiguous(memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "contiguous_of_channels_last": (lambda T: _cl(T, 2, 3, 4, 5).contiguous(), (60, 20, 5, 1)),
    "contiguous_preserve_of_contiguous": (
        lambda T: _x(T, 2, 3, 4, 5).contiguous(memory_format=T.preserve_format),
        (60, 20, 5, 1),
    ),
    "empty_like_channels_last": (lambda T: T.empty_like(_cl(T, 2, 3, 4, 5)), (60, 1, 15, 3)),
    "zeros_like_channels_last": (lambda T: T.zeros_like(_cl(T, 2, 3, 4, 5)), (60, 1, 15, 3)),
    "zeros_like_contiguous": (
        lambda T: T.zeros_like(_cl(T, 2, 3, 4, 5), memory_format=T.contiguous_format),
        (60, 20, 5, 1),
    ),
    "zeros_like_none": (lambda T: T.zeros_like(_x(T, 3, 4).t(), memory_format=None), (1, 4)),
    "ones_like_to_channels_last": (
        lambda T: T.ones_like(_x(T, 2, 3, 4, 5), memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "full_like_to_channels_last": (
        lambda T: T.full_like(_x(T, 2, 3, 4, 5), 3.0, memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "rand_like_to_channels_last": (
        lambda T: T.rand_like(_x(T, 2, 3, 4, 5), memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "randn_like_to_channels_last": (
        lambda T: T.randn_like(_x(T, 2, 3, 4, 5), memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "randint_like_to_channels_last": (
        lambda T: T.randint_like(_x(T, 2, 3, 4, 5), 5, memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "empty_like_of_strided_permuted": (
        lambda T: T.empty_like(_x(T, 5, 4, 3, 2).permute(3, 2, 1, 0)[..., ::2]),
        (1, 2, 6, 24),
    ),
    "to_channels_last": (
        lambda T: _x(T, 2, 3, 4, 5).to(memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "to_double_channels_last": (
        lambda T: _x(T, 2, 3, 4, 5).to(T.float64, memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "to_int_channels_last": (
        lambda T: _x(T, 2, 3, 4, 5).to(T.int64, memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "to_copy_keeps_channels_last": (lambda T: _cl(T, 2, 3, 4, 5).to(copy=True), (60, 1, 15, 3)),
    "to_double_keeps_channels_last": (lambda T: _cl(T, 2, 3, 4, 5).to(T.float64), (60, 1, 15, 3)),
    "to_contiguous_of_channels_last": (
        lambda T: _cl(T, 2, 3, 4, 5).to(memory_format=T.contiguous_format),
        (60, 20, 5, 1),
    ),
    # a strided tensor counts as row-major to ``to``: itself, gaps and all
    "to_contiguous_of_strided": (
        lambda T: _x(T, 2, 3, 4, 5)[:, :, ::2].to(memory_format=T.contiguous_format),
        (60, 20, 10, 1),
    ),
    "meta_empty_channels_last": (
        lambda T: T.empty(2, 3, 4, 5, device="meta", memory_format=T.channels_last),
        (60, 1, 15, 3),
    ),
    "meta_clone_keeps_channels_last": (
        lambda T: T.empty(2, 3, 4, 5, device="meta", memory_format=T.channels_last).clone(),
        (60, 1, 15, 3),
    ),
    "meta_empty_like_keeps_channels_last": (
        lambda T: T.empty_like(T.empty(2, 3, 4, 5, device="meta", memory_format=T.channels_last)),
        (60, 1, 15, 3),
    ),
    "channels_last_to_meta": (lambda T: _cl(T, 2, 3, 4, 5).to("meta"), (60, 1, 15, 3)),
    # rearranging a channels-last image gives a channels-last one
    "pixel_shuffle_of_channels_last": (
        lambda T: T.nn.functional.pixel_shuffle(_cl(T, 2, 12, 3, 3), 2),
        (108, 1, 18, 3),
    ),
    "pixel_unshuffle_of_channels_last": (
        lambda T: T.nn.functional.pixel_unshuffle(_cl(T, 2, 3, 6, 6), 2),
        (108, 1, 36, 12),
    ),
    "channel_shuffle_of_channels_last": (
        lambda T: T.nn.functional.channel_shuffle(_cl(T, 2, 12, 3, 3), 3),
        (108, 1, 36, 12),
    ),
    "max_unpool2d_of_channels_last": (
        lambda T: T.nn.functional.max_unpool2d(
            *T.nn.functional.max_pool2d(_cl(T, 2, 3, 6, 6), 2, return_indices=True), 2
        ),
        (108, 1, 18, 3),
    ),
    # 3-d convolutions, max pooling and resizing keep channels-last 3-d; 3-d averages do not
    "conv3d_of_channels_last_3d": (
        lambda T: T.nn.functional.conv3d(_cl3(T, 2, 3, 4, 4, 4), T.ones(2, 3, 3, 3, 3)),
        (16, 1, 8, 4, 2),
    ),
    "conv3d_of_a_channels_last_3d_weight": (
        lambda T: T.nn.functional.conv3d(_x(T, 2, 3, 4, 4, 4), _cl3(T, 2, 3, 3, 3, 3)),
        (16, 1, 8, 4, 2),
    ),
    "conv_transpose3d_of_channels_last_3d": (
        lambda T: T.nn.functional.conv_transpose3d(_cl3(T, 2, 3, 4, 4, 4), T.ones(3, 2, 3, 3, 3)),
        (432, 1, 72, 12, 2),
    ),
    "max_pool3d_of_channels_last_3d": (
        lambda T: T.nn.functional.max_pool3d(_cl3(T, 2, 3, 4, 4, 4), 2),
        (24, 1, 12, 6, 3),
    ),
    "max_pool3d_indices_of_channels_last_3d": (
        lambda T: T.nn.functional.max_pool3d(_cl3(T, 2, 3, 4, 4, 4), 2, return_indices=True)[1],
        (24, 1, 12, 6, 3),
    ),
    "avg_pool3d_of_channels_last_3d": (
        lambda T: T.nn.functional.avg_pool3d(_cl3(T, 2, 3, 4, 4, 4), 2),
        (24, 8, 4, 2, 1),
    ),
    "trilinear_of_channels_last_3d": (
        lambda T: T.nn.functional.interpolate(
            _cl3(T, 2, 3, 4, 4, 4), scale_factor=2, mode="trilinear"
        ),
        (1536, 1, 192, 24, 3),
    ),
    "nearest_3d_of_channels_last_3d": (
        lambda T: T.nn.functional.interpolate(_cl3(T, 2, 3, 4, 4, 4), scale_factor=2),
        (1536, 1, 192, 24, 3),
    ),
    "grad_through_pixel_unshuffle_of_channels_last": (
        lambda T: _grad(T, _cl(T, 2, 3, 6, 6), lambda w: T.nn.functional.pixel_unshuffle(w, 2)),
        (108, 1, 18, 3),
    ),
}

# name -> (a call of the module T, PyTorch's answer)
FLAGS = {
    "channels_last_is_contiguous": (lambda T: _cl(T, 2, 3, 4, 5).is_contiguous(), False),
    "channels_last_is_channels_last": (
        lambda T: _cl(T, 2, 3, 4, 5).is_contiguous(memory_format=T.channels_last),
        True,
    ),
    "channels_last_is_channels_last_3d": (
        lambda T: _cl(T, 2, 3, 4, 5).is_contiguous(memory_format=T.channels_last_3d),
        False,
    ),
    "channels_last_is_preserve": (
        lambda T: _cl(T, 2, 3, 4, 5).is_contiguous(memory_format=T.preserve_format),
        False,
    ),
    "contiguous_is_channels_last": (
        lambda T: _x(T, 2, 3, 4, 5).is_contiguous(memory_format=T.channels_last),
        False,
    ),
    "one_channel_is_both": (
        lambda T: (
            _x(T, 2, 1, 4, 5).is_contiguous(memory_format=T.channels_last),
            _cl(T, 2, 1, 4, 5).is_contiguous(),
        ),
        (True, True),
    ),
    "empty_rows_contiguous_is_not_channels_last": (
        lambda T: T.empty(2, 3, 0, 5).is_contiguous(memory_format=T.channels_last),
        False,
    ),
    "empty_channels_last_is_both": (
        lambda T: (
            T.empty(0, 3, 4, 5, memory_format=T.channels_last).is_contiguous(),
            T.empty(0, 3, 4, 5, memory_format=T.channels_last).is_contiguous(
                memory_format=T.channels_last
            ),
        ),
        (True, True),
    ),
    "3d_is_channels_last": (
        lambda T: _x(T, 2, 3, 4).is_contiguous(memory_format=T.channels_last),
        False,
    ),
    "channels_last_3d_flags": (
        lambda T: (
            _x(T, 2, 3, 4, 5, 6)
            .contiguous(memory_format=T.channels_last_3d)
            .is_contiguous(memory_format=T.channels_last_3d),
            _x(T, 2, 3, 4, 5, 6).is_contiguous(memory_format=T.channels_last_3d),
        ),
        (True, False),
    ),
    "to_channels_last_of_channels_last_is_itself": (
        lambda T: (lambda y: y.to(memory_format=T.channels_last) is y)(_cl(T, 2, 3, 4, 5)),
        True,
    ),
    "to_preserve_is_itself": (
        lambda T: (lambda y: y.to(memory_format=T.preserve_format) is y)(_cl(T, 2, 3, 4, 5)),
        True,
    ),
    "to_contiguous_of_contiguous_is_itself": (
        lambda T: (lambda y: y.to(memory_format=T.contiguous_format) is y)(_x(T, 2, 3)),
        True,
    ),
    "contiguous_channels_last_of_channels_last_is_itself": (
        lambda T: (lambda y: y.contiguous(memory_format=T.channels_last) is y)(_cl(T, 2, 3, 4, 5)),
        True,
    ),
    "grad_fn_names": (
        lambda T: [
            f(_x(T, 2, 3, 4, 5).requires_grad_()).grad_fn.name()
            for f in (
                lambda x: x.clone(memory_format=T.channels_last),
                lambda x: x.contiguous(memory_format=T.channels_last),
                lambda x: x.to(memory_format=T.channels_last),
                lambda x: x.to(T.float64, memory_format=T.channels_last),
            )
        ],
        ["CloneBackward0", "CloneBackward0", "ToCopyBackward0", "ToCopyBackward0"],
    ),
    "empty_requires_grad": (
        lambda T: (
            T.empty(2, 3, 4, 5, memory_format=T.channels_last, requires_grad=True).requires_grad
        ),
        True,
    ),
}

# name -> (a call of the module T, PyTorch's exception type and the start of its message)
ERRORS = {
    "empty_channels_last_3d_on_4d": (
        lambda T: T.empty(2, 3, 4, 5, memory_format=T.channels_last_3d),
        RuntimeError,
        "required rank 5 tensor to use channels_last_3d format",
    ),
    "empty_channels_last_on_3d": (
        lambda T: T.empty(2, 3, 4, memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "empty_channels_last_on_5d": (
        lambda T: T.empty(2, 3, 4, 5, 6, memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "empty_preserve": (
        lambda T: T.empty(2, 3, memory_format=T.preserve_format),
        RuntimeError,
        "unsupported memory format Preserve",
    ),
    "clone_channels_last_on_2d": (
        lambda T: _x(T, 2, 3).clone(memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "clone_channels_last_on_0d": (
        lambda T: T.tensor(1.0).clone(memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "contiguous_channels_last_on_3d": (
        lambda T: _x(T, 2, 3, 4).contiguous(memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "contiguous_preserve_of_channels_last": (
        lambda T: _cl(T, 2, 3, 4, 5).contiguous(memory_format=T.preserve_format),
        RuntimeError,
        "preserve memory format is unsupported by the contiguous operator",
    ),
    "ones_like_channels_last_on_3d": (
        lambda T: T.ones_like(_x(T, 2, 3, 4), memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "to_channels_last_3d_on_4d": (
        lambda T: _x(T, 2, 3, 4, 5).to(memory_format=T.channels_last_3d),
        RuntimeError,
        "required rank 5 tensor to use channels_last_3d format",
    ),
    "to_channels_last_on_3d": (
        lambda T: _x(T, 2, 3, 4).to(memory_format=T.channels_last),
        RuntimeError,
        "required rank 4 tensor to use channels_last format",
    ),
    "to_string_format": (
        lambda T: _x(T, 2, 3).to(memory_format="channels_last"),
        TypeError,
        "to() received an invalid combination of arguments",
    ),
    "clone_string_format": (
        lambda T: _x(T, 2, 3).clone(memory_format="channels_last"),
        TypeError,
        "clone(): argument 'memory_format' must be ",
    ),
    "contiguous_none": (
        lambda T: _x(T, 2, 3).contiguous(memory_format=None),
        TypeError,
        "contiguous(): argument 'memory_format' must be ",
    ),
    "is_contiguous_int": (
        lambda T: _x(T, 2, 3).is_contiguous(memory_format=1),
        TypeError,
        "is_contiguous(): argument 'memory_format' must be ",
    ),
    "empty_string_format": (
        lambda T: T.empty(2, memory_format="x"),
        TypeError,
        "empty(): argument 'memory_format' must be ",
    ),
    "zeros_like_string_format": (
        lambda T: T.zeros_like(_x(T, 2), memory_format="x"),
        TypeError,
        "zeros_like(): argument 'memory_format' must be ",
    ),
    "contiguous_positional": (
        lambda T: _x(T, 2, 3, 4, 5).contiguous(T.channels_last),
        TypeError,
        "contiguous() takes ",
    ),
}


@pytest.mark.parametrize("name", sorted(STRIDES))
def test_strides_are_pytorchs(name):
    fn, strides = STRIDES[name]
    assert fn(symgrad).stride() == strides


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_answers_are_pytorchs(name):
    fn, answer = FLAGS[name]
    assert fn(symgrad) == answer


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    fn, kind, message = ERRORS[name]
    with pytest.raises(kind) as caught:
        fn(symgrad)
    assert str(caught.value).startswith(message.replace("torch.", "symgrad."))


def test_constants_print_pickle_and_hash_like_dtypes():
    formats = (
        symgrad.contiguous_format,
        symgrad.preserve_format,
        symgrad.channels_last,
        symgrad.channels_last_3d,
    )
    assert [repr(f) for f in formats] == [
        "symgrad.contiguous_format",
        "symgrad.preserve_format",
        "symgrad.channels_last",
        "symgrad.channels_last_3d",
    ]
    assert str(symgrad.channels_last) == "symgrad.channels_last"
    for f in formats:
        assert isinstance(f, symgrad.memory_format)
        assert pickle.loads(pickle.dumps(f)) is f
        assert copy.deepcopy(f) is f and copy.copy(f) is f
    assert len({f: i for i, f in enumerate(formats)}) == 4
    assert symgrad.channels_last == symgrad.channels_last != symgrad.contiguous_format
    with pytest.raises(TypeError, match="cannot create 'symgrad.memory_format' instances"):
        symgrad.memory_format()


def test_values_and_gradients_do_not_change_with_the_layout():
    x = symgrad.arange(120.0).reshape(2, 3, 4, 5).requires_grad_()
    weights = symgrad.arange(120.0).reshape(2, 3, 4, 5).cos()
    outs = [
        x.clone(memory_format=symgrad.channels_last),
        x.contiguous(memory_format=symgrad.channels_last),
        x.to(memory_format=symgrad.channels_last),
        x.to(symgrad.float64, memory_format=symgrad.channels_last).float(),
    ]
    for y in outs:
        assert y.stride() == (60, 1, 15, 3)
        assert np.array_equal(y.detach().numpy(), x.detach().numpy())
        (g,) = symgrad.autograd.grad((y * weights).sum(), x)
        assert np.array_equal(g.numpy(), weights.numpy())
        assert g.stride() == (60, 20, 5, 1)


def test_like_factories_fill_every_element_whatever_the_layout():
    y = symgrad.ones(2, 3, 4, 5).contiguous(memory_format=symgrad.channels_last)
    assert symgrad.full_like(y, 7.0).tolist() == (y * 7).tolist()
    assert symgrad.zeros_like(y, dtype=symgrad.int64).stride() == (60, 1, 15, 3)
    assert symgrad.ones_like(y, requires_grad=True).requires_grad
    r = symgrad.randint_like(y, 3, 6)
    assert r.dtype == symgrad.float32 and bool(((r >= 3) & (r < 6)).all())


def test_channels_last_memory_is_nhwc():
    x = symgrad.arange(24.0).reshape(1, 2, 3, 4)
    y = x.contiguous(memory_format=symgrad.channels_last)
    nhwc = x.permute(0, 2, 3, 1).contiguous().flatten().tolist()
    assert np.asarray(y._data).ravel(order="K").tolist() == nhwc
    assert y.permute(0, 2, 3, 1).is_contiguous()


def test_an_optimizer_state_made_with_preserve_format():
    p = symgrad.nn.Parameter(
        symgrad.ones(2, 3, 4, 5).contiguous(memory_format=symgrad.channels_last)
    )
    state = symgrad.zeros_like(p, memory_format=symgrad.preserve_format)
    assert state.stride() == p.stride() and not state.requires_grad


# -- against PyTorch ----------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(STRIDES))
def test_strides_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, strides = STRIDES[name]
    ours, theirs = fn(symgrad), fn(torch)
    assert ours.stride() == theirs.stride() == strides
    assert ours.shape == theirs.shape
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.is_contiguous(memory_format=symgrad.channels_last) == theirs.is_contiguous(
        memory_format=torch.channels_last
    )
    name_of = lambda t: None if t.grad_fn is None else type(t.grad_fn).__name__  # noqa: E731
    assert name_of(ours) == name_of(theirs)
    if not ours.is_meta and name.split("_")[0] not in ("empty", "rand", "randn", "randint"):
        assert np.array_equal(ours.detach().numpy(), theirs.detach().numpy())


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(FLAGS))
def test_answers_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, answer = FLAGS[name]
    assert fn(symgrad) == fn(torch) == answer


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, kind, message = ERRORS[name]
    with pytest.raises(kind) as theirs:
        fn(torch)
    with pytest.raises(kind) as ours:
        fn(symgrad)
    assert str(theirs.value).startswith(message)
    assert str(ours.value).startswith(message.replace("torch.", "symgrad."))


@pytest.mark.torch
def test_constants_match_torch():
    torch = pytest.importorskip("torch")
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        ours, theirs = getattr(symgrad, name), getattr(torch, name)
        assert repr(ours).replace("symgrad", "torch") == repr(theirs)
        assert str(ours).replace("symgrad", "torch") == str(theirs)
        assert type(ours).__name__ == type(theirs).__name__ == "memory_format"


def test_a_converting_to_lays_out_its_copy_in_the_format_asked_for():
    # a 2-d tensor's suggested format is contiguous, so to() aliases it when nothing else
    # changes; but the copy a dtype change makes takes the format given, not self's layout
    t = symgrad.arange(6.0).reshape(2, 3).T
    assert t.to(memory_format=symgrad.contiguous_format) is t
    assert t.to(symgrad.float64, memory_format=symgrad.contiguous_format).stride() == (2, 1)
    copied = t.to(symgrad.float32, copy=True, memory_format=symgrad.contiguous_format)
    assert copied.stride() == (2, 1) and copied.tolist() == t.tolist()
    assert t.to(symgrad.float64).stride() == (1, 3)
    torch = pytest.importorskip("torch")
    u = torch.arange(6.0).reshape(2, 3).T
    assert u.to(torch.float64, memory_format=torch.contiguous_format).stride() == (2, 1)
    assert u.to(torch.float64).stride() == (1, 3)
