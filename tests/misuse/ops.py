"""Ops given operands that don't fit: dtypes that don't mix, shapes that don't broadcast or
multiply, dimensions out of range, arguments of the wrong type."""

from __future__ import annotations

from misuse.registry import case

# -- dtypes -------------------------------------------------------------------------------------


@case(RuntimeError, says=("int64", "float32"))
def matmul_of_int_and_float(T):
    T.tensor([[1, 2], [3, 4]]) @ T.ones(2, 2)


@case(RuntimeError)
def matmul_of_float32_and_float64(T):
    T.ones(2, 2) @ T.ones(2, 2, dtype=T.float64)


@case(RuntimeError)
def matrix_vector_of_float_and_int(T):
    T.ones(2, 2) @ T.tensor([1, 2])


@case(RuntimeError)
def dot_of_int_and_float(T):
    T.dot(T.tensor([1, 2]), T.ones(2))


@case(IndexError, says=("float32",))
def index_with_float_tensor(T):
    T.ones(3)[T.tensor([0.0, 1.0])]


@case(IndexError)
def index_with_python_float(T):
    T.ones(3)[1.5]


@case(IndexError)
def index_out_of_range(T):
    T.ones(3)[3]


@case(["torch.float64", [2.0, 2.0]])
def add_of_float32_and_float64(T):
    t = T.ones(2) + T.ones(2, dtype=T.float64)
    return [str(t.dtype).replace("symgrad", "torch"), t.tolist()]


@case(["torch.float32", [1.0, 2.0]])
def cat_of_int_and_float(T):
    t = T.cat([T.tensor([1]), T.tensor([2.0])])
    return [str(t.dtype).replace("symgrad", "torch"), t.tolist()]


# -- shapes -------------------------------------------------------------------------------------


@case(RuntimeError, says=("[2]", "[3]", "(2)", "(3)", "dimension 0"))
def add_of_mismatched_shapes(T):
    T.ones(2) + T.ones(3)


@case(RuntimeError)
def mul_of_mismatched_shapes(T):
    T.ones(2, 3) * T.ones(3, 2)


@case(RuntimeError)
def add_in_place_of_shape_that_would_grow(T):
    T.ones(1).add_(T.ones(3))


@case(RuntimeError, says=("[2, 3]",))
def matmul_of_mismatched_matrices(T):
    T.ones(2, 3) @ T.ones(2, 3)


@case(RuntimeError)
def matmul_of_mismatched_vectors(T):
    T.ones(2) @ T.ones(3)


@case(RuntimeError)
def matmul_of_matrix_and_mismatched_vector(T):
    T.ones(2, 3) @ T.ones(2)


@case(RuntimeError)
def matmul_of_0d(T):
    T.tensor(2.0) @ T.ones(2)


@case(RuntimeError)
def batched_matmul_of_mismatched_batches(T):
    T.ones(2, 2, 3) @ T.ones(3, 3, 2)


@case(RuntimeError)
def mm_of_vectors(T):
    T.mm(T.ones(2), T.ones(2))


@case(RuntimeError)
def dot_of_mismatched_vectors(T):
    T.dot(T.ones(2), T.ones(3))


@case(RuntimeError, says=("[2, 3]", "[2, 4]"))
def cat_of_mismatched_shapes(T):
    T.cat([T.ones(2, 3), T.ones(2, 4)])


@case(RuntimeError)
def cat_of_different_ranks(T):
    T.cat([T.ones(2, 3), T.ones(3)])


@case(ValueError)
def cat_of_empty_list(T):
    T.cat([])


@case(IndexError)
def cat_along_dim_out_of_range(T):
    T.cat([T.ones(2), T.ones(2)], dim=1)


@case(RuntimeError, says=("equal size",))
def stack_of_mismatched_shapes(T):
    T.stack([T.ones(2), T.ones(3)])


@case(RuntimeError)
def stack_of_empty_list(T):
    T.stack([])


@case(RuntimeError)
def view_to_wrong_size(T):
    T.ones(6).view(4, 2)


@case(RuntimeError)
def reshape_to_wrong_size(T):
    T.ones(6).reshape(5)


@case(RuntimeError)
def expand_to_incompatible_size(T):
    T.ones(3).expand(2, 4)


@case(IndexError)
def sum_over_dim_out_of_range(T):
    T.ones(2, 3).sum(dim=2)


@case(IndexError)
def transpose_of_dim_out_of_range(T):
    T.ones(2, 3).transpose(0, 2)


@case(RuntimeError)
def mse_loss_of_mismatched_shapes_broadcasting(T):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        T.nn.functional.mse_loss(T.ones(2), T.ones(3))


# -- argument types -----------------------------------------------------------------------------


@case(TypeError)
def exp_of_a_list(T):
    T.exp([1.0, 2.0])


@case(TypeError)
def add_of_a_string(T):
    T.ones(2) + "a"


@case(TypeError)
def mul_by_none(T):
    T.ones(2) * None


@case(TypeError)
def matmul_with_a_list(T):
    T.matmul(T.ones(2, 2), [1.0, 2.0])


@case(TypeError)
def cat_of_a_tensor(T):
    T.cat(T.ones(2))


@case(TypeError)
def stack_of_a_tensor(T):
    T.stack(T.ones(2, 2))


@case(TypeError)
def cat_of_a_generator(T):
    T.cat(t for t in [T.ones(2)])


@case(TypeError)
def cat_of_a_list_holding_a_number(T):
    T.cat([T.ones(2), 1.0])


@case(TypeError)
def view_given_a_string(T):
    T.ones(2).view("a")


@case(TypeError)
def reshape_given_a_float(T):
    T.ones(2).reshape(2.0)


@case(TypeError)
def sum_over_float_dim(T):
    T.ones(2).sum(dim=0.5)


@case(TypeError)
def sum_over_bool_dim(T):
    T.ones(2).sum(dim=True)


@case(TypeError)
def mean_over_tuple_of_float_dims(T):
    T.ones(2).mean(dim=(0.0,))


@case(TypeError)
def transpose_of_float_dim(T):
    T.ones(2, 2).transpose(0, 1.0)


@case(2.0)
def sum_over_dim_given_as_int_tensor(T):
    return T.ones(2).sum(dim=T.tensor(0)).item()


@case(TypeError)
def pow_of_a_string(T):
    T.ones(2).pow("a")


@case(TypeError)
def unsqueeze_of_none(T):
    T.ones(2).unsqueeze(None)


@case(TypeError)
def add_with_unknown_keyword(T):
    T.add(T.ones(2), T.ones(2), beta=2)


@case(TypeError)
def sigmoid_with_extra_argument(T):
    T.sigmoid(T.ones(2), 1)
