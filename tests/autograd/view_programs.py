"""Random short programs of views and in-place changes, run the same way on symgrad and on
PyTorch: which steps raise (and what), every tensor's values, shape and flag afterwards, and
the leaves' gradients of a weighted sum of all of them.

``python -m tests.autograd.view_programs`` records PyTorch's outcomes in
``view_programs.json`` (needs torch); the tests compare symgrad with that file, and with
PyTorch itself when it is importable.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np

EXPECTED = Path(__file__).with_name("view_programs.json")
SEEDS = range(120)
STEPS = 7

_UNARY = ["exp", "sin", "tanh", "sigmoid", "mul2", "square", "neg", "relu", "clone"]
_VIEWS = [
    "slice0", "slice1step", "t", "diagonal", "select0", "view_flat", "unsqueeze", "narrow1",
    "transpose", "reshape", "detach", "expand", "unbind0", "split1",
]  # fmt: skip
_INPLACE = [
    "add_c", "mul_c", "add_t", "mul_t", "clamp_", "fill_", "zero_", "exp_", "sigmoid_",
    "copy_t", "setitem_row", "setitem_t", "relu_", "div_t", "pow_", "index_fill",
    "masked_fill_", "addcmul_", "lerp_", "tanh_", "sub_t", "squeeze_", "unsqueeze_", "t_",
    "transpose_",
]  # fmt: skip


def program(seed: int) -> list:
    """The steps of program ``seed``: (kind, op, where) with ``where`` picking the tensors."""
    rng = random.Random(seed)
    steps = []
    for _ in range(STEPS):
        kind = rng.choice(["unary", "binary", "view", "view", "inplace", "inplace", "inplace"])
        ops = {"unary": _UNARY, "binary": ["add", "mul", "sub"], "view": _VIEWS}
        op = rng.choice(ops.get(kind, _INPLACE))
        steps.append((kind, op, rng.random(), rng.random()))
    return steps


def _pick(live: list, r: float) -> Any:
    return live[int(r * len(live)) % len(live)]


def _view(T: Any, x: Any, op: str) -> Any:
    return {
        "slice0": lambda: x[1:],
        "slice1step": lambda: x[..., ::2],
        "t": lambda: x.t(),
        "diagonal": lambda: x.diagonal(),
        "select0": lambda: x[0],
        "view_flat": lambda: x.view(-1),
        "unsqueeze": lambda: x.unsqueeze(0),
        "narrow1": lambda: x.narrow(-1, 1, 2),
        "transpose": lambda: x.transpose(0, -1),
        "reshape": lambda: x.reshape(-1),
        "detach": lambda: x.detach(),
        "expand": lambda: x.expand(2, *x.shape),
        "unbind0": lambda: x.unbind(0)[-1],
        "split1": lambda: x.split(1, dim=-1)[0],
    }[op]()


def _change(T: Any, x: Any, z: Any, op: str) -> None:
    {
        "add_c": lambda: x.add_(1.5),
        "mul_c": lambda: x.mul_(-0.5),
        "add_t": lambda: x.add_(z),
        "mul_t": lambda: x.mul_(z),
        "sub_t": lambda: x.sub_(z),
        "div_t": lambda: x.div_(z + 3.0),
        "clamp_": lambda: x.clamp_(min=-0.3),
        "fill_": lambda: x.fill_(0.25),
        "zero_": lambda: x.zero_(),
        "exp_": lambda: x.exp_(),
        "sigmoid_": lambda: x.sigmoid_(),
        "tanh_": lambda: x.tanh_(),
        "relu_": lambda: x.relu_(),
        "copy_t": lambda: x.copy_(z),
        "setitem_row": lambda: x.__setitem__(0, 2.0),
        "setitem_t": lambda: x.__setitem__((Ellipsis, slice(None, 1)), z[..., :1]),
        "pow_": lambda: x.pow_(2),
        "index_fill": lambda: x.index_fill_(-1, T.tensor([0]), -1.0),
        "masked_fill_": lambda: x.masked_fill_(x > 0.5, 0.0),
        "addcmul_": lambda: x.addcmul_(z, z, value=0.5),
        "lerp_": lambda: x.lerp_(z, 0.3),
        "squeeze_": lambda: x.squeeze_(),
        "unsqueeze_": lambda: x.unsqueeze_(0),
        "t_": lambda: x.t_(),
        "transpose_": lambda: x.transpose_(0, -1),
    }[op]()


def run(T: Any, seed: int) -> dict:
    """Program ``seed`` on the library ``T`` (symgrad or torch), as plain data."""
    rs = np.random.default_rng(seed)
    a = T.tensor(rs.standard_normal((3, 4)), dtype=T.float64, requires_grad=True)
    b = T.tensor(rs.standard_normal(4), dtype=T.float64, requires_grad=True)
    c = T.tensor(rs.standard_normal((3, 4)), dtype=T.float64)
    live = [a, b, c]
    outcomes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, op, r1, r2 in program(seed):
            try:
                x = _pick(live, r1)
                if kind == "unary":
                    fn = {"mul2": lambda t: t * 2, "square": lambda t: t * t, "neg": lambda t: -t}
                    live.append(fn[op](x) if op in fn else getattr(x, op)())
                elif kind == "binary":
                    z = _pick(live, r2)
                    live.append(_binary(x, z, op))
                elif kind == "view":
                    live.append(_view(T, x, op))
                else:
                    _change(T, x, _pick(live, r2), op)
                outcomes.append("ok")
            except Exception as e:  # noqa: BLE001 - the error's type is what is compared
                outcomes.append(type(e).__name__)
        weights = np.random.default_rng(seed + 1)
        backward, grads = None, None
        try:
            loss = sum(
                (t * T.tensor(weights.standard_normal(tuple(t.shape)), dtype=T.float64)).sum()
                for t in live
                if t.requires_grad
            )
            loss.backward()
            grads = [None if t.grad is None else t.grad.tolist() for t in (a, b)]
        except Exception as e:  # noqa: BLE001
            backward = type(e).__name__
    return {
        "outcomes": outcomes,
        "values": [
            np.asarray(t.detach().tolist(), dtype=np.float64).ravel().tolist() for t in live
        ],
        "shapes": [list(t.shape) for t in live],
        "requires_grad": [bool(t.requires_grad) for t in live],
        "backward": backward,
        "grads": grads,
    }


def _binary(x: Any, z: Any, op: str) -> Any:
    return x + z if op == "add" else x * z if op == "mul" else x - z


def differences(got: dict, expected: dict) -> list:
    """What differs between two results of :func:`run` (values to 1e-10 relative)."""
    found = [
        f"{key}: {got[key]} != {expected[key]}"
        for key in ("outcomes", "shapes", "requires_grad", "backward")
        if got[key] != expected[key]
    ]
    pairs = list(zip(got["values"], expected["values"]))
    pairs += [(g, e) for g, e in zip(got["grads"] or [], expected["grads"] or []) if g is not None]
    if (got["grads"] is None) != (expected["grads"] is None):
        found.append(f"grads: {got['grads']} != {expected['grads']}")
    elif got["grads"] is not None and [g is None for g in got["grads"]] != [
        e is None for e in expected["grads"]
    ]:
        found.append("grads: a leaf's gradient is missing on one side")
    for g, e in pairs:
        g, e = np.asarray(g, dtype=np.float64), np.asarray(e, dtype=np.float64)
        if g.shape != e.shape or not np.allclose(g, e, rtol=1e-10, atol=1e-12, equal_nan=True):
            found.append(f"values {g.tolist()} != {e.tolist()}")
    return found


def main() -> None:
    import torch

    results = {str(seed): run(torch, seed) for seed in SEEDS}
    EXPECTED.write_text(json.dumps(results, separators=(",", ":")) + "\n")
    print(f"recorded {len(results)} programs in {EXPECTED}")


if __name__ == "__main__":
    main()
