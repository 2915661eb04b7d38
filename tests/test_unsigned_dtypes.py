"""uint16, uint32, uint64: PyTorch's "limited support" unsigned types. They are made,
converted, indexed, joined, compared for equality, multiplied and summed; promoted with
nothing but themselves and the floating types; other kernels refuse them, as PyTorch's do."""

from __future__ import annotations

import pytest

import symgrad

LIMITED = [symgrad.uint16, symgrad.uint32, symgrad.uint64]


@pytest.mark.parametrize("d", LIMITED, ids=lambda d: d.name)
def test_what_works(d):
    x = symgrad.tensor([1, 2, 3], dtype=d)
    assert repr(x) == f"tensor([1, 2, 3], dtype=symgrad.{d.name})"
    assert not d.is_signed and not d.is_floating_point
    assert (x * x).tolist() == [1, 4, 9] and (x * x).dtype == d
    assert (x * 2).dtype == d
    assert x.sum().dtype == symgrad.int64 and x.cumsum(0).tolist() == [1, 3, 6]
    assert (x == 2).tolist() == [False, True, False]
    assert (x + 0.5).dtype == symgrad.float32 and (x / 2).tolist() == [0.5, 1.0, 1.5]
    assert symgrad.cat([x, x]).dtype == d and x[1].item() == 2
    assert x.float().mean().item() == 2.0 and x.to(symgrad.uint8).dtype == symgrad.uint8
    assert symgrad.promote_types(d, symgrad.float64) == symgrad.float64
    assert symgrad.iinfo(d).max == 2 ** (8 * d.itemsize) - 1


@pytest.mark.parametrize("d", LIMITED, ids=lambda d: d.name)
def test_what_pytorch_refuses(d):
    x = symgrad.tensor([1, 2], dtype=d)
    with pytest.raises(
        RuntimeError,
        match=f"Promotion for uint16, uint32, uint64 types is not "
        f"supported, attempted to promote {d.scalar_type} and Long",
    ):
        x * symgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="attempted to promote"):
        symgrad.promote_types(d, symgrad.bool)
    for call, kernel in [
        (lambda: x + x, "add_stub"),
        (lambda: x - 1, "add_stub"),
        (lambda: -x, "neg_cpu"),
        (lambda: x < 2, "lt_cpu"),
        (lambda: x.abs(), "abs_cpu"),
        (lambda: x.max(), "max_all"),
        (lambda: x.argmax(), "argmax_cpu"),
        (lambda: x // 2, "div_floor_cpu"),
    ]:
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for'):
            call()
    with pytest.raises(RuntimeError, match="floating point"):
        symgrad.ones(2, dtype=d, requires_grad=True)


def test_the_same_as_pytorch():
    torch = pytest.importorskip("torch")
    checks = [
        lambda T, d: (T.tensor([1, 2], dtype=d) * 3).tolist(),
        lambda T, d: str(T.tensor([1, 2], dtype=d).sum().dtype).split(".")[1],
        lambda T, d: str(T.promote_types(d, T.float16)).split(".")[1],
        lambda T, d: T.tensor([1.7, 70000.0]).to(d).tolist(),
        lambda T, d: T.tensor([1, 2], dtype=d) + T.tensor([1, 2], dtype=d),
        lambda T, d: T.tensor([1, 2], dtype=d) + T.tensor([1, 2], dtype=T.int8),
        lambda T, d: T.tensor([3, 2], dtype=d).min(0),
        lambda T, d: T.tensor([3, 2], dtype=d) > 1,
    ]
    for name in ("uint16", "uint32", "uint64"):
        for check in checks:
            outcomes = []
            for T in (symgrad, torch):
                try:
                    outcomes.append(check(T, getattr(T, name)))
                except (RuntimeError, NotImplementedError) as e:
                    outcomes.append((type(e).__name__, str(e).split(";")[0]))
            assert outcomes[0] == outcomes[1], (name, outcomes)
