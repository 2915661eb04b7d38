"""The hooks of ``Optimizer`` (step, state_dict and load_state_dict, per optimizer and
global), with PyTorch's calling conventions: a step hook gets ``(optimizer, args, kwargs)``
where ``args`` starts with the optimizer itself."""

from __future__ import annotations

import pytest

import symgrad
from symgrad.optim import optimizer as optimizer_module


def _sgd(lr=1.0):
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    w.sum().backward()
    return w, symgrad.optim.SGD([w], lr=lr)


def test_step_hooks_run_around_the_step_in_order():
    w, opt = _sgd()
    log = []
    opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", o is opt, a == (opt,), k)))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post", w.tolist())))
    opt.step()
    opt.step(closure=None)
    assert log == [
        ("pre", True, True, {}),
        ("post", [0.0, 1.0]),
        ("pre", True, True, {"closure": None}),
        ("post", [-1.0, 0.0]),
    ]


def test_step_pre_hook_may_replace_the_arguments():
    w, opt = _sgd()
    opt.register_step_pre_hook(lambda o, a, k: ((o,), {"closure": lambda: 7}))
    opt.register_step_post_hook(lambda o, a, k: 99)  # a post hook's result is ignored
    assert opt.step() == 7


def test_step_pre_hook_returning_something_else_is_an_error():
    w, opt = _sgd()
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, new_kw"):
        opt.step()


def test_handles_remove_hooks_and_hooks_run_once_per_step():
    w, opt = _sgd()
    calls = []
    handle = opt.register_step_pre_hook(lambda o, a, k: calls.append(1))
    opt.step()
    handle.remove()
    opt.step()
    assert calls == [1]
    lbfgs = symgrad.optim.LBFGS([w], max_iter=2)
    lbfgs.register_step_post_hook(lambda o, a, k: calls.append(len(a)))

    def closure():
        lbfgs.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    lbfgs.step(closure)
    assert calls == [1, 2]


def test_global_step_hooks_run_before_the_optimizers_own():
    w, opt = _sgd()
    log = []
    opt.register_step_pre_hook(lambda o, a, k: log.append("own"))
    handle = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: log.append("all"))
    post = optimizer_module.register_optimizer_step_post_hook(lambda o, a, k: log.append("end"))
    try:
        opt.step()
    finally:
        handle.remove()
        post.remove()
    opt.step()
    assert log == ["all", "own", "end", "own"]


def test_state_dict_hooks():
    w, opt = _sgd()
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: log.append("post"))
    opt.register_state_dict_post_hook(lambda o, sd: {"replaced": sd["param_groups"]}, prepend=True)
    saved = opt.state_dict()
    assert log == ["pre", "post"]
    assert list(saved) == ["replaced"]


def test_load_state_dict_hooks():
    w, opt = _sgd()
    log = []

    def raise_lr(o, sd):
        log.append(("pre", sd["param_groups"][0]["lr"]))
        return {"state": sd["state"], "param_groups": [dict(sd["param_groups"][0], lr=5.0)]}

    opt.register_load_state_dict_pre_hook(raise_lr)
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append("first"), prepend=True)
    opt.register_load_state_dict_post_hook(lambda o: log.append(("post", o.param_groups[0]["lr"])))
    opt.load_state_dict(symgrad.optim.SGD([w], lr=3.0).state_dict())
    assert log == ["first", ("pre", 3.0), ("post", 5.0)]
    assert opt.param_groups[0]["lr"] == 5.0


def test_hooks_against_torch():
    torch = pytest.importorskip("torch")
    for lib in (symgrad, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.Adam([w], lr=0.1)
        for name in (
            "register_step_pre_hook",
            "register_step_post_hook",
            "register_state_dict_pre_hook",
            "register_state_dict_post_hook",
            "register_load_state_dict_pre_hook",
            "register_load_state_dict_post_hook",
        ):
            assert hasattr(opt.register_step_pre_hook(lambda o, a, k: None), "remove")
            assert callable(getattr(opt, name))
