"""Using a tensor that requires grad: converting it (numpy, item, float), changing a leaf in
place, retain_grad, hooks and detach_."""

from __future__ import annotations

from misuse.registry import case


def _leaf(T, values=(1.0, 2.0)):
    return T.tensor(list(values), requires_grad=True)


# -- conversions --------------------------------------------------------------------------------


@case(RuntimeError, says=("detach()",))
def numpy_of_tensor_requiring_grad(T):
    _leaf(T).numpy()


@case(RuntimeError)
def numpy_of_non_leaf(T):
    (_leaf(T) * 2).numpy()


@case([1.0, 2.0])
def numpy_of_detached(T):
    return _leaf(T).detach().numpy().tolist()


@case([1.0, 2.0])
def numpy_of_tensor_requiring_grad_under_no_grad(T):
    x = _leaf(T)
    with T.no_grad():
        return x.numpy().tolist()


@case(RuntimeError, says=("detach()",))
def numpy_asarray_of_tensor_requiring_grad(T):
    import numpy as np

    np.asarray(_leaf(T))


@case(RuntimeError)
def numpy_function_of_tensor_requiring_grad(T):
    import numpy as np

    np.exp(_leaf(T))


@case([1.0, 2.0])
def numpy_asarray_of_tensor_requiring_grad_under_no_grad(T):
    import numpy as np

    x = _leaf(T)
    with T.no_grad():
        return np.asarray(x).tolist()


@case(UserWarning, says=("detach()",), fresh=True)
def float_of_tensor_requiring_grad(T):
    return float(T.tensor([2.5], requires_grad=True))


@case(2.5)
def float_of_tensor_requiring_grad_under_no_grad(T):
    x = T.tensor([2.5], requires_grad=True)
    with T.no_grad():
        return float(x)


@case(2)
def int_of_tensor_requiring_grad(T):
    return int(T.tensor([2.5], requires_grad=True))


@case([1.0, 2.0])
def tolist_of_tensor_requiring_grad(T):
    return _leaf(T).tolist()


@case(RuntimeError, says=("2 elements",))
def item_of_many_elements(T):
    _leaf(T).item()


@case(RuntimeError)
def item_of_empty(T):
    T.zeros(0).item()


@case(3.0)
def item_of_tensor_requiring_grad(T):
    return T.tensor([3.0], requires_grad=True).item()


@case(RuntimeError)
def bool_of_many_elements(T):
    bool(_leaf(T))


# -- in-place changes of leaves -----------------------------------------------------------------


@case(RuntimeError, says=("leaf", "no_grad"))
def add_in_place_on_leaf_requiring_grad(T):
    _leaf(T).add_(1)


@case(RuntimeError)
def augmented_assignment_on_leaf_requiring_grad(T):
    x = _leaf(T)
    x += 1


@case(RuntimeError)
def item_assignment_on_leaf_requiring_grad(T):
    x = _leaf(T)
    x[0] = 5.0


@case(RuntimeError)
def zero_on_leaf_requiring_grad(T):
    _leaf(T).zero_()


@case(RuntimeError)
def in_place_on_view_of_leaf_requiring_grad(T):
    x = _leaf(T)
    x[:1].mul_(2)


@case([2.0, 3.0])
def in_place_on_leaf_under_no_grad(T):
    x = _leaf(T)
    with T.no_grad():
        x.add_(1)
    return x.tolist()


@case([2.0, 3.0])
def in_place_on_leaf_data(T):
    x = _leaf(T)
    x.data.add_(1)
    return x.tolist()


# -- retain_grad, hooks, detach_ ----------------------------------------------------------------


@case(RuntimeError, says=("requires_grad=False",))
def retain_grad_of_tensor_not_requiring_grad(T):
    T.ones(2).retain_grad()


@case([False, [2.0, 2.0]])
def retain_grad_of_leaf(T):
    x = _leaf(T)
    x.retain_grad()
    (x * 2).sum().backward()
    return [x.retains_grad, x.grad.tolist()]


@case(RuntimeError, says=("require",))
def register_hook_on_tensor_not_requiring_grad(T):
    T.ones(2).register_hook(lambda g: g)


@case(RuntimeError, says=("[3]", "[2]"))
def hook_returning_wrong_shape(T):
    x = _leaf(T)
    x.register_hook(lambda g: T.ones(3))
    (x * 2).sum().backward()


@case(RuntimeError)
def hook_on_non_leaf_returning_wrong_shape(T):
    x = _leaf(T)
    y = x * 2
    y.register_hook(lambda g: g.sum())
    y.sum().backward()


@case(RuntimeError)
def hook_returning_wrong_dtype(T):
    x = _leaf(T)
    x.register_hook(lambda g: g.double())
    (x * 2).sum().backward()


@case(TypeError)
def hook_returning_a_python_number(T):
    x = _leaf(T)
    x.register_hook(lambda g: 1.0)
    (x * 2).sum().backward()


@case(TypeError)
def hook_that_is_not_callable(T):
    x = _leaf(T)
    x.register_hook(5)
    (x * 2).sum().backward()


@case(RuntimeError, says=("detach()",))
def detach_in_place_of_view(T):
    x = _leaf(T, (1.0, 2.0, 3.0, 4.0))
    x.view(2, 2).detach_()


@case(RuntimeError)
def detach_in_place_of_slice(T):
    x = _leaf(T)
    y = x * 2
    y[:1].detach_()


@case([False, True])
def detach_in_place_of_non_leaf(T):
    y = _leaf(T) * 2
    y.detach_()
    return [y.requires_grad, y.is_leaf]


@case(RuntimeError)
def detach_in_place_of_view_of_tensor_not_requiring_grad(T):
    T.ones(4).view(2, 2).detach_()


@case(RuntimeError)
def detach_in_place_of_view_made_under_no_grad(T):
    x = _leaf(T)
    with T.no_grad():
        y = x[:1]
    y.detach_()


@case(RuntimeError)
def detach_in_place_of_split_piece(T):
    _leaf(T).split(1)[0].detach_()


@case([False, True])
def detach_in_place_of_detached(T):
    y = _leaf(T).detach()
    y.detach_()
    return [y.requires_grad, y.is_leaf]


@case([False, True])
def detach_in_place_of_indexed_copy(T):
    y = _leaf(T)[[0, 1]]
    y.detach_()
    return [y.requires_grad, y.is_leaf]
