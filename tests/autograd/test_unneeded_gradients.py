"""``grad()`` and ``backward(inputs=...)`` compute only the gradients leading to the inputs
asked for, as PyTorch's engine: an input whose derivative PyTorch lacks (``zeta`` in ``s``,
``igamma``/``igammac`` in ``a``) is no error while its gradient is not wanted, even when it
requires grad."""

from __future__ import annotations

import pytest
from _torch_table import table_tests


def _pair(T):
    s = T.tensor([2.5, 3.0], dtype=T.float64, requires_grad=True)
    q = T.tensor([1.5, 2.0], dtype=T.float64, requires_grad=True)
    return s, q


def _grad_of(op, which):
    def case(T):
        s, q = _pair(T)
        out = op(T)(s, q).sum()
        return T.autograd.grad(out, [s, q][which] if isinstance(which, int) else (s, q))

    return case


def _backward_inputs(op):
    def case(T):
        s, q = _pair(T)
        op(T)(s, q).sum().backward(inputs=[q])
        return (q.grad, s.grad is None)

    return case


def _create_graph(T):
    s, q = _pair(T)
    (g,) = T.autograd.grad(T.special.zeta(s, q).sum(), q, create_graph=True)
    return T.autograd.grad(g.sum(), q)


def _zeta(T):
    return T.special.zeta


def _igamma(T):
    return T.igamma


def _igammac(T):
    return T.igammac


CASES = {
    "zeta_q": (_grad_of(_zeta, 1), (([-0.7677, -0.247], "float64", None),)),
    "zeta_s": (_grad_of(_zeta, 0), ("raises", "NotImplementedError")),
    "zeta_both": (_grad_of(_zeta, None), ("raises", "NotImplementedError")),
    "zeta_inputs": (_backward_inputs(_zeta), (([-0.7677, -0.247], "float64", None), True)),
    "zeta_create_graph": (_create_graph, (([1.6028, 0.4431], "float64", None),)),
    "igamma_x": (_grad_of(_igamma, 1), (([0.3084, 0.2707], "float64", None),)),
    "igamma_a": (_grad_of(_igamma, 0), ("raises", "NotImplementedError")),
    "igamma_inputs": (_backward_inputs(_igamma), (([0.3084, 0.2707], "float64", None), True)),
    "igammac_x": (_grad_of(_igammac, 1), (([-0.3084, -0.2707], "float64", None),)),
    "igammac_a": (_grad_of(_igammac, 0), ("raises", "NotImplementedError")),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


@pytest.mark.parametrize("op", ["zeta", "igamma"])
def test_message_names_the_op(op):
    import symgrad as T

    s, q = _pair(T)
    f = T.special.zeta if op == "zeta" else T.igamma
    what = "zeta" if op == "zeta" else "igamma: input"
    with pytest.raises(NotImplementedError, match=f"the derivative for '{what}' is not impl"):
        T.autograd.grad(f(s, q).sum(), s)
