"""L-BFGS, as ``torch.optim.LBFGS`` runs it: a quasi-Newton direction from the last
``history_size`` steps and gradient changes, with an optional strong-Wolfe line search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad import creation
from symgrad.autograd.grad_mode import enable_grad, no_grad
from symgrad.ops import joining
from symgrad.optim.line_search import strong_wolfe
from symgrad.optim.optimizer import Optimizer, check_nonnegative
from symgrad.tensor import Tensor

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Limited-memory BFGS (``torch.optim.LBFGS``). :meth:`step` takes a ``closure`` that
    clears the gradients, recomputes the loss, calls ``backward()`` and returns the loss; one
    step runs up to ``max_iter`` iterations (``max_eval`` closure calls). Only one parameter
    group is allowed, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([0.0, 0.0], requires_grad=True)
    >>> opt = symgrad.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - symgrad.tensor([1.0, -2.0])) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 4) for v in w.tolist()]
    [1.0, -2.0]
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        check_nonnegative(("learning rate", lr))
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> Tensor:
        views = [
            creation.zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1)
            for p in self._params
        ]
        return joining.cat(views, 0)

    def _add_grad(self, step_size: Any, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset : offset + numel].view_as(p), alpha=float(step_size))
            offset += numel

    def _directional_evaluate(self, closure: Callable, x: list, t: Any, d: Tensor) -> tuple:
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Run up to ``max_iter`` L-BFGS iterations; returns the first loss ``closure``
        gave."""
        if len(self.param_groups) != 1:
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}"
            )
        with no_grad():
            return self._run(closure)

    def _run(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t, prev_flat_grad, prev_loss = (
            state.get(k) for k in ("d", "t", "prev_flat_grad", "prev_loss")
        )
        # the curvature pairs join the state at the step's end, after d and t (PyTorch's
        # order of the state's keys)
        history = {k: state.get(k) for k in ("old_dirs", "old_stps", "ro", "H_diag")}
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                history.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
            else:
                d = self._direction(state, history, flat_grad, prev_flat_grad, d, t, group)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]

                def obj_func(x: list, t: Any, d: Tensor) -> tuple:
                    return self._directional_evaluate(evaluate, x, t, d)

                loss, flat_grad, t, ls_func_evals = strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state.update(d=d, t=t, **history, prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def _direction(
        self,
        state: dict,
        history: dict,
        flat_grad: Tensor,
        prev_flat_grad: Tensor,
        d: Tensor,
        t: Any,
        group: dict,
    ) -> Tensor:
        """The two-loop recursion: ``-H g`` with ``H`` the inverse-Hessian estimate from the
        curvature pairs of ``history`` (a pair joins when it has positive curvature ``y.s``);
        ``state`` keeps the recursion's ``al``."""
        old_dirs, old_stps, ro = history["old_dirs"], history["old_stps"], history["ro"]
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == group["history_size"]:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            history["H_diag"] = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * group["history_size"]
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=float(-al[i]))
        r = q.mul(history["H_diag"])
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=float(al[i] - be_i))
        return r
