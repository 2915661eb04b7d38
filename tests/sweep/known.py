"""Sweep cases where symgrad differs from PyTorch for a known reason: ``{reason: patterns}``.

Each pattern is an ``fnmatch`` pattern over case names (``op-kind-check``). The cases are
expected to fail, strictly: a case that starts to pass fails the run until its pattern goes.
``_each`` spells the patterns of several ops, kinds and checks at once.
"""


def _each(ops, kinds=("*",), checks=("*",)) -> list[str]:
    return [f"{op}-{kind}-{check}" for op in ops for kind in kinds for check in checks]


KNOWN_FAILURES: dict[str, list[str]] = {
    # attention over empty embeddings: PyTorch's first gradients are undefined-but-zero
    # tensors that do not require grad; symgrad's are zeros computed through the graph
    "attention over empty embeddings": _each(["sdpa", "sdpa_causal"], ("empty2d",), ("gradgrad",)),
    # PyTorch takes dim 1 of an empty vector for cummax (an empty result); symgrad raises
    # IndexError, as for any dimension out of range
    "cummax accepts dim 1 of an empty vector in PyTorch": _each(["cummax"], ("empty",)),
    # PyTorch's cummax/cummin backward takes the forward input, so over an empty input their
    # first gradients require grad though they do not depend on it; symgrad's rules read
    # only what the gradient depends on
    "running extrema gradients do not read the input": _each(
        ["cummax", "cummin"], ("empty2d",), ("gradgrad",)
    )
    + ["cummin-empty-gradgrad"],
    # degenerate shapes (0-d inputs, empty or size-1 dimensions with out-of-range indices):
    # PyTorch's kernels check the index and the shapes in an order that varies by op, so the
    # exception type differs (IndexError or RuntimeError); symgrad raises one of the two with
    # a message naming the problem
    "the error type on degenerate index ops": _each(["index_add"], ("0d",))
    + _each(["index_copy"], ("empty2d", "size1"))
    + _each(["index_fill", "index_fill_tensor"], ("empty2d",)),
    # take_along_dim of a size-1 input with indices past its end: PyTorch reads out of bounds
    # without an error; symgrad raises
    "take_along_dim checks its indices": _each(["take_along_dim"], ("size1",)),
    # PyTorch's block_diag backward counts no rows for an empty vector, which its forward
    # places as one empty row, so the blocks after it get the gradient of the wrong rows
    "block_diag's backward after an empty vector": ["block_diag-empty-grad"],
    # PyTorch has no derivative for the backward of ctc_loss ("derivative for ... is not
    # implemented"); symgrad's rules are written in the interpreter vocabulary, so they have
    # every order
    "ctc_loss has second derivatives": _each(["ctc_loss"], ("noncontig", "view"), ("gradgrad",)),
}


# Cases whose recorded PyTorch answer is rounding noise that changes with the machine PyTorch
# runs on (its vectorised kernels): ``{pattern: tolerances}`` for checking that PyTorch still
# gives the recorded answer, and symgrad, which takes the same steps, too. logcumsumexp's
# second derivative over a wide spread is noise at a relative 6e-6 (1e-9 where it is 0):
# PyTorch's first gradient splits the incoming one into its positive and negative parts, each
# through a log-domain scan, and takes their difference; on one machine it is
# 1.88075319e-05, on another 1.88075092e-05.
PYTORCH_NOISE: dict[str, dict[str, float]] = {
    pattern: {"rtol": 1e-5, "atol": 1e-8}
    for pattern in _each(["logcumsumexp_large"], ("size1", "noncontig", "view"), ("gradgrad",))
}
