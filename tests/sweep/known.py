"""Sweep cases where symgrad differs from PyTorch for a known reason: ``{reason: patterns}``.

Each pattern is an ``fnmatch`` pattern over case names (``op-kind-check``). The cases are
expected to fail, strictly: a case that starts to pass fails the run until its pattern goes.
``_each`` spells the patterns of several ops, kinds and checks at once.
"""


def _each(ops, kinds=("*",), checks=("*",)) -> list[str]:
    return [f"{op}-{kind}-{check}" for op in ops for kind in kinds for check in checks]


KNOWN_FAILURES: dict[str, list[str]] = {
    # PyTorch has no derivative for hardsigmoid's backward ("derivative for
    # aten::hardsigmoid_backward is not implemented"); symgrad gives the second derivative
    # (zero), as it does for every element-wise primitive
    "hardsigmoid has a second derivative": _each(["hardsigmoid"], checks=("gradgrad",)),
}
