"""The utilities around models, where symgrad once differed from PyTorch: collating samples
held in containers of the program's own types (``defaultdict``, ``list`` subclasses, a
``collate_fn_map`` extended for a new type), a loader's options frozen once it is built,
``parameters_to_vector`` of parameters that can't be viewed flat, ``unpad_sequence``'s
nodes, ``pad_sequence``'s error for an unknown side, ``convert_conv2d_weight_memory_format``,
``symgrad.return_types``, ``symgrad.version`` and ``symgrad.__config__``, and the storage
of a tensor as programs read it to check memory sharing.

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import collections

import numpy as np
from _torch_table import table_tests

NAN = float("nan")


class _Row(list):
    """A sample held in a list subclass of the program's own."""


def _collate_containers(T):
    collate = T.utils.data.default_collate
    counts = collate([collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)])
    rows = collate([_Row([1, 2.0]), _Row([3, 4.0])])
    converted = T.utils.data.default_convert(_Row([np.array([1.0])]))
    queue = collate([collections.deque([1, 2]), collections.deque([3, 4])])
    return (
        type(counts).__name__,
        counts["a"],
        counts["missing"],
        type(rows).__name__,
        rows,
        type(converted).__name__,
        converted,
        type(queue).__name__,
        list(queue),
    )


def _collate_fn_map(T):
    """A program's own type collated through an extended copy of the default table."""
    from importlib import import_module

    module = import_module(f"{T.__name__}.utils.data._utils.collate")

    def keep(batch, *, collate_fn_map=None):
        return list(batch)

    table = {**module.default_collate_fn_map, complex: keep}
    batch = [{"z": 1j, "n": 1, "x": 0.5}, {"z": 2j, "n": 2, "x": 1.5}]
    out = module.collate(batch, collate_fn_map=table)
    return out["z"], out["n"], out["x"], module.collate_str_fn(["a"])


def _loader_frozen(T):
    loader = T.utils.data.DataLoader([1, 2, 3], batch_size=2)
    loader.num_workers = 0  # not frozen
    try:
        loader.batch_size = 3
    except ValueError as error:
        return str(error), loader.batch_size
    return None


def _return_types(T):
    x = T.tensor([[1.0, 3.0], [2.0, 0.0]])
    results = {
        "max": T.max(x, 1),
        "min": x.min(dim=0),
        "sort": T.sort(x),
        "topk": x.topk(1),
        "kthvalue": T.kthvalue(x, 1),
        "median": x.median(1),
        "mode": x.mode(),
        "cummax": x.cummax(0),
        "aminmax": T.aminmax(x),
        "frexp": T.frexp(x),
        "linalg_qr": T.linalg.qr(x),
        "linalg_slogdet": T.linalg.slogdet(x),
        "linalg_eigh": T.linalg.eigh(x @ x.T),
    }
    names = [
        (name, isinstance(result, getattr(T.return_types, name)), type(result).__name__)
        for name, result in results.items()
    ]
    built = T.return_types.max((x[0], T.tensor([0, 1])))
    return names, results["max"].values, isinstance(results["max"], tuple), built.indices


def _pickled_result(T):
    import pickle

    result = pickle.loads(pickle.dumps(T.linalg.qr(T.eye(2))))
    return type(result).__name__, type(result).__module__.split(".", 1)[1], result.R


def _version(T):
    v = T.__version__
    return (
        T.version.cuda,
        T.version.hip,
        T.version.debug,
        isinstance(T.version.git_version, str),
        v == T.version.__version__,
        v >= "0.1",
        v > (0, 0, 9),
        v < (1000,),
        isinstance(v, str),
        type(v).__name__,
        isinstance(T.__config__.show(), str),
        isinstance(T.__config__.parallel_info(), str),
    )


def _unpadded(T):
    """Sequences padded and split back: each picked through a mask of its steps."""
    rnn = T.nn.utils.rnn
    seqs = [
        T.tensor([[1.0], [2.0], [3.0]], requires_grad=True),
        T.tensor([[4.0]], requires_grad=True),
    ]
    parts = rnn.unpad_sequence(rnn.pad_sequence(seqs), T.tensor([3, 1]))
    (parts[0].sum() * 2 + parts[1].sum()).backward()
    return parts[0], parts[1], seqs[0].grad, seqs[1].grad


def _flat_parameters(T):
    rnn_weight = T.nn.Parameter(T.arange(6.0).reshape(2, 3))
    vector = T.nn.utils.parameters_to_vector([rnn_weight, T.nn.Parameter(T.ones(2))])
    return vector, T.nn.utils.parameters_to_vector([rnn_weight.t()])


def _channels_last_weights(T):
    net = T.nn.Sequential(T.nn.Conv2d(2, 3, 3), T.nn.ReLU(), T.nn.ConvTranspose2d(3, 2, 2))
    with T.no_grad():
        for p in net.parameters():
            p.copy_(T.linspace(-1.0, 1.0, p.numel()).reshape(p.shape))
    x = T.linspace(-2.0, 2.0, 50).reshape(1, 2, 5, 5)
    before = net(x)
    net(x).sum().backward()
    weight = net[0].weight
    same = T.nn.utils.convert_conv2d_weight_memory_format(net, T.channels_last)
    return (
        same is net,
        net[0].weight is weight,
        weight.grad is not None,
        weight.is_contiguous(memory_format=T.channels_last),
        weight.is_contiguous(),
        weight.stride(),
        net[2].weight.is_contiguous(memory_format=T.channels_last),
        bool(T.allclose(net(x), before)),
    )


def _shares(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _storages(T):
    """The checks programs make of shared memory, and how much memory a view keeps."""
    x = T.arange(12.0).reshape(3, 4)
    row = x[1]
    return (
        _shares(x, row),
        _shares(x, x.t()),
        _shares(x, x.detach()),
        _shares(x, x.view(-1)[2:]),
        _shares(x, x.clone()),
        _shares(x, x.contiguous()),
        _shares(x, x.t().contiguous()),
        row.untyped_storage().nbytes(),
        row.untyped_storage().size(),
        len(row.untyped_storage()),
        row.untyped_storage().element_size(),
        row.storage_offset(),
        T.tensor([1.0]).untyped_storage().tolist(),
        T.ones(4).expand(3, 4).untyped_storage().nbytes(),
        T.tensor(True).untyped_storage().nbytes(),
        T.is_storage(x.untyped_storage()),
        T.is_storage(x),
        isinstance(x.untyped_storage(), T.UntypedStorage),
        x.untyped_storage() == row.untyped_storage(),
    )


def _typed_storage(T):
    x = T.arange(6, dtype=T.int32)[2:]
    storage = x.storage()
    return (
        isinstance(storage, T.TypedStorage),
        storage.size(),
        len(storage),
        storage.dtype == T.int32,
        storage.element_size(),
        storage.nbytes(),
        storage.tolist(),
        storage[3],
        storage.type(),
        storage.data_ptr() == x.untyped_storage().data_ptr(),
        storage.untyped().nbytes(),
    )


def _storage_warns(T):
    """``storage()`` warns that it is deprecated, once per process, as PyTorch."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.ones(2).storage()
        T.ones(2).storage()
    return len(caught) <= 1, all("TypedStorage is deprecated" in str(w.message) for w in caught)


def _saved_views_share(T):
    import io

    x = T.arange(12.0).reshape(3, 4)
    buffer = io.BytesIO()
    T.save({"a": x, "b": x[1:, ::2]}, buffer)
    buffer.seek(0)
    loaded = T.load(buffer)
    a, b = loaded["a"], loaded["b"]
    return _shares(a, b), b.storage_offset(), b.stride(), b.untyped_storage().nbytes()


def _assert_close(T, actual, expected, **options):
    """assert_close's verdict: 'ok', or the exception's type and message lines."""
    try:
        T.testing.assert_close(actual(T), expected(T), **options)
    except AssertionError as error:
        return type(error).__name__, str(error).split("\n")
    return "ok"


def _close(actual, expected, **options):
    return lambda T: _assert_close(T, actual, expected, **options)


def _mismatch(kind, bad, absolute, relative, tolerances=None):
    """assert_close's message for tensor-likes, PyTorch's lines."""
    at, rt = ("", "") if tolerances is None else (f" (up to {t} allowed)" for t in tolerances)
    return (
        "AssertionError",
        (
            f"Tensor-likes are not {kind}!",
            "",
            bad,
            f"Greatest absolute difference: {absolute} at index (1,){at}",
            f"Greatest relative difference: {relative} at index (1,){rt}",
        ),
    )


def _made(T):
    """make_tensor's shapes, dtypes, ranges and layouts (the values are random)."""
    make = T.testing.make_tensor
    floats = make((4000,), dtype=T.float16, device="cpu")
    ints = make(4000, dtype=T.int8, device="cpu", low=-2, high=2)
    return (
        make(2, 3, dtype=T.float32, device="cpu").shape,
        make([2, 3], dtype=T.float64, device="cpu", requires_grad=True).requires_grad,
        bool(((floats >= -9) & (floats < 9)).all()),
        sorted(set(ints.tolist())),
        sorted(set(make(400, dtype=T.bool, device="cpu").tolist())),
        make(3, 4, dtype=T.float32, device="cpu", noncontiguous=True).stride(),
        make(2, 3, 4, 5, dtype=T.float32, device="cpu", memory_format=T.channels_last).stride(),
        int((make(4000, dtype=T.int64, device="cpu", low=0, high=2, exclude_zero=True) == 0).sum()),
        int(make(4000, dtype=T.uint8, device="cpu", low=-5, high=300).max()) > 250,
    )


def _make_tensor_refuses(T, **options):
    try:
        T.testing.make_tensor(2, device="cpu", **options)
    except ValueError as error:
        return str(error).replace("torch.", "").replace("symgrad.", "")
    return None


def _allclose(T, actual, expected):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            T.testing.assert_allclose(actual(T), expected(T))
        except AssertionError as error:
            outcome = str(error).split("\n")[-2:]
        else:
            outcome = "ok"
    return outcome, [type(w.message).__name__ for w in caught]


def _one_cycle_state(T):
    """OneCycleLR's phases in its state dict as PyTorch writes them (dicts), and a state
    dict written that way loaded into a fresh scheduler, which then steps on."""
    opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1, momentum=0.9)
    sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=6)
    for _ in range(2):
        opt.step()
        sched.step()
    state = sched.state_dict()
    phases = [sorted(phase.items()) for phase in state["_schedule_phases"]]
    opt2 = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1, momentum=0.9)
    opt2.load_state_dict(opt.state_dict())
    resumed = T.optim.lr_scheduler.OneCycleLR(opt2, max_lr=1.0, total_steps=6)
    resumed.load_state_dict(state)
    opt2.step()
    resumed.step()
    return phases, [round(lr, 6) for lr in resumed.get_last_lr()]


def _warm_restarts_state(T):
    opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1)
    sched = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2)
    for _ in range(3):
        opt.step()
        sched.step()
    state = sched.state_dict()
    return state["_step_count"], state["T_cur"], state["last_epoch"], round(state["_last_lr"][0], 6)


def _typed_data(T):
    """A dataset, a stream and a sampler declared with their sample types, as typed
    programs declare them."""
    data = T.utils.data

    class Pairs(data.Dataset[tuple[int, int]]):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i, 2 * i

    class Stream(data.IterableDataset[int]):
        def __iter__(self):
            return iter([1, 2, 3])

    class Backwards(data.Sampler[int]):
        def __iter__(self):
            return iter([2, 1, 0])

        def __len__(self):
            return 3

    loader: data.DataLoader[tuple[int, int]] = data.DataLoader(
        Pairs(), batch_size=2, sampler=Backwards()
    )
    return (
        list(loader),
        list(data.DataLoader(Stream(), batch_size=2)),
        data.Subset[int] is not None,
        data.ConcatDataset[int] is not None,
    )


def _packed_conversions(T):
    packed = T.nn.utils.rnn.pack_sequence([T.tensor([1.5, 2.5]), T.tensor([3.5])])
    return tuple(
        (getattr(packed, name)().data, getattr(packed, name)().batch_sizes)
        for name in ("half", "long", "int", "short", "char", "byte")
    )


_Point = collections.namedtuple("_Point", "x y")


def _safe_globals_block(T):
    """A class of the program's own, refused by the safe loader but inside the block."""
    import io
    import pickle

    buffer = io.BytesIO()
    T.save({"p": _Point(1, 2)}, buffer)
    outcomes = []
    for allowed in (False, True, False):
        buffer.seek(0)
        try:
            if allowed:
                with T.serialization.safe_globals([_Point]):
                    outcomes.append(tuple(T.load(buffer)["p"]))
            else:
                T.load(buffer)
                outcomes.append("loaded")
        except pickle.UnpicklingError:
            outcomes.append("refused")
    return outcomes


CASES = {
    "collate_containers": (
        _collate_containers,
        (
            "defaultdict",
            ([1, 2], "int64", None),
            0,
            "_Row",
            (([1, 3], "int64", None), ([2.0, 4.0], "float64", None)),
            "_Row",
            (([1.0], "float64", None),),
            "deque",
            (([1, 3], "int64", None), ([2, 4], "int64", None)),
        ),
    ),
    "collate_fn_map": (
        _collate_fn_map,
        (
            (1j, 2j),
            ([1, 2], "int64", None),
            ([0.5, 1.5], "float64", None),
            ("a",),
        ),
    ),
    "collate_none": (
        lambda T: T.utils.data.default_collate([None, None]),
        ("raises", "TypeError"),
    ),
    "loader_frozen": (
        _loader_frozen,
        ("batch_size attribute should not be set after DataLoader is initialized", 2),
    ),
    "return_types": (
        _return_types,
        (
            tuple(
                (name, True, name)
                for name in (
                    "max",
                    "min",
                    "sort",
                    "topk",
                    "kthvalue",
                    "median",
                    "mode",
                    "cummax",
                    "aminmax",
                    "frexp",
                    "linalg_qr",
                    "linalg_slogdet",
                    "linalg_eigh",
                )
            ),
            ([3.0, 2.0], "float32", None),
            True,
            ([0, 1], "int64", None),
        ),
    ),
    "return_type_pickled": (
        _pickled_result,
        ("linalg_qr", "return_types", ([[1.0, 0.0], [0.0, 1.0]], "float32", None)),
    ),
    "version": (
        _version,
        (None, None, False, True, True, True, True, True, True, "TorchVersion", True, True),
    ),
    "unpad_sequence": (
        _unpadded,
        (
            ([[1.0], [2.0], [3.0]], "float32", "IndexBackward0"),
            ([[4.0]], "float32", "IndexBackward0"),
            ([[2.0], [2.0], [2.0]], "float32", None),
            ([[1.0]], "float32", None),
        ),
    ),
    "pad_sequence_side": (
        lambda T: T.nn.utils.rnn.pad_sequence([T.ones(2)], padding_side="middle"),
        ("raises", "RuntimeError"),
    ),
    "pad_sequence_0d": (
        lambda T: T.nn.utils.rnn.pad_sequence([T.tensor(1.0), T.tensor(2.0)]),
        ("raises", "RuntimeError"),
    ),
    "parameters_to_vector_views": (_flat_parameters, ("raises", "RuntimeError")),
    "parameters_to_vector": (
        lambda T: T.nn.utils.parameters_to_vector(
            [T.nn.Parameter(T.arange(6.0).reshape(2, 3)), T.nn.Parameter(T.ones(2))]
        ),
        ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 1.0], "float32", "CatBackward0"),
    ),
    "convert_conv2d_weight_memory_format": (
        _channels_last_weights,
        (True, True, True, True, False, (18, 1, 6, 2), True, True),
    ),
    "storages": (
        _storages,
        (True, True, True, True, False, True, False, 48, 48, 48, 1, 4)
        + ((0, 0, 128, 63), 16, 1, True, False, True, True),
    ),
    "typed_storage": (
        _typed_storage,
        (True, 6, 6, True, 4, 24, (0, 1, 2, 3, 4, 5), 3, "torch.IntStorage", True, 24),
    ),
    "storage_warns": (_storage_warns, (True, True)),
    "saved_views_share": (_saved_views_share, (True, 4, (4, 2), 48)),
    "assert_close_none": (_close(lambda T: None, lambda T: None), "ok"),
    "assert_close_none_mismatch": (
        _close(lambda T: None, lambda T: 1),
        ("AssertionError", ("None mismatch: None is not 1",)),
    ),
    "assert_close_int_float": (
        _close(lambda T: 1, lambda T: 1.0),
        ("AssertionError", ("The (d)types do not match: <class 'int'> != <class 'float'>.",)),
    ),
    "assert_close_numpy": (
        _close(lambda T: np.array([1, 2]), lambda T: np.array([1, 3])),
        _mismatch("equal", "Mismatched elements: 1 / 2 (50.0%)", 1, 0.3333333432674408),
    ),
    "assert_close_numpy_ok": (
        _close(lambda T: np.array([1.0, 2.0]), lambda T: np.array([1.0, 2.0 + 1e-9])),
        "ok",
    ),
    "assert_close_stride": (
        _close(lambda T: T.ones(2, 2).t(), lambda T: T.ones(2, 2), check_stride=True),
        (
            "AssertionError",
            ("The values for attribute 'stride()' do not match: (1, 2) != (2, 1).",),
        ),
    ),
    "assert_close_subclass": (
        _close(lambda T: T.nn.Parameter(T.ones(1)), lambda T: T.ones(1), allow_subclasses=False),
        ("raises", "TypeError"),
    ),
    "assert_close_large_ints": (
        _close(lambda T: T.tensor([0, 2**40]), lambda T: T.tensor([0, 2**40 + 3])),
        _mismatch("equal", "Mismatched elements: 1 / 2 (50.0%)", 3, 2.7284841053187847e-12),
    ),
    "assert_close_int_tolerance": (
        _close(lambda T: T.tensor([1, 2]), lambda T: T.tensor([1, 3]), rtol=0.1, atol=0.1),
        _mismatch("close", "Mismatched elements: 1 / 2 (50.0%)", 1, 0.3333333432674408, (0.1, 0.1)),
    ),
    "assert_close_0d_float32": (
        _close(lambda T: T.tensor(1.1), lambda T: T.tensor(1.3)),
        (
            "AssertionError",
            (
                "Scalars are not close!",
                "",
                "Expected 1.2999999523162842 but got 1.100000023841858.",
                "Absolute difference: 0.19999992847442627 (up to 1e-05 allowed)",
                "Relative difference: 0.15384610446952324 (up to 1.3e-06 allowed)",
            ),
        ),
    ),
    "assert_close_0d_int": (
        _close(lambda T: T.tensor(5), lambda T: T.tensor(2)),
        (
            "AssertionError",
            (
                "Scalars are not equal!",
                "",
                "Expected 2 but got 5.",
                "Absolute difference: 3",
                "Relative difference: 1.5",
            ),
        ),
    ),
    "assert_close_keys": (
        _close(lambda T: {"a": 1}, lambda T: {"b": 1}),
        (
            "AssertionError",
            (
                "The keys of the mappings do not match:",
                "Missing keys in the actual mapping: ['b']",
                "Additional keys in the actual mapping: ['a']",
            ),
        ),
    ),
    "load_empty_file": (
        lambda T: T.load(__import__("io").BytesIO(b"")),
        ("raises", "EOFError"),
    ),
    "make_tensor": (
        _made,
        ((2, 3), True, True, (-2, -1, 0, 1), (False, True), (8, 2), (60, 1, 15, 3), 0, True),
    ),
    "make_tensor_empty_range": (
        lambda T: _make_tensor_refuses(T, dtype=T.int64, low=3, high=3),
        "`low` must be less than `high`, but got 3 >= 3",
    ),
    "make_tensor_int_grad": (
        lambda T: _make_tensor_refuses(T, dtype=T.int64, requires_grad=True),
        "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
        "dtype=int64",
    ),
    "assert_allclose_nan_list": (
        lambda T: _allclose(T, lambda T: T.tensor([1.0, float("nan")]), lambda T: [1.00001, NAN]),
        ("ok", ("FutureWarning",)),
    ),
    "assert_allclose_dtypes": (
        lambda T: _allclose(
            T, lambda T: T.tensor([1.0]), lambda T: T.tensor([1.1], dtype=T.float64)
        ),
        (
            (
                "Greatest absolute difference: 0.10000000000000009 at index (0,) "
                "(up to 1e-05 allowed)",
                "Greatest relative difference: 0.09090909090909098 at index (0,) "
                "(up to 0.0001 allowed)",
            ),
            ("FutureWarning",),
        ),
    ),
    "one_cycle_state": (
        _one_cycle_state,
        (
            (
                (
                    ("end_lr", "max_lr"),
                    ("end_momentum", "base_momentum"),
                    ("end_step", 0.7999999999999998),
                    ("start_lr", "initial_lr"),
                    ("start_momentum", "max_momentum"),
                ),
                (
                    ("end_lr", "min_lr"),
                    ("end_momentum", "max_momentum"),
                    ("end_step", 5),
                    ("start_lr", "max_lr"),
                    ("start_momentum", "base_momentum"),
                ),
            ),
            (0.462637,),
        ),
    ),
    "warm_restarts_state": (_warm_restarts_state, (0, 1, 3, 0.05)),
    "typed_datasets": (
        _typed_data,
        (
            (
                (([2, 1], "int64", None), ([4, 2], "int64", None)),
                (([0], "int64", None), ([0], "int64", None)),
            ),
            (([1, 2], "int64", None), ([3], "int64", None)),
            True,
            True,
        ),
    ),
    "optimizer_without_step": (
        lambda T: T.optim.Optimizer([T.nn.Parameter(T.ones(1))], {"lr": 0.1}).step(),
        ("raises", "NotImplementedError"),
    ),
    "packed_conversions": (
        _packed_conversions,
        (
            (([1.5, 3.5, 2.5], "float16", None), ([2, 1], "int64", None)),
            (([1, 3, 2], "int64", None), ([2, 1], "int64", None)),
            (([1, 3, 2], "int32", None), ([2, 1], "int64", None)),
            (([1, 3, 2], "int16", None), ([2, 1], "int64", None)),
            (([1, 3, 2], "int8", None), ([2, 1], "int64", None)),
            (([1, 3, 2], "uint8", None), ([2, 1], "int64", None)),
        ),
    ),
    "packed_cuda": (
        lambda T: T.nn.utils.rnn.pack_sequence([T.tensor([1.0])]).cuda(),
        ("raises", "AssertionError"),
    ),
    "safe_globals_block": (_safe_globals_block, ("refused", (1, 2), "refused")),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
