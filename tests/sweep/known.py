"""Sweep cases where symgrad differs from PyTorch for a known reason: ``{reason: patterns}``.

Each pattern is an ``fnmatch`` pattern over case names (``op-kind-check``). The cases are
expected to fail, strictly: a case that starts to pass fails the run until its pattern goes.
"""

_EMPTY = ("empty", "empty2d")


def _each(ops, kinds=("*",), checks=("*",)) -> list[str]:
    return [f"{op}-{kind}-{check}" for op in ops for kind in kinds for check in checks]


_CLAMP_LIKE = ("clamp", "clamp_min", "clamp_max", "clamp_min_method", "clip")
_MAX_MIN_BINARY = ("maximum", "minimum", "max_binary", "min_binary")
_CROSS_ENTROPY_0D = [
    f"cross_entropy{variant}_{r}"
    for variant in (
        "",
        "_weight",
        "_ignore_index",
        "_weight_ignore_index",
        "_spatial",
        "_label_smoothing",
        "_label_smoothing_weight",
        "_label_smoothing_ignore_index",
    )
    for r in ("mean", "sum", "none")
]
_NLL = [
    f"nll_loss{variant}_{r}" for variant in ("", "_weight_ignore_index") for r in ("mean", "sum")
] + ["nll_loss_none", "nll_loss_weight_ignore_index_none", "nll_loss_1d"]

KNOWN_FAILURES: dict[str, list[str]] = {
    # -- graphs of first gradients (prim/ and autograd/) ----------------------------------------
    "prod of a single element: the first gradient records a graph (requires_grad=True) "
    "where PyTorch's has none": _each(
        ("prod_all", "prod_dim-1", "prod_dim-1_keepdim", "prod_all_with_zero"),
        ("0d",),
        ("gradgrad",),
    )
    + _each(("prod_all_with_zero", "prod_dim_with_zero"), ("size1",), ("gradgrad",)),
    "nll_loss: the first gradient records no graph (requires_grad=False); PyTorch's "
    "NllLossBackward0 output depends on the input and requires grad": _each(
        _NLL, ("noncontig", "view"), ("gradgrad",)
    ),
    # -- empty inputs ----------------------------------------------------------------------------
    "cross_entropy of empty inputs raises ValueError in log_softmax before PyTorch's "
    "target checks (RuntimeError for a 2-d target, IndexError for a target out of range)": _each(
        [f"cross_entropy_spatial_{r}" for r in ("mean", "sum", "none")], _EMPTY
    ),
    # -- exception types of shape ops on 0-d and empty tensors ----------------------------------
    "expand(-1, n) of a 0-d tensor: PyTorch raises RuntimeError (symgrad IndexError)": _each(
        ("expand_keep",), ("0d",)
    ),
    "cat skips legacy (0,)-shaped empty tensors before checking dim (PyTorch returns an "
    "empty tensor; symgrad raises IndexError for dim 1)": _each(("cat_dim1",), ("empty",)),
    # -- exception types of linear algebra ------------------------------------------------------
    "mv of 0-d tensors: PyTorch raises IndexError (symgrad RuntimeError)": _each(("mv",), ("0d",)),
    # -- exception types and empty results of indexing ------------------------------------------
    "gather with index and input of different ranks: PyTorch checks dim first (IndexError), "
    "then the index size (RuntimeError)": _each(("gather",), ("0d", "empty"))
    + _each(("gather_method",), ("empty2d",)),
    "index_select out of range: PyTorch raises RuntimeError (symgrad IndexError)": _each(
        ("index_select",), ("0d", "empty2d")
    )
    + _each(("index_select_dim1",), ("empty2d", "size1")),
    "an integer index out of range selecting an empty result: PyTorch returns it, symgrad "
    "raises IndexError": _each(
        ("index_int_tensor", "index_list", "setitem_int_tensor"), ("empty2d",)
    ),
    "setitem with a value of a shape that does not broadcast: PyTorch raises RuntimeError "
    "(symgrad ValueError)": _each(("setitem_slice", "setitem_slice_broadcast"), ("empty2d",)),
    # -- exception types of losses ---------------------------------------------------------------
    "cross_entropy/nll_loss of a 0-d input: PyTorch raises IndexError (dim 1 out of range), "
    "RuntimeError (cross_entropy_1d) or ValueError (nll_loss_1d); symgrad ValueError or "
    "IndexError": _each(_CROSS_ENTROPY_0D + ["cross_entropy_1d", "nll_loss_1d"], ("0d",)),
}
