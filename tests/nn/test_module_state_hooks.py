"""Module's extra state, state-dict hooks, set_submodule, share_memory, type, and to() with
a memory format, as PyTorch's."""

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(1, 1)
        self.count = 0

    def get_extra_state(self):
        return {"count": self.count}

    def set_extra_state(self, state):
        self.count = state["count"]


def test_extra_state_round_trip():
    net = nn.Sequential(Counter(), nn.Linear(1, 1))
    net[0].count = 5
    sd = net.state_dict()
    assert list(sd) == ["0._extra_state", "0.lin.weight", "0.lin.bias", "1.weight", "1.bias"]
    assert sd["0._extra_state"] == {"count": 5}
    other = nn.Sequential(Counter(), nn.Linear(1, 1))
    assert repr(other.load_state_dict(sd)) == "<All keys matched successfully>"
    assert other[0].count == 5
    del sd["0._extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0._extra_state"'):
        other.load_state_dict(sd)
    assert other.load_state_dict(sd, strict=False).missing_keys == ["0._extra_state"]


def test_extra_state_without_setter_is_unexpected():
    plain = nn.Sequential(nn.Linear(1, 1), nn.Linear(1, 1))
    sd = plain.state_dict()
    sd["0._extra_state"] = 1
    assert plain.load_state_dict(sd, strict=False).unexpected_keys == ["0._extra_state"]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "0._extra'):
        plain.load_state_dict(sd)
    with pytest.raises(RuntimeError, match="Reached a code path in Module.get_extra_state"):
        nn.Linear(1, 1).get_extra_state()
    with pytest.raises(RuntimeError, match="Reached a code path in Module.set_extra_state"):
        nn.Linear(1, 1).set_extra_state(1)


def test_state_dict_hooks():
    log = []
    lin = nn.Linear(1, 1)
    pre = lin.register_state_dict_pre_hook(lambda m, p, keep: log.append(("pre", p, keep)))

    def post(m, sd, prefix, meta):
        log.append(("post", prefix, list(sd), meta))
        sd[prefix + "extra"] = 1

    handle = lin.register_state_dict_post_hook(post)
    seq = nn.Sequential(lin)
    assert list(seq.state_dict(keep_vars=True)) == ["0.weight", "0.bias", "0.extra"]
    assert log == [("pre", "0.", True), ("post", "0.", ["0.weight", "0.bias"], {"version": 1})]
    pre.remove()
    handle.remove()
    log.clear()
    assert list(seq.state_dict()) == ["0.weight", "0.bias"] and log == []
    lin.register_state_dict_post_hook(lambda *args: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        seq.state_dict()


def test_load_state_dict_hooks():
    log = []
    lin = nn.Linear(1, 1)
    seq = nn.Sequential(lin)

    def pre(m, sd, prefix, meta, strict, missing, unexpected, errors):
        log.append(("pre", type(m).__name__, prefix, sorted(sd), meta, strict))
        sd[prefix + "bias"] = symgrad.zeros(1)

    def post(m, keys):
        log.append(("post", type(m).__name__, list(keys.missing_keys), list(keys.unexpected_keys)))

    lin.register_load_state_dict_pre_hook(pre)
    lin.register_load_state_dict_post_hook(post)
    seq.register_load_state_dict_post_hook(post)
    src = {"0.weight": symgrad.ones(1, 1), "0.junk": symgrad.ones(1)}
    result = seq.load_state_dict(src, strict=False)
    assert result.missing_keys == [] and result.unexpected_keys == ["0.junk"]
    assert sorted(src) == ["0.junk", "0.weight"] and lin.bias.tolist() == [0.0]
    assert log == [
        ("pre", "Linear", "0.", ["0.junk", "0.weight"], {}, True),
        ("post", "Linear", [], ["0.junk"]),
        ("post", "Sequential", [], ["0.junk"]),
    ]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "0.junk"'):
        seq.load_state_dict(src)
    seq.register_load_state_dict_post_hook(lambda m, keys: keys.unexpected_keys.clear())
    assert repr(seq.load_state_dict(src)) == "<All keys matched successfully>"
    seq.register_load_state_dict_post_hook(lambda m, keys: 1)
    with pytest.raises(AssertionError, match="not expected to return new values"):
        seq.load_state_dict(src)


def test_state_dict_positional_arguments_warn():
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        sd = nn.Linear(1, 1).state_dict(None, "p.")
    assert list(sd) == ["p.weight", "p.bias"]


def test_set_submodule():
    a = nn.Sequential(nn.Sequential(nn.Linear(1, 1)), nn.ReLU())
    a.set_submodule("0.0", nn.Tanh())
    a.set_submodule("0.extra", nn.ReLU())
    assert [n for n, _ in a.named_modules()] == ["", "0", "0.0", "0.extra", "1"]
    assert isinstance(a[0][0], nn.Tanh)
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name!"):
        a.set_submodule("", nn.ReLU())
    with pytest.raises(ValueError, match="`module` is not an nn.Module, found <class 'int'>"):
        a.set_submodule("0.0", 5)
    with pytest.raises(AttributeError, match="Sequential has no attribute `nothere`"):
        a.set_submodule("0.nothere", nn.ReLU(), strict=True)
    with pytest.raises(AttributeError, match="Sequential has no attribute `x`"):
        a.set_submodule("x.y", nn.ReLU())
    a.lin = nn.Linear(1, 1)
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        a.set_submodule("lin.weight", nn.ReLU())


def test_share_memory_and_type():
    bn = nn.BatchNorm1d(2)
    assert bn.share_memory() is bn
    assert bn.type(symgrad.float64) is bn
    assert bn.weight.dtype == symgrad.float64 and bn.num_batches_tracked.dtype == symgrad.float64
    bn.type("torch.FloatTensor")
    assert {t.dtype for t in bn.state_dict().values()} == {symgrad.float32}


def test_to_channels_last_leaves_other_ranks():
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4, 2))
    weight = net[0].weight
    weight.grad = symgrad.ones(4, 3, 3, 3)
    assert net.to(memory_format=symgrad.channels_last) is net and net[0].weight is weight
    assert weight.stride() == (27, 1, 9, 3) and weight.grad.stride() == (27, 1, 9, 3)
    assert net[0].bias.stride() == (1,) and net[3].weight.stride() == (4, 1)
    net.to(symgrad.float64, memory_format=symgrad.channels_last)
    assert weight.dtype == symgrad.float64 and weight.stride() == (27, 1, 9, 3)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        nn.Conv3d(1, 2, 1).to(memory_format=symgrad.channels_last)
    conv3d = nn.Conv3d(1, 2, 1).to(memory_format=symgrad.channels_last_3d)
    assert conv3d.weight.stride() == (1, 1, 1, 1, 1)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        nn.Linear(1, 1).to(memory_format=5)


def test_against_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (symgrad, torch):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 2), lib.nn.BatchNorm2d(3), lib.nn.ReLU())
        net.to(memory_format=lib.channels_last)
        net.type(lib.float64)
        x = lib.ones(1, 2, 3, 3, dtype=lib.float64)
        results.append(([p.stride() for p in net.parameters()], net(x).shape))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert list(net.state_dict(None, "m.")) == [
                "m.0.weight", "m.0.bias", "m.1.weight", "m.1.bias", "m.1.running_mean",
                "m.1.running_var", "m.1.num_batches_tracked",
            ]  # fmt: skip
    assert results[0] == results[1]
    assert np.array_equal(results[0][0][0], (8, 1, 4, 2))


def _private_hooks(lib):
    """The older private hook forms: a state-dict hook may return a replacement (kept for the
    root module only), a load pre-hook registered without the module is called without it."""
    inner = lib.nn.Linear(1, 1)
    outer = lib.nn.Sequential(inner)
    inner._register_state_dict_hook(lambda m, sd, prefix, meta: {"ignored": 1})
    outer._register_state_dict_hook(lambda m, sd, prefix, meta: {"n": len(sd)})
    saved = outer.state_dict()
    seen = []
    h = inner._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: seen.append(prefix))
    inner._register_load_state_dict_pre_hook(
        lambda m, sd, prefix, *rest: seen.append(type(m).__name__), with_module=True
    )
    keys = outer.load_state_dict({"0.weight": lib.ones(1, 1), "0.bias": lib.zeros(1)})
    h.remove()
    inner.load_state_dict({"weight": lib.ones(1, 1), "bias": lib.zeros(1)})
    public = lib.nn.Linear(1, 1)

    def hook(m, sd, prefix, meta):
        return None

    public.register_state_dict_post_hook(hook)
    with pytest.raises(RuntimeError, match="previously registered via register_state_dict"):
        public._register_state_dict_hook(hook)
    return saved, seen, repr(keys)


def test_private_state_dict_hooks():
    assert _private_hooks(symgrad) == (
        {"n": 2},
        ["0.", "Linear", "Linear"],
        "<All keys matched successfully>",
    )


@pytest.mark.torch
def test_private_state_dict_hooks_against_torch():
    torch = pytest.importorskip("torch")
    assert _private_hooks(symgrad) == _private_hooks(torch)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((symgrad.float64,), {"copy": False}),
        ((symgrad.float64, False, True), {}),
        (("cpu", symgrad.float64, False, False), {}),
    ],
)
def test_module_to_refuses_copy(args, kwargs):
    layer = nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match="\\.to\\(\\) does not accept copy argument"):
        layer.to(*args, **kwargs)
    assert layer.weight.dtype == symgrad.float32
    assert layer.to(symgrad.float64, True).weight.dtype == symgrad.float64  # non_blocking


@pytest.mark.torch
def test_module_to_refuses_copy_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (symgrad, torch):
        with pytest.raises(RuntimeError, match="does not accept copy argument"):
            lib.nn.Linear(2, 1).to(lib.float64, False, True)


def _overridden_load_and_save(lib):
    """A subclass's ``_load_from_state_dict`` renames an older checkpoint's key, its
    ``_save_to_state_dict`` adds one; both run for each module, the load pre-hooks inside
    the base method, and a direct non-strict call notes no unexpected keys."""
    seen = []

    class Renamed(lib.nn.Linear):
        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, *lists):
            seen.append((prefix, dict(local_metadata), strict))
            if prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, *lists)

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = 2

    net = lib.nn.Sequential(Renamed(2, 1))
    net[0].register_load_state_dict_pre_hook(lambda m, sd, prefix, *rest: seen.append(prefix))
    keys = net.load_state_dict({"0.w": lib.ones(1, 2), "0.bias": lib.zeros(1)})
    lists = ([], [], [])
    lib.nn.Linear(2, 1)._load_from_state_dict({"x": 1, "bias": lib.zeros(1)}, "", {}, False,
                                              *lists)  # fmt: skip
    return seen, repr(keys), net[0].weight.tolist(), list(net.state_dict()), lists


def test_overridden_load_from_and_save_to_state_dict():
    assert _overridden_load_and_save(symgrad) == (
        [("0.", {}, True), "0."],
        "<All keys matched successfully>",
        [[1.0, 1.0]],
        ["0.weight", "0.bias", "0.scale"],
        ([], [], []),
    )


@pytest.mark.torch
def test_overridden_load_from_and_save_to_state_dict_as_torch():
    torch = pytest.importorskip("torch")
    assert _overridden_load_and_save(symgrad) == _overridden_load_and_save(torch)
