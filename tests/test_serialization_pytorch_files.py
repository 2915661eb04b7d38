"""symgrad.load on the zip checkpoints written by PyTorch's torch.save.

The files under tests/data/pytorch_checkpoints/ were written once by ``_write_checkpoints``
with PyTorch 2.13 (``python tests/test_serialization_pytorch_files.py``), so the reader is
tested without PyTorch; when PyTorch is installed the same files are written again at test
time and must load the same. The error cases are crafted from those files.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import symgrad
from symgrad import nn, serialization

DATA = Path(__file__).parent / "data" / "pytorch_checkpoints"


def _write_checkpoints(torch, folder: Path) -> None:
    """The reference files (tiny: a few hundred bytes of tensors each)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 2),
        torch.nn.Conv2d(1, 2, 2),
        torch.nn.BatchNorm1d(2),
        torch.nn.Embedding(3, 2),
    )
    model[2](torch.ones(4, 2))  # num_batches_tracked becomes 1
    torch.save(model.state_dict(), folder / "modules.pt")
    optimizer = torch.optim.Adam(model[0].parameters(), lr=0.5)
    model[0](torch.ones(3)).sum().backward()
    optimizer.step()
    torch.save(optimizer.state_dict(), folder / "adam.pt")
    torch.save(_symgrad_objects(torch), folder / "tensors.pt")
    torch.save({"x": torch.ones(2, dtype=torch.bfloat16)}, folder / "bfloat16.pt")


def _plain(t):
    return (t.tolist(), str(t.dtype).rsplit(".", 1)[-1], tuple(t.shape), tuple(t.stride()))


TENSORS = {
    "grid": ([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], "float32"),
    "corner": ([[4.0, 6.0], [8.0, 10.0]], "float32"),
    "half": ([0.5, -2.0], "float16"),
    "double": (2.5, "float64"),
    "flags": ([True, False], "bool"),
    "bytes": ([1, 255], "uint8"),
    "ints": ([-7, 9], "int32"),
    "u16": ([3, 65535], "uint16"),
    "empty": ([], "float32"),
}
STRIDES = {"grid": (4, 1), "transposed": (1, 4), "corner": (4, 2), "double": (), "empty": (2, 1)}


def _check_tensors(loaded) -> None:
    for key, (value, dtype) in TENSORS.items():
        t = loaded[key]
        assert (t.tolist(), str(t.dtype).rsplit(".", 1)[-1]) == (value, dtype), key
    assert loaded["transposed"].tolist() == np.arange(12.0).reshape(3, 4).T.tolist()
    assert {k: tuple(loaded[k].stride()) for k in STRIDES} == STRIDES
    assert tuple(loaded["empty"].shape) == (0, 2)
    grads = [k for k, v in loaded.items() if getattr(v, "requires_grad", False)]
    assert grads == ["half", "parameter"]
    assert type(loaded["parameter"]).__name__ == "Parameter"
    assert type(loaded["frozen"]).__name__ == "Parameter"
    assert loaded["half"].grad_fn is None and loaded["half"].is_leaf
    size, dev, dtype, raw, numbers = loaded["extras"]
    assert (size, type(size), str(dev), dtype, raw, numbers) == (
        (2, 3),
        symgrad.Size,
        "cpu",
        symgrad.int16,
        b"raw",
        {1, 2},
    )


def _check_shared(loaded) -> None:
    """The grid's views share its memory, as after torch.load."""
    loaded["grid"].add_(100.0)
    assert loaded["transposed"][0].tolist() == [100.0, 104.0, 108.0]
    assert loaded["corner"].tolist() == [[104.0, 106.0], [108.0, 110.0]]


def test_tensors_file():
    loaded = symgrad.load(DATA / "tensors.pt")
    _check_tensors(loaded)
    _check_shared(loaded)


def test_module_state_dicts_load_into_symgrad_modules():
    state = symgrad.load(DATA / "modules.pt")
    assert type(state).__name__ == "OrderedDict"
    model = nn.Sequential(
        nn.Linear(3, 2), nn.Conv2d(1, 2, 2), nn.BatchNorm1d(2), nn.Embedding(3, 2)
    )
    assert str(model.load_state_dict(state)) == "<All keys matched successfully>"
    tracked = state["2.num_batches_tracked"]
    assert (tracked.item(), tracked.dtype, tracked.dim()) == (1, symgrad.int64, 0)
    shapes = {k: tuple(v.shape) for k, v in state.items()}
    assert shapes["1.weight"] == (2, 1, 2, 2) and shapes["3.weight"] == (3, 2)
    assert np.array_equal(model[0].weight.detach().numpy(), state["0.weight"].numpy())
    assert not any(v.requires_grad for v in state.values())


def test_optimizer_state_dict():
    state = symgrad.load(DATA / "adam.pt")
    assert state["param_groups"][0]["lr"] == 0.5
    assert state["param_groups"][0]["params"] == [0, 1]
    assert state["param_groups"][0]["betas"] == (0.9, 0.999)
    step = state["state"][0]["step"]
    assert (step.item(), step.dtype, step.dim()) == (1.0, symgrad.float32, 0)
    # the first Adam step moves each weight by lr against the gradient's sign (all ones)
    assert np.allclose(state["state"][0]["exp_avg"].numpy(), 0.1)
    assert tuple(state["state"][1]["exp_avg_sq"].shape) == (2,)
    model = nn.Linear(3, 2)
    optimizer = symgrad.optim.Adam(model.parameters(), lr=0.1)
    optimizer.load_state_dict(state)
    assert optimizer.param_groups[0]["lr"] == 0.5


def test_file_objects_streams_and_map_locations():
    raw = (DATA / "tensors.pt").read_bytes()
    buffer = io.BytesIO(b"junk" + raw)
    buffer.seek(4)  # the archive starts at the file's position
    _check_tensors(symgrad.load(buffer))

    class Stream(io.RawIOBase):  # can't seek: read whole
        def __init__(self):
            self.inner = io.BytesIO(raw)

        def readable(self):
            return True

        def readinto(self, b):
            return self.inner.readinto(b)

    _check_tensors(symgrad.load(Stream()))
    for where in ("cpu", symgrad.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        _check_tensors(symgrad.load(DATA / "tensors.pt", map_location=where))
    _check_tensors(symgrad.load(DATA / "tensors.pt", mmap=True, weights_only=False))


def test_big_endian_file():
    grid = np.arange(12.0, dtype=np.float32)
    loaded = symgrad.load(_rewrite(DATA / "tensors.pt", big_endian=True))
    assert loaded["grid"].flatten().tolist() == grid.tolist()
    assert loaded["u16"].tolist() == [3, 65535] and loaded["half"].tolist() == [0.5, -2.0]
    _check_shared(loaded)


# -- errors --------------------------------------------------------------------------------
def _rewrite(path, big_endian=False, drop=(), pickle_bytes=None, replace=None):
    """A copy of a checkpoint with records changed, as bytes in a file object."""
    source = zipfile.ZipFile(path)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            name = info.filename.split("/", 1)[1]
            if name in drop:
                continue
            if name == "data.pkl" and pickle_bytes is not None:
                data = pickle_bytes
            if name == "data.pkl" and replace is not None:
                data = data.replace(*replace)
            if big_endian and name == "byteorder":
                data = b"big"
            if big_endian and name.startswith("data/"):
                data = _swapped(source, info.filename, data)
            target.writestr(info.filename, data)
    out.seek(0)
    return out


def _swapped(source, record, data):
    """A storage's bytes in big-endian order: its element size read from the pickle."""
    pickled = source.read(record.split("/")[0] + "/data.pkl")
    key = record.rsplit("/", 1)[1].encode()
    at = pickled.index(b"X" + len(key).to_bytes(4, "little") + key)
    sizes = {b"Half": 2, b"Float": 4, b"Long": 8, b"Int": 4, b"Double": 8, b"Untyped": 2}
    kind = pickled[:at].rsplit(b"Storage", 1)[0].rsplit(b"torch", 1)[1]
    size = next((n for name, n in sizes.items() if kind.endswith(name)), 1)
    return np.frombuffer(data, f"u{size}").byteswap().tobytes()


def _pickle_calling(module: bytes, name: bytes) -> bytes:
    """A protocol 2 pickle of ``module.name('x')``."""
    return b"\x80\x02c" + module + b"\n" + name + b"\nX\x01\x00\x00\x00x\x85R."


@pytest.mark.parametrize("weights_only", [None, True])
def test_a_global_not_allowed_is_never_called(weights_only):
    crafted = _rewrite(DATA / "tensors.pt", pickle_bytes=_pickle_calling(b"os", b"system"))
    with pytest.raises(pickle.UnpicklingError, match="the global os.system is not allowed"):
        symgrad.load(crafted, weights_only=weights_only)


def test_torch_classes_without_a_stand_in_are_refused_even_when_trusted():
    pickled = _pickle_calling(b"torch.nn.modules.linear", b"Linear")
    for weights_only in (True, False):
        crafted = _rewrite(DATA / "tensors.pt", pickle_bytes=pickled)
        with pytest.raises(pickle.UnpicklingError, match=r"torch\.nn\.modules\.linear\.Linear"):
            symgrad.load(crafted, weights_only=weights_only)


def test_trusted_files_import_other_classes():
    pickled = b"\x80\x02cfractions\nFraction\nX\x03\x00\x00\x001/3\x85R."
    crafted = _rewrite(DATA / "tensors.pt", pickle_bytes=pickled)
    with pytest.raises(pickle.UnpicklingError, match="fractions.Fraction"):
        symgrad.load(crafted)
    crafted.seek(0)
    assert str(symgrad.load(crafted, weights_only=False)) == "1/3"
    missing = _pickle_calling(b"no_such_module_here", b"Thing")
    with pytest.raises(pickle.UnpicklingError, match="no_such_module_here.Thing"):
        symgrad.load(_rewrite(DATA / "tensors.pt", pickle_bytes=missing), weights_only=False)


def test_add_safe_globals_allows_a_class():
    import fractions

    pickled = b"\x80\x02cfractions\nFraction\nX\x03\x00\x00\x001/3\x85R."
    serialization.add_safe_globals([fractions.Fraction])
    try:
        loaded = symgrad.load(_rewrite(DATA / "tensors.pt", pickle_bytes=pickled))
        assert loaded == fractions.Fraction(1, 3)
    finally:
        serialization.clear_safe_globals()


def test_truncated_and_incomplete_archives():
    raw = (DATA / "tensors.pt").read_bytes()
    with pytest.raises(RuntimeError, match="failed reading zip archive"):
        symgrad.load(io.BytesIO(raw[: len(raw) // 2]))
    with pytest.raises(RuntimeError, match="failed locating file data/0"):
        symgrad.load(_rewrite(DATA / "tensors.pt", drop=("data/0",)))
    with pytest.raises(RuntimeError, match="failed locating file data.pkl"):
        symgrad.load(_rewrite(DATA / "tensors.pt", drop=("data.pkl",)))


def test_unsupported_dtype_names_it():
    with pytest.raises(pickle.UnpicklingError, match=r"bfloat16/data/0.*torch\.bfloat16"):
        symgrad.load(DATA / "bfloat16.pt")


def test_storages_on_other_devices_need_a_map_location():
    cuda = (b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    with pytest.raises(RuntimeError, match="CUDA device"):
        symgrad.load(_rewrite(DATA / "tensors.pt", replace=cuda))
    for where in ("cpu", {"cuda:0": "cpu"}, lambda storage, loc: storage.cpu()):
        loaded = symgrad.load(_rewrite(DATA / "tensors.pt", replace=cuda), where)
        assert loaded["corner"].tolist() == [[4.0, 6.0], [8.0, 10.0]]
        assert str(loaded["extras"][1]) == "cuda:0"  # a device value is kept as saved
    with pytest.raises(RuntimeError, match="CUDA device"):
        symgrad.load(DATA / "tensors.pt", map_location="cuda")


def test_a_malformed_storage_id_is_refused():
    # storage 0's key made to name a record outside the storages' folder
    outside = (b"X\x01\x00\x00\x000", b"X\x03\x00\x00\x00../")
    crafted = _rewrite(DATA / "tensors.pt", replace=outside)
    with pytest.raises(pickle.UnpicklingError, match="malformed storage id"):
        symgrad.load(crafted)


def test_a_view_outside_its_storage_is_refused():
    # the corner view of the grid, moved to start past the storage's end
    pickled = zipfile.ZipFile(DATA / "tensors.pt").read("tensors/data.pkl")
    assert pickled.count(b"K\x04") >= 1
    crafted = _rewrite(DATA / "tensors.pt", replace=(b"Q\x4b\x04", b"Q\x4b\x40"))
    with pytest.raises(pickle.UnpicklingError, match="doesn't fit"):
        symgrad.load(crafted)


# -- symgrad.save writes PyTorch's format ---------------------------------------------------
def _symgrad_objects(T):
    """The tensors file's kinds of content, made with ``T`` (symgrad or torch)."""
    grid = T.arange(12.0).reshape(3, 4)
    return {
        "grid": grid,
        "transposed": grid.t(),
        "corner": grid[1:, ::2],
        "half": T.tensor([0.5, -2.0], dtype=T.float16, requires_grad=True),
        "double": T.tensor(2.5, dtype=T.float64),
        "flags": T.tensor([True, False]),
        "bytes": T.tensor([1, 255], dtype=T.uint8),
        "ints": T.tensor([-7, 9], dtype=T.int32),
        "u16": T.tensor([3, 65535], dtype=T.uint16),
        "empty": T.zeros(0, 2),
        "parameter": T.nn.Parameter(T.tensor([1.0, 2.0])),
        "frozen": T.nn.Parameter(T.tensor([3.0]), requires_grad=False),
        "extras": [T.Size([2, 3]), T.device("cpu"), T.int16, b"raw", {1, 2}],
    }


def _globals(f):
    import pickletools

    archive = zipfile.ZipFile(f)
    pickled = archive.read("archive/data.pkl")
    return {arg for op, arg, _ in pickletools.genops(pickled) if op.name == "GLOBAL"}


def test_save_writes_pytorch_zip_files_that_load_back():
    buffer = io.BytesIO()
    symgrad.save(_symgrad_objects(symgrad), buffer)
    buffer.seek(0)
    assert buffer.read(4) == b"PK\x03\x04"
    assert _globals(buffer) == {
        "torch._utils _rebuild_tensor_v2",
        "torch._utils _rebuild_tensor_v3",
        "torch._utils _rebuild_parameter",
        "torch.storage UntypedStorage",
        "collections OrderedDict",
        "torch FloatStorage",
        "torch HalfStorage",
        "torch DoubleStorage",
        "torch BoolStorage",
        "torch ByteStorage",
        "torch IntStorage",
        "torch Size",
        "torch device",
        "torch int16",
        "torch uint16",
        "_codecs encode",
        "__builtin__ set",
    }
    names = zipfile.ZipFile(buffer).namelist()
    assert {"archive/data.pkl", "archive/byteorder", "archive/data/0"} <= set(names)
    buffer.seek(0)
    loaded = symgrad.load(buffer)
    _check_tensors(loaded)
    _check_shared(loaded)


def test_save_never_rewrites_user_strings():
    text = "csymgrad._torch_checkpoint_save\n_size\n and csymgrad.dtypes\nfloat32\n"
    buffer = io.BytesIO()
    symgrad.save({text: [text, symgrad.float32]}, buffer)
    buffer.seek(0)
    assert symgrad.load(buffer) == {text: [text, symgrad.float32]}


def test_symgrad_format_is_kept_where_pytorch_has_none():
    for obj, legacy in ((symgrad.ones(2, device="meta"), False), (symgrad.ones(2), True)):
        buffer = io.BytesIO()
        symgrad.save(obj, buffer, _use_new_zipfile_serialization=not legacy)
        assert buffer.getvalue().startswith(serialization._MAGIC)
        buffer.seek(0)
        assert tuple(symgrad.load(buffer).shape) == (2,)


# -- against PyTorch -----------------------------------------------------------------------
def test_round_trips_through_torch(tmp_path):
    torch = pytest.importorskip("torch")
    symgrad.save(_symgrad_objects(symgrad), tmp_path / "mine.pt")
    theirs = torch.load(tmp_path / "mine.pt")  # weights_only=True: PyTorch's safe loader
    _compare(symgrad.load(tmp_path / "mine.pt"), theirs)
    _compare(_symgrad_objects(symgrad), _symgrad_objects(torch))
    _compare(symgrad.load(tmp_path / "mine.pt"), _symgrad_objects(torch))
    theirs["grid"].add_(100.0)  # sharing survives symgrad -> torch
    assert theirs["corner"].tolist() == [[104.0, 106.0], [108.0, 110.0]]
    torch.save(theirs, tmp_path / "back.pt")
    back = symgrad.load(tmp_path / "back.pt")
    _compare(back, theirs)
    back["grid"].add_(1.0)  # and torch -> symgrad
    assert back["corner"].tolist() == [[105.0, 107.0], [109.0, 111.0]]


def test_state_dicts_move_between_symgrad_and_torch(tmp_path):
    torch = pytest.importorskip("torch")
    mine = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    mine[1](symgrad.ones(4, 2) * symgrad.arange(4.0).reshape(4, 1))
    symgrad.save(mine.state_dict(), tmp_path / "state.pt")
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    theirs.load_state_dict(torch.load(tmp_path / "state.pt"))
    x = [[1.0, -2.0, 0.5]]
    theirs.eval(), mine.eval()
    assert np.allclose(theirs(torch.tensor(x)).tolist(), mine(symgrad.tensor(x)).tolist())
    assert theirs[1].num_batches_tracked.item() == 1
    optimizer = symgrad.optim.SGD(mine.parameters(), lr=0.1, momentum=0.9)
    mine(symgrad.tensor(x)).sum().backward()
    optimizer.step()
    symgrad.save(optimizer.state_dict(), tmp_path / "sgd.pt")
    state = torch.load(tmp_path / "sgd.pt")
    assert state["param_groups"][0]["momentum"] == 0.9
    buffers = [state["state"][i]["momentum_buffer"].tolist() for i in range(2)]
    assert buffers == [p.grad.tolist() for p in list(mine.parameters())[:2]]


def test_files_written_by_torch_now_load_the_same(tmp_path):
    torch = pytest.importorskip("torch")
    _write_checkpoints(torch, tmp_path)
    _check_tensors(symgrad.load(tmp_path / "tensors.pt"))
    for name in ("modules.pt", "adam.pt", "tensors.pt"):
        mine, theirs = symgrad.load(tmp_path / name), torch.load(tmp_path / name)
        _compare(mine, theirs)
        _compare(symgrad.load(DATA / name), theirs)


def test_what_symgrad_tensors_cant_hold_is_named(tmp_path):
    torch = pytest.importorskip("torch")
    cases = {"complex": (torch.ones(2, dtype=torch.complex64), r"torch\.complex64")}
    for name, (tensor, message) in cases.items():
        torch.save({name: tensor}, tmp_path / f"{name}.pt")
        with pytest.raises(pickle.UnpicklingError, match=message):
            symgrad.load(tmp_path / f"{name}.pt")


def _compare(mine, theirs):
    if hasattr(theirs, "stride") and hasattr(theirs, "dtype"):
        assert _plain(mine) == _plain(theirs)
        assert mine.requires_grad == theirs.requires_grad
        assert type(mine).__name__ == type(theirs).__name__
    elif isinstance(theirs, dict):
        assert list(mine) == list(theirs)
        for key in theirs:
            _compare(mine[key], theirs[key])
    elif isinstance(theirs, (list, tuple)) and not hasattr(theirs, "numel"):
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            _compare(a, b)
    else:
        assert str(mine).replace("symgrad", "torch") == str(theirs)


if __name__ == "__main__":  # rewrite the reference files
    import torch

    DATA.mkdir(exist_ok=True)
    _write_checkpoints(torch, DATA)
