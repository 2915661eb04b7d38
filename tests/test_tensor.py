"""The Tensor's attributes and methods, with PyTorch's semantics."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import symgrad


def leaf(values, dtype=None):
    return symgrad.tensor(values, dtype=dtype, requires_grad=True)


# -- requires_grad ------------------------------------------------------------------------------


def test_requires_grad_is_off_by_default():
    assert not symgrad.tensor([1.0]).requires_grad


@pytest.mark.parametrize("dtype", [symgrad.float16, symgrad.float32, symgrad.float64])
def test_floating_tensors_may_require_grad(dtype):
    assert symgrad.ones(2, dtype=dtype, requires_grad=True).requires_grad


@pytest.mark.parametrize("dtype", [symgrad.int64, symgrad.int32, symgrad.bool])
def test_only_floating_tensors_may_require_grad(dtype):
    t = symgrad.zeros(2, dtype=dtype)
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype") as info:
        t.requires_grad_()
    assert repr(dtype) in str(info.value)  # names the dtype
    with pytest.raises(RuntimeError, match="floating point"):
        symgrad.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        t.requires_grad = True


def test_requires_grad_underscore_sets_and_returns_self():
    t = symgrad.tensor([1.0])
    assert t.requires_grad_() is t and t.requires_grad
    assert t.requires_grad_(False) is t and not t.requires_grad


def test_requires_grad_of_a_non_leaf_cannot_be_switched_off():
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    assert y.requires_grad_(True) is y


def test_integer_view_of_a_tensor_requiring_grad_does_not_require_grad():
    x = leaf([1.5, 2.5])
    assert not x.long().requires_grad and x.long().tolist() == [1, 2]


# -- grad, grad_fn, is_leaf, name ------------------------------------------------------------------


def test_grad_is_none_until_backward():
    x = leaf([1.0])
    assert x.grad is None and x.grad_fn is None and x.is_leaf


def test_grad_assignment_checks_shape_and_dtype():
    x = leaf([1.0, 2.0])
    x.grad = symgrad.ones(2)
    assert x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"shape \[3\].*shape \[2\]"):
        x.grad = symgrad.ones(3)
    with pytest.raises(RuntimeError, match="dtype symgrad.float64.*dtype symgrad.float32"):
        x.grad = symgrad.ones(2, dtype=symgrad.float64)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = [1.0, 1.0]
    x.grad = None
    assert x.grad is None


def test_name():
    assert symgrad.tensor(2.0).name is None
    t = symgrad.tensor(2.0, requires_grad=True, name="w")
    assert t.name == "w"
    t.name = "v"
    assert t.name == "v"
    with pytest.raises(ValueError, match="non-empty string"):
        t.name = ""


# -- metadata --------------------------------------------------------------------------------------


def test_shape_size_dim_ndim_numel():
    t = symgrad.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.size() == (2, 3, 4)
    assert t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3 and t.numel() == 24
    assert len(t) == 2


def test_size_out_of_range_raises_index_error():
    expected = r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    with pytest.raises(IndexError, match=expected):
        symgrad.zeros(2, 3).size(2)


def test_zero_dimensional_tensor():
    t = symgrad.tensor(3.5)
    assert t.shape == () and t.dim() == 0 and t.numel() == 1
    with pytest.raises(TypeError, match="0-d"):
        len(t)


def test_dtype_and_device():
    t = symgrad.ones(2)
    assert t.dtype is symgrad.float32
    # as in PyTorch, a device equals devices, not strings
    assert t.device == symgrad.device("cpu") and str(t.device) == "cpu" and t.device != "cpu"
    assert t.is_floating_point() and not symgrad.ones(2, dtype=symgrad.int64).is_floating_point()


# -- conversion ------------------------------------------------------------------------------------


def test_cpu_and_to_cpu_return_self():
    t = symgrad.ones(2)
    assert t.cpu() is t and t.to("cpu") is t and t.to(device="cpu") is t


def test_to_dtype():
    t = symgrad.tensor([1.5, 2.5])
    assert t.to(symgrad.float32) is t  # no copy when nothing changes
    assert t.to(symgrad.float64).dtype is symgrad.float64
    assert t.to(dtype=symgrad.float64).dtype is symgrad.float64
    assert t.to("cpu", symgrad.float64).dtype is symgrad.float64
    assert t.to(symgrad.ones(1, dtype=symgrad.int64)).dtype is symgrad.int64
    assert t.to(symgrad.int64).tolist() == [1, 2]


def test_to_an_accelerator_raises():
    # PyTorch built without CUDA raises AssertionError, and RuntimeError for mps
    with pytest.raises(AssertionError, match="computes on the CPU"):
        symgrad.ones(2).to("cuda")
    with pytest.raises(RuntimeError, match="computes on the CPU"):
        symgrad.ones(2).to("mps")


def test_float_and_double():
    t = symgrad.tensor([1, 2])
    assert t.float().dtype is symgrad.float32 and t.double().dtype is symgrad.float64
    f = symgrad.ones(2)
    assert f.float() is f  # already float32: PyTorch returns the tensor itself


def test_conversions_are_differentiable():
    x = leaf([1.0, 2.0])
    y = x.double()
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.dtype is symgrad.float32 and x.grad.tolist() == [2.0, 4.0]


@pytest.mark.filterwarnings("ignore:The use of `x.T` on tensors")  # deprecated beyond 2-d
def test_transpose_attribute():
    m = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert m.T.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    v = symgrad.tensor([1.0, 2.0])
    assert v.T.tolist() == [1.0, 2.0]
    assert symgrad.zeros(2, 3, 4).T.shape == (4, 3, 2)


def test_item():
    assert symgrad.tensor(3.5).item() == 3.5
    assert symgrad.tensor([[3.5]]).item() == 3.5
    assert isinstance(symgrad.tensor(5).item(), int)
    assert isinstance(symgrad.tensor(True).item(), bool)
    assert leaf([2.0]).item() == 2.0
    with pytest.raises(RuntimeError, match="Tensor with 2 elements cannot be converted to Scalar"):
        symgrad.tensor([1.0, 2.0]).item()


def test_tolist():
    assert symgrad.tensor([[1.5, 2.0]]).tolist() == [[1.5, 2.0]]
    assert symgrad.tensor(2).tolist() == 2
    assert type(symgrad.tensor([1.5]).tolist()[0]) is float
    assert leaf([1.0]).tolist() == [1.0]


def test_python_number_conversions():
    assert float(symgrad.tensor([2.5])) == 2.5
    assert int(symgrad.tensor(3)) == 3
    assert bool(symgrad.tensor([1.0])) is True
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(symgrad.tensor([1.0, 2.0]))


def test_numpy_shares_memory():
    t = symgrad.ones(2)
    a = t.numpy()
    a[0] = 5
    assert t.tolist() == [5.0, 1.0]


def test_numpy_gives_a_new_array_object_on_the_same_memory():
    a = np.array([1.0, 2.0])
    t = symgrad.from_numpy(a)
    out = t.numpy()
    assert out is not a and t.numpy() is not out and np.shares_memory(out, a)
    out[0] = 7.0
    assert a[0] == 7.0 and t[0].item() == 7.0
    assert symgrad.as_tensor(a).numpy() is not a
    torch = pytest.importorskip("torch")
    assert torch.from_numpy(a).numpy() is not a


def test_numpy_of_a_tensor_requiring_grad_raises():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        leaf([1.0]).numpy()
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        (leaf([1.0]) * 2).numpy()


# -- detach, clone, data ---------------------------------------------------------------------------


def test_detach_shares_memory_and_leaves_the_graph():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d[0] = 5.0
    assert x.tolist() == [5.0, 2.0]
    x.detach().numpy()[1] = 7.0
    assert x.tolist() == [5.0, 7.0]


def test_detach_of_a_non_leaf():
    y = leaf([1.0, 2.0]) * 2
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and d.tolist() == [2.0, 4.0]
    assert y.grad_fn is not None


def test_detach_underscore_makes_a_non_leaf_a_leaf_in_place():
    y = leaf([1.0, 2.0]) * 2
    assert y.detach_() is y
    assert y.is_leaf and y.grad_fn is None and not y.requires_grad


def test_clone_copies_and_stays_in_the_graph():
    x = leaf([1.0, 2.0])
    c = x.clone()
    assert type(c.grad_fn).__name__ == "CloneBackward0" and not c.is_leaf
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    plain = symgrad.tensor([1.0, 2.0])
    copied = plain.clone()
    copied[0] = 9.0
    assert plain.tolist() == [1.0, 2.0]


def test_data_shares_memory_but_not_the_graph():
    x = leaf([1.0, 2.0])
    d = x.data
    assert not d.requires_grad and d.is_leaf
    d.mul_(2)
    assert x.tolist() == [2.0, 4.0] and x.requires_grad


def test_data_assignment_replaces_the_values():
    x = leaf([1.0, 2.0])
    x.data = symgrad.zeros(3)
    assert x.tolist() == [0.0, 0.0, 0.0] and x.requires_grad and x.is_leaf


def test_deepcopy_of_a_leaf():
    x = leaf([1.0, 2.0])
    x.grad = symgrad.ones(2)
    c = copy.deepcopy(x)
    assert c is not x and c.requires_grad and c.grad.tolist() == [1.0, 1.0]
    c.detach()[0] = 9.0
    assert x.tolist() == [1.0, 2.0]


def test_deepcopy_keeps_shared_memory_and_strides():
    # PyTorch copies each storage once per deepcopy: tensors sharing memory share the copy's,
    # each keeping its strides and offset (a transpose stays one, an expanded row stays one)
    x = symgrad.arange(6.0).reshape(2, 3)
    whole, row, cols, wide = copy.deepcopy([x, x[1], x.t(), symgrad.ones(3).expand(2, 3)])
    assert row.storage_offset() == 3 and cols.stride() == (1, 3) and wide.stride() == (0, 1)
    row[0] = 9.0
    assert whole.tolist() == [[0.0, 1.0, 2.0], [9.0, 4.0, 5.0]] and cols[0, 1] == 9.0
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # the original is untouched
    assert copy.deepcopy(x[1]).tolist() == [3.0, 4.0, 5.0]


@pytest.mark.torch
def test_deepcopy_keeps_shared_memory_as_pytorch():
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, symgrad):
        x = lib.arange(6.0).reshape(2, 3)
        whole, cols = copy.deepcopy([x, x.t()])
        cols[2, 0] = -1.0
        seen.append([whole.tolist(), cols.stride(), cols.is_contiguous()])
    assert seen[0] == seen[1]


def test_deepcopy_of_a_non_leaf_raises():
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(leaf([1.0]) * 2)


# -- in-place ops ----------------------------------------------------------------------------------


def test_in_place_arithmetic_values():
    t = symgrad.tensor([1.0, 2.0])
    t.add_(1).mul_(4).sub_(2).div_(2)
    assert t.tolist() == [3.0, 5.0]
    t.add_(symgrad.ones(2), alpha=3)
    t.sub_(symgrad.ones(2), alpha=2)
    assert t.tolist() == [4.0, 6.0]
    t += 1
    t *= 2
    t -= 1
    t /= 3
    assert t.tolist() == pytest.approx([3.0, 13.0 / 3], rel=1e-6)


def test_in_place_ops_broadcast_the_other_operand():
    t = symgrad.ones(2, 2)
    t.add_(symgrad.tensor([1.0, 2.0]))
    assert t.tolist() == [[2.0, 3.0], [2.0, 3.0]]


def test_in_place_op_that_would_change_the_shape_raises():
    expected = r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"
    with pytest.raises(RuntimeError, match=expected):
        symgrad.ones(2).add_(symgrad.ones(2, 2))


def test_in_place_op_that_would_change_an_integer_to_float_raises():
    t = symgrad.tensor([1, 2])
    expected = "result type Float can't be cast to the desired output type Long"
    with pytest.raises(RuntimeError, match=expected):
        t.add_(1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        t.div_(2)
    assert t.tolist() == [1, 2]


def test_integer_in_place_ops():
    t = symgrad.tensor([1, 2])
    t.mul_(3).add_(1)
    assert t.tolist() == [4, 7] and t.dtype is symgrad.int64


def test_fill_and_zero():
    t = symgrad.ones(2, 2)
    assert t.fill_(3.5) is t and t.tolist() == [[3.5, 3.5], [3.5, 3.5]]
    t.fill_(symgrad.tensor(2.0))
    assert t.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert t.zero_() is t and t.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    i = symgrad.tensor([1, 2])
    i.fill_(2.7)
    assert i.tolist() == [2, 2]  # converted to the tensor's dtype, as in PyTorch


def test_fill_with_a_tensor_of_values_raises():
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        symgrad.ones(2).fill_(symgrad.tensor([1.0, 2.0]))


def test_copy():
    t = symgrad.zeros(2, 2)
    assert t.copy_(symgrad.tensor([1, 2])) is t
    assert t.tolist() == [[1.0, 2.0], [1.0, 2.0]] and t.dtype is symgrad.float32
    i = symgrad.zeros(2, dtype=symgrad.int64)
    i.copy_(symgrad.tensor([3.7, 4.2]))
    assert i.tolist() == [3, 4]


def test_copy_from_an_incompatible_shape_raises_naming_both():
    with pytest.raises(RuntimeError, match=r"shape \[3\].*shape \[2\]"):
        symgrad.zeros(2).copy_(symgrad.ones(3))
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        symgrad.zeros(2).copy_([1.0, 2.0])


def test_setitem():
    t = symgrad.ones(3)
    t[1:] = 5
    t[0] = symgrad.tensor(7.0)
    assert t.tolist() == [7.0, 5.0, 5.0]
    t[symgrad.tensor([True, False, True])] = 0
    assert t.tolist() == [0.0, 5.0, 0.0]
    m = symgrad.zeros(2, 2)
    m[:, 0] = symgrad.tensor([1.0, 2.0])
    assert m.tolist() == [[1.0, 0.0], [2.0, 0.0]]


def test_in_place_writes_reach_numpy_arrays_shared_through_from_numpy():
    a = np.array([1.0, 2.0])
    t = symgrad.from_numpy(a)
    t.add_(1)
    t[0] = 10
    np.testing.assert_array_equal(a, [10.0, 3.0])


# -- the legacy constructor ------------------------------------------------------------------------


def test_tensor_class_as_a_constructor():
    assert symgrad.Tensor([1, 2]).dtype is symgrad.float32  # always the default dtype
    assert symgrad.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert symgrad.Tensor(2, 3).shape == (2, 3)
    assert symgrad.Tensor().shape == (0,)
    assert symgrad.Tensor((2, 3)).tolist() == [2.0, 3.0]
    assert isinstance(symgrad.ones(1), symgrad.Tensor)


@pytest.mark.torch
def test_attributes_match_pytorch():
    torch = pytest.importorskip("torch")

    def describe(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = (x * 2).T
        return [
            tuple(y.shape),
            tuple(y.size()),
            y.size(0),
            y.dim(),
            y.ndim,
            y.numel(),
            y.is_leaf,
            x.is_leaf,
            y.requires_grad,
            y.detach().requires_grad,
            y.tolist(),
            x.sum().item(),
            str(y.dtype).split(".")[-1],
        ]

    assert describe(symgrad) == describe(torch)


def test_shape_is_a_size_tuple_like_pytorchs():
    s = symgrad.zeros(1, 3).shape
    assert isinstance(s, tuple) and type(s) is symgrad.Size
    assert repr(s) == str(s) == "symgrad.Size([1, 3])"
    assert s == (1, 3) and s.numel() == 3 and symgrad.Size([]).numel() == 1
    assert repr(s[1:]) == "symgrad.Size([3])" and s[0] == 1
    assert (
        repr(s + (2,)) == "symgrad.Size([1, 3, 2])" and repr(s * 2) == "symgrad.Size([1, 3, 1, 3])"
    )
    assert type(symgrad.ones(2).size()) is symgrad.Size
    assert symgrad.ones(s).shape == s  # a Size is accepted wherever sizes are
    torch = pytest.importorskip("torch")
    t = torch.zeros(1, 3).shape
    assert repr(t).replace("torch", "symgrad") == repr(s)
    assert (t.numel(), t[1:], t + (2,), t * 2) == (s.numel(), s[1:], s + (2,), s * 2)


def test_tensor_class_lives_in_the_package():
    # PyTorch prints type(t) as <class 'torch.Tensor'>: the class names its public module
    t = symgrad.tensor([1.0, 2.0], requires_grad=True)
    assert repr(type(t)) == "<class 'symgrad.Tensor'>"
    assert symgrad.Tensor.__module__ == "symgrad"
    assert type(symgrad.nn.Parameter(t)).__module__ == "symgrad.nn.parameter"
    import io

    buffer = io.BytesIO()
    symgrad.save(t, buffer)
    buffer.seek(0)
    back = symgrad.load(buffer)
    assert back.tolist() == [1.0, 2.0] and back.requires_grad
    torch = pytest.importorskip("torch")
    assert torch.Tensor.__module__ == "torch"
