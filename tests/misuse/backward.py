"""backward() and autograd.grad(): a second pass through a freed graph, missing or misshapen
gradients, outputs and inputs that are not in the graph."""

from __future__ import annotations

from misuse.registry import case


def _leaf(T, values=(1.0, 2.0)):
    return T.tensor(list(values), requires_grad=True)


# -- backward twice: an error only where a node saved tensors --------------------------------


@case(RuntimeError, says=("second time", "retain_graph=True"))
def backward_twice_through_mul(T):
    x = _leaf(T)
    y = (x * x).sum()
    y.backward()
    y.backward()


@case(RuntimeError, says=("second time",))
def backward_twice_through_exp(T):
    y = _leaf(T).exp().sum()
    y.backward()
    y.backward()


@case(RuntimeError)
def backward_twice_through_pow(T):
    y = (_leaf(T) ** 2).sum()
    y.backward()
    y.backward()


@case(RuntimeError)
def backward_twice_through_sigmoid(T):
    y = _leaf(T).sigmoid().sum()
    y.backward()
    y.backward()


@case(RuntimeError)
def backward_twice_through_matmul(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = (x @ x).sum()
    y.backward()
    y.backward()


@case(RuntimeError)
def backward_twice_through_mul_by_constant_tensor(T):
    x = _leaf(T)
    y = (x * T.tensor([3.0, 4.0])).sum()
    y.backward()
    y.backward()


@case([4.0, 4.0])
def backward_twice_through_x_plus_x(T):
    x = _leaf(T)
    y = (x + x).sum()
    y.backward()
    y.backward()
    return x.grad.tolist()


@case([2.0, 2.0])
def backward_twice_through_sum(T):
    x = _leaf(T)
    y = x.sum()
    y.backward()
    y.backward()
    return x.grad.tolist()


@case([2.0, 2.0])
def backward_twice_through_mean_of_view(T):
    x = _leaf(T, (1.0, 2.0, 3.0, 4.0))
    y = x.view(2, 2).sum()
    y.backward()
    y.backward()
    return x.grad.view(4)[:2].tolist()


@case([-2.0, -2.0])
def backward_twice_through_neg(T):
    x = _leaf(T)
    y = (-x).sum()
    y.backward()
    y.backward()
    return x.grad.tolist()


@case(RuntimeError)  # PyTorch saves the number (as a wrapped tensor): freed too
def backward_twice_through_mul_by_python_number(T):
    y = (_leaf(T) * 3).sum()
    y.backward()
    y.backward()


@case([4.0, 8.0])
def backward_twice_with_retain_graph(T):
    x = _leaf(T)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad.tolist()


@case(RuntimeError)
def backward_three_times_retaining_only_once(T):
    y = (_leaf(T) * _leaf(T)).sum()
    y.backward(retain_graph=True)
    y.backward()
    y.backward()


@case(RuntimeError)
def grad_twice_through_mul(T):
    x = _leaf(T)
    y = (x * x).sum()
    T.autograd.grad(y, x)
    T.autograd.grad(y, x)


@case(RuntimeError)
def backward_after_grad_freed_the_graph(T):
    x = _leaf(T)
    y = (x * x).sum()
    T.autograd.grad(y, x)
    y.backward()


@case([2.0, 2.0])
def backward_twice_from_a_leaf(T):
    x = _leaf(T)
    x.backward(T.ones(2))
    x.backward(T.ones(2))
    return x.grad.tolist()


# -- what backward starts from ----------------------------------------------------------------


@case(RuntimeError, says=("scalar", "gradient"))
def backward_of_non_scalar(T):
    (_leaf(T) * 2).backward()


@case([2.0])
def backward_of_one_element_non_scalar(T):
    x = T.tensor([1.0], requires_grad=True)
    (x * 2).backward()
    return x.grad.tolist()


@case(RuntimeError, says=("[3]", "[2]"))
def backward_with_gradient_of_wrong_shape(T):
    (_leaf(T) * 2).backward(T.ones(3))


@case(RuntimeError)
def backward_with_gradient_of_transposed_shape(T):
    x = T.ones(2, 3, requires_grad=True)
    (x * 2).backward(T.ones(3, 2))


@case(RuntimeError)
def backward_with_gradient_broadcastable_but_not_equal(T):
    (_leaf(T) * 2).backward(T.ones(1))


@case(["torch.float32", [2.0, 2.0]])
def backward_with_float64_gradient_of_float32_output(T):
    x = _leaf(T)
    (x * 2).backward(T.ones(2, dtype=T.float64))
    return [str(x.grad.dtype).replace("symgrad", "torch"), x.grad.tolist()]


@case([2.0, 2.0])
def backward_with_int_gradient(T):
    x = _leaf(T)
    (x * 2).backward(T.tensor([1, 1]))
    return x.grad.tolist()


@case(TypeError)
def backward_with_list_gradient(T):
    (_leaf(T) * 2).backward([1.0, 1.0])


@case(TypeError)
def backward_with_float_gradient(T):
    (_leaf(T) * 2).sum().backward(1.0)


@case(RuntimeError, says=("does not require grad",))
def backward_of_tensor_not_requiring_grad(T):
    T.tensor([1.0, 2.0]).sum().backward()


@case(RuntimeError)
def backward_of_int_tensor(T):
    T.tensor(3).backward()


@case(RuntimeError)
def backward_of_result_computed_under_no_grad(T):
    x = _leaf(T)
    with T.no_grad():
        y = (x * 2).sum()
    y.backward()


@case(RuntimeError)
def backward_of_detached_result(T):
    (_leaf(T) * 2).sum().detach().backward()


@case(RuntimeError)
def autograd_backward_with_too_few_gradients(T):
    x = _leaf(T)
    T.autograd.backward([x * 2, x * 3], [T.ones(2)])


@case(RuntimeError)
def backward_with_empty_inputs(T):
    (_leaf(T) * 2).sum().backward(inputs=[])


@case([None, [2.0, 2.0]])
def backward_with_inputs_not_in_the_graph(T):
    x, z = _leaf(T), _leaf(T)
    (x * 2).sum().backward(inputs=[z, x])
    return [None if z.grad is None else z.grad.tolist(), x.grad.tolist()]


@case(RuntimeError)
def backward_with_inputs_not_requiring_grad(T):
    x = _leaf(T)
    (x * 2).sum().backward(inputs=[T.ones(2)])


# -- autograd.grad ----------------------------------------------------------------------------


@case(RuntimeError, says=("does not require grad",))
def grad_of_output_not_requiring_grad(T):
    x = _leaf(T)
    T.autograd.grad(T.ones(2).sum(), x)


@case(RuntimeError, says=("allow_unused=True",))
def grad_of_input_not_in_the_graph(T):
    x, z = _leaf(T), _leaf(T)
    T.autograd.grad((x * 2).sum(), [x, z])


@case([[2.0, 2.0], None])
def grad_of_input_not_in_the_graph_allowed(T):
    x, z = _leaf(T), _leaf(T)
    gx, gz = T.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    return [gx.tolist(), gz]


@case([[2.0, 2.0], [0.0, 0.0]])
def grad_of_input_not_in_the_graph_materialized(T):
    x, z = _leaf(T), _leaf(T)
    gx, gz = T.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    return [gx.tolist(), gz.tolist()]


@case(ValueError)
def grad_materialized_but_unused_not_allowed(T):
    x = _leaf(T)
    T.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)


@case(RuntimeError, says=("does not require grad",))
def grad_of_input_not_requiring_grad(T):
    x = _leaf(T)
    T.autograd.grad((x * 2).sum(), T.ones(2))


@case([1.0, 1.0])
def grad_with_non_leaf_input(T):
    x = _leaf(T)
    y = x * 2
    (g,) = T.autograd.grad(y.sum(), y)
    return g.tolist()


@case(RuntimeError)
def grad_with_non_leaf_input_not_in_the_graph(T):
    x = _leaf(T)
    y = x * 2
    T.autograd.grad((x * 3).sum(), y)


@case(RuntimeError, says=("scalar",))
def grad_of_non_scalar_without_grad_outputs(T):
    x = _leaf(T)
    T.autograd.grad(x * 2, x)


@case([2.0, 2.0])  # PyTorch ignores the gradients beyond the outputs
def grad_with_too_many_grad_outputs(T):
    x = _leaf(T)
    (g,) = T.autograd.grad(x * 2, x, grad_outputs=[T.ones(2), T.ones(3)])
    return g.tolist()


@case([2.0, 2.0])
def backward_with_too_many_gradients(T):
    x = _leaf(T)
    T.autograd.backward(x * 2, [T.ones(2), "ignored"])
    return x.grad.tolist()


@case(RuntimeError)
def grad_with_too_few_grad_outputs(T):
    x = _leaf(T)
    T.autograd.grad([x * 2, x * 3], x, grad_outputs=[T.ones(2)])


@case(RuntimeError, says=("[3]", "[2]"))
def grad_with_grad_outputs_of_wrong_shape(T):
    x = _leaf(T)
    T.autograd.grad(x * 2, x, grad_outputs=T.ones(3))


@case(RuntimeError, says=("float",))
def grad_with_input_that_is_not_a_tensor(T):
    x = _leaf(T)
    T.autograd.grad((x * 2).sum(), [x, 1.0])


@case(RuntimeError, says=("NoneType",))
def backward_with_input_that_is_none(T):
    x = _leaf(T)
    (x * 2).sum().backward(inputs=[x, None])


@case(TypeError)
def grad_with_grad_outputs_a_number(T):
    x = _leaf(T)
    T.autograd.grad((x * 2).sum(), x, grad_outputs=5)


@case(RuntimeError)
def grad_with_empty_inputs(T):
    x = _leaf(T)
    T.autograd.grad((x * 2).sum(), [])


@case(RuntimeError)
def grad_with_empty_outputs(T):
    x = _leaf(T)
    T.autograd.grad([], x)


@case(TypeError)
def grad_of_a_python_number(T):
    T.autograd.grad(1.0, _leaf(T))
