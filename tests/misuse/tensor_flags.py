"""The tensor's autograd attributes: requires_grad, .grad and .data, set and read."""

from __future__ import annotations

from misuse.registry import case


def _leaf(T, values=(1.0, 2.0)):
    return T.tensor(list(values), requires_grad=True)


# -- requires_grad ------------------------------------------------------------------------------


@case(RuntimeError, says=("floating point", "int64"))
def requires_grad_of_int_tensor(T):
    T.tensor([1, 2]).requires_grad_()


@case(RuntimeError, says=("floating point",))
def requires_grad_of_bool_tensor(T):
    T.tensor([True]).requires_grad_()


@case(RuntimeError)
def int_tensor_made_requiring_grad(T):
    T.tensor([1, 2], requires_grad=True)


@case(RuntimeError)
def int_zeros_made_requiring_grad(T):
    T.zeros(2, dtype=T.int64, requires_grad=True)


@case(RuntimeError)
def requires_grad_attribute_set_on_int_tensor(T):
    T.tensor([1, 2]).requires_grad = True


@case(False)
def requires_grad_false_of_int_tensor(T):
    return T.tensor([1, 2]).requires_grad_(False).requires_grad


@case(RuntimeError, says=("leaf", "detach()"))
def requires_grad_false_of_non_leaf(T):
    (_leaf(T) * 2).requires_grad_(False)


@case(True)
def requires_grad_true_of_non_leaf(T):
    return (_leaf(T) * 2).requires_grad_(True).requires_grad


@case(TypeError)
def requires_grad_given_a_string(T):
    T.ones(2).requires_grad_("yes")


@case(TypeError)
def requires_grad_given_an_int(T):
    T.ones(2).requires_grad_(1)


@case(RuntimeError, says=("bool",))
def requires_grad_attribute_set_to_none(T):
    T.ones(2).requires_grad = None


@case(RuntimeError)
def requires_grad_attribute_set_to_an_int(T):
    T.ones(2).requires_grad = 1


@case(TypeError)
def tensor_made_with_requires_grad_an_int(T):
    T.tensor([1.0], requires_grad=1)


@case(TypeError)
def zeros_made_with_requires_grad_a_string(T):
    T.zeros(2, requires_grad="yes")


# -- setting .grad ------------------------------------------------------------------------------


@case(RuntimeError, says=("[3]", "[2]"))
def grad_assigned_of_wrong_shape(T):
    _leaf(T).grad = T.ones(3)


@case(RuntimeError, says=("float64", "float32"))
def grad_assigned_of_wrong_dtype(T):
    _leaf(T).grad = T.ones(2, dtype=T.float64)


@case(RuntimeError)
def grad_assigned_of_int_dtype(T):
    _leaf(T).grad = T.tensor([1, 1])


@case(RuntimeError, says=("own grad",))
def grad_assigned_the_tensor_itself(T):
    x = _leaf(T)
    x.grad = x


@case(TypeError, says=("list",))
def grad_assigned_a_list(T):
    _leaf(T).grad = [1.0, 1.0]


@case(TypeError)
def grad_assigned_a_python_number(T):
    _leaf(T).grad = 1.0


@case([1.0, 1.0])
def grad_assigned_to_tensor_not_requiring_grad(T):
    x = T.ones(2)
    x.grad = T.ones(2)
    return x.grad.tolist()


@case([3.0, 3.0])
def grad_assigned_then_accumulated(T):
    x = _leaf(T)
    x.grad = T.ones(2)
    (x * 2).sum().backward()
    return x.grad.tolist()


@case(None)
def grad_assigned_none(T):
    x = _leaf(T)
    (x * 2).sum().backward()
    x.grad = None
    return x.grad


# -- setting .data ------------------------------------------------------------------------------


@case(RuntimeError, says=("floating point", "int64"))
def data_set_to_int_tensor_on_tensor_requiring_grad(T):
    _leaf(T).data = T.tensor([1, 2])


@case([[5.0, 5.0, 5.0], True])
def data_set_to_tensor_of_another_shape(T):
    x = _leaf(T)
    x.data = T.full((3,), 5.0)
    return [x.tolist(), x.requires_grad]


@case("torch.int64")
def data_set_to_int_tensor_on_tensor_not_requiring_grad(T):
    x = T.ones(2)
    x.data = T.tensor([1, 2])
    return str(x.dtype).replace("symgrad", "torch")


@case(TypeError)
def data_set_to_a_list(T):
    _leaf(T).data = [1.0, 2.0]


# -- reading .grad of a non-leaf: a warning, not an error ---------------------------------------


@case(UserWarning, says=("retain_grad",))
def grad_read_on_non_leaf(T):
    x = _leaf(T)
    y = x * 2
    y.sum().backward()
    return y.grad


@case([1.0, 1.0])
def grad_read_on_non_leaf_after_retain_grad(T):
    x = _leaf(T)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    return y.grad.tolist()


@case(None)
def grad_read_on_leaf_before_backward(T):
    return _leaf(T).grad
