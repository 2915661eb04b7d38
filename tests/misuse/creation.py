"""Making tensors from data that can't be one (ragged lists, strings, None, mixed types), and
the grad-mode context managers given wrong arguments."""

from __future__ import annotations

from misuse.registry import case

# -- tensor() from data -------------------------------------------------------------------------


@case(ValueError, says=("length 2", "dim 1"))
def tensor_of_ragged_list(T):
    T.tensor([[1.0, 2.0], [3.0]])


@case(ValueError)
def tensor_of_ragged_deeper_list(T):
    T.tensor([[[1.0], [2.0]], [[3.0]]])


@case(TypeError, says=("not a sequence", "index [1]"))
def tensor_of_list_and_number_mixed(T):
    T.tensor([[1.0, 2.0], 3.0])


@case(TypeError)
def tensor_of_number_then_list(T):
    T.tensor([3.0, [1.0, 2.0]])


@case(TypeError, says=("str",))
def tensor_of_string(T):
    T.tensor("abc")


@case(ValueError)
def tensor_of_list_of_strings(T):
    T.tensor(["a", "b"])


@case(TypeError)
def tensor_of_number_and_string(T):
    T.tensor([1.0, "a"])


@case(RuntimeError, says=("NoneType",))
def tensor_of_none(T):
    T.tensor(None)


@case(RuntimeError, says=("NoneType", "index [1]"))
def tensor_of_number_and_none(T):
    T.tensor([1.0, None])


@case(TypeError, says=("NoneType",))
def tensor_of_number_and_none_with_a_dtype(T):
    T.tensor([1.0, None], dtype=T.float64)


@case(ValueError)
def tensor_of_ragged_list_with_a_dtype(T):
    T.tensor([[1, 2], [3]], dtype=T.float32)


@case(TypeError)
def tensor_of_bytes(T):
    T.tensor(b"ab")


@case(RuntimeError)
def tensor_of_a_generator(T):
    T.tensor(i for i in range(3))


@case(ValueError, says=("one element tensors",))
def tensor_of_a_list_of_tensors(T):
    T.tensor([T.ones(2), T.ones(2)])


@case([1.0, 2.0])
def tensor_of_a_list_of_one_element_tensors(T):
    return T.tensor([T.tensor(1.0), T.tensor([2.0])]).tolist()


@case([[0, 1], [3, 4]])
def tensor_of_a_range_and_a_list(T):
    return T.tensor([range(2), [3, 4]]).tolist()


@case(RuntimeError)
def tensor_of_an_object(T):
    T.tensor(object())


@case(RuntimeError)
def tensor_of_a_dict(T):
    T.tensor({"a": 1})


@case(["torch.float32", [1.0, 2.5]])
def tensor_of_int_and_float(T):
    t = T.tensor([1, 2.5])
    return [str(t.dtype).replace("symgrad", "torch"), t.tolist()]


@case(["torch.int64", [1, 1]])
def tensor_of_int_and_bool(T):
    t = T.tensor([1, True])
    return [str(t.dtype).replace("symgrad", "torch"), t.tolist()]


@case(RuntimeError)
def tensor_of_int_data_requiring_grad(T):
    T.tensor([1, 2], requires_grad=True)


@case(UserWarning, says=("detach().clone()",))
def tensor_of_a_tensor(T):
    T.tensor(T.ones(2))


@case([1.0, 1.0])
def as_tensor_of_a_tensor_in_another_dtype(T):
    return T.as_tensor(T.ones(2), dtype=T.float64).tolist()


@case(TypeError)
def ones_with_string_size(T):
    T.ones("a")


@case(RuntimeError)
def zeros_with_negative_size(T):
    T.zeros(-1)


@case(TypeError)
def zeros_with_float_size(T):
    T.zeros(2.5)


# -- grad mode ----------------------------------------------------------------------------------


@case(TypeError)
def no_grad_given_an_argument(T):
    with T.no_grad(True):
        pass


@case(TypeError)
def enable_grad_given_an_argument(T):
    with T.enable_grad(False):
        pass


@case(TypeError)
def set_grad_enabled_without_argument(T):
    with T.set_grad_enabled():
        pass


@case(TypeError)
def set_grad_enabled_given_a_string(T):
    with T.set_grad_enabled("no"):
        pass


@case(TypeError)
def set_grad_enabled_given_none(T):
    with T.set_grad_enabled(None):
        pass


@case(TypeError)
def set_grad_enabled_given_an_int(T):
    with T.set_grad_enabled(0):
        pass


@case(False)
def no_grad_as_bare_decorator(T):
    @T.no_grad
    def f(x):
        return (x * 2).requires_grad

    return f(T.ones(2, requires_grad=True))


@case(True)
def enable_grad_as_bare_decorator(T):
    @T.enable_grad
    def f(x):
        return (x * 2).requires_grad

    with T.no_grad():
        return f(T.ones(2, requires_grad=True))


@case(TypeError)
def set_grad_enabled_as_bare_decorator(T):
    @T.set_grad_enabled
    def f(x):
        return x

    return f(T.ones(2))


@case(TypeError)
def inference_mode_given_a_string(T):
    with T.inference_mode("no"):
        pass
