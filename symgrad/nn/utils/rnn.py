"""``torch.nn.utils.rnn``: padding and packing variable-length sequences for the recurrent
layers.

A :class:`PackedSequence` holds the time steps of a batch of sequences, sorted longest first,
one after another: ``data`` has ``batch_sizes[t]`` rows for step ``t``. Every function here is
a composite of recorded ops (slicing, ``cat``, ``stack``, ``index_select``), so gradients flow
through packing and padding as in PyTorch.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from symgrad import creation
from symgrad.ops.indexing import _getitem_forward, _getitem_vjp
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pad_sequence",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pack_sequence",
    "unpack_sequence",
    "unpad_sequence",
]

_UNSORTED = (
    "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
    "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
    "requirement if you do not need ONNX exportability."
)


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None


class PackedSequence(_PackedFields):
    """A batch of sequences packed time step by time step (see the module docstring). Made
    with ``sorted_indices`` alone, its ``unsorted_indices`` are their inverse, as PyTorch's;
    ``PackedSequence((data, batch_sizes))`` is taken too.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import pack_sequence
    >>> pack_sequence([symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0])]).batch_sizes
    tensor([2, 1])
    """

    __slots__ = ()

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("PackedSequence takes (data, batch_sizes) as one pair")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    @property
    def is_cuda(self) -> bool:
        """False: symgrad computes on the CPU."""
        return False

    def is_pinned(self) -> bool:
        """False: symgrad has no pinned memory."""
        return False

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The sequence with ``data`` moved or cast by ``Tensor.to`` (the indices stay)."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._replace(data=data)

    def cpu(self) -> PackedSequence:
        """This sequence: it is on the CPU already."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """Raises, as ``Tensor.cuda``: there is no CUDA device."""
        return self._replace(data=self.data.cuda(*args, **kwargs))

    def pin_memory(self) -> PackedSequence:
        """Raises, as ``Tensor.pin_memory``: there is no accelerator."""
        return self._replace(data=self.data.pin_memory())

    def double(self) -> PackedSequence:
        return self._replace(data=self.data.double())

    def float(self) -> PackedSequence:
        return self._replace(data=self.data.float())

    def half(self) -> PackedSequence:
        return self._replace(data=self.data.half())

    def long(self) -> PackedSequence:
        return self._replace(data=self.data.long())

    def int(self) -> PackedSequence:
        return self._replace(data=self.data.int())

    def short(self) -> PackedSequence:
        return self._replace(data=self.data.short())

    def char(self) -> PackedSequence:
        return self._replace(data=self.data.char())

    def byte(self) -> PackedSequence:
        return self._replace(data=self.data.byte())


# the rows of every time step, in one node as PyTorch's
_PACK = Structural(
    "pack_padded_sequence",
    _getitem_forward,
    _getitem_vjp,
    backward="PackPaddedSequenceBackward0",
    jvp="linear",
    batch="getitem",
)


def _int_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        return [int(v) for v in np.asarray(lengths.detach().numpy()).reshape(-1)]
    return [int(v) for v in lengths]


def _lengths(lengths: Any) -> list[int]:
    """The sequence lengths as PyTorch reads them (as an int64 tensor): one dimension."""
    array = lengths.detach().numpy() if isinstance(lengths, Tensor) else np.asarray(lengths)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"new(): invalid data type '{type(lengths).__name__}'")
    if array.ndim != 1:
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got "
            f"{array.ndim}D cpu Long tensor"
        )
    return [int(v) for v in array]


def _long(values: Any) -> Tensor:
    return creation.tensor(np.asarray(values, dtype=np.int64))


def _invert(permutation: np.ndarray) -> np.ndarray:
    inverse = np.empty_like(permutation)
    inverse[permutation] = np.arange(len(permutation))
    return inverse


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of ``permutation`` (a vector of the indices ``0 .. n-1`` in some order),
    in its dtype; None for None.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import invert_permutation
    >>> invert_permutation(symgrad.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    return creation.tensor(_invert(np.asarray(permutation.detach().numpy())))


def pad_sequence(
    sequences: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into one ``(L_max, B, *)`` tensor (``(B, L_max,
    *)`` with ``batch_first``), filling with ``padding_value`` on ``padding_side``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import pad_sequence
    >>> pad_sequence([symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0])], batch_first=True)
    tensor([[1., 2.],
            [3., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if any(s.ndim == 0 for s in sequences):
        raise RuntimeError("pad_sequence: every sequence needs a first (time) dimension")
    longest = max(s.shape[0] for s in sequences)
    first = sequences[0]
    lead = (len(sequences), longest) if batch_first else (longest, len(sequences))
    # each sequence copied into a filled tensor of the first one's dtype, as PyTorch (its
    # nodes: CopySlices)
    out = creation.full(lead + tuple(first.shape[1:]), padding_value, dtype=first.dtype)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        steps = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        out[(i, steps) if batch_first else (steps, i)] = s
    return out


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of
    the given ``lengths`` (a list or a CPU int64 tensor). With ``enforce_sorted`` the lengths
    must decrease; otherwise the batch is sorted and ``sorted_indices`` records how.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import pack_padded_sequence
    >>> x = symgrad.tensor([[1.0, 3.0], [2.0, 0.0]])
    >>> packed = pack_padded_sequence(x, [2, 1])
    >>> packed.data, packed.batch_sizes
    (tensor([1., 3., 2.]), tensor([2, 1]))
    """
    sizes = _lengths(lengths)
    batch_dim = 0 if batch_first else 1
    if len(sizes) != input.shape[batch_dim]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(sizes)} "
            f"(batch_size={input.shape[batch_dim]})"
        )
    sorted_indices = unsorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(sizes, sizes[1:])):
            raise RuntimeError(_UNSORTED)
    else:
        order = np.argsort(-np.asarray(sizes), kind="stable")
        sorted_indices, unsorted_indices = _long(order), _long(_invert(order))
        input = input.index_select(batch_dim, sorted_indices)
        sizes = [sizes[i] for i in order]
    if sizes and sizes[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    time = input.shape[1 if batch_first else 0]
    if sizes[0] > time:
        raise RuntimeError(
            f"Expected sequence length to be larger than or equal to {sizes[0]}, but got "
            f"{time}: a length exceeds the padded input's time dimension"
        )
    batch_sizes = [sum(1 for n in sizes if n > t) for t in range(sizes[0])]
    steps = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    rows = np.concatenate([np.arange(b) for b in batch_sizes])
    data = _PACK(input, key=(rows, steps) if batch_first else (steps, rows))
    return PackedSequence(data, _long(batch_sizes), sorted_indices, unsorted_indices)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo :func:`pack_padded_sequence`: the padded batch (in the original order) and each
    sequence's length, padded to ``total_length`` steps when given.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> packed = pack_sequence([symgrad.tensor([1.0]), symgrad.tensor([2.0, 3.0])], False)
    >>> pad_packed_sequence(packed, batch_first=True)
    (tensor([[1., 0.],
            [2., 3.]]), tensor([1, 2]))
    """
    data, batch_sizes = sequence.data, _int_list(sequence.batch_sizes)
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
    else:
        total_length = steps
    batch, rest = batch_sizes[0], tuple(data.shape[1:])
    # written into a filled tensor one run of steps of equal batch size at a time, as ATen's
    # (its nodes: CopySlices reading ViewBackward0 of SliceBackward0)
    padded = creation.full((total_length, batch, *rest), padding_value, dtype=data.dtype)
    offset = start = 0
    for t, b in enumerate([*batch_sizes, 0]):
        if b != batch_sizes[start]:
            size = batch_sizes[start] * (t - start)
            run = data[offset : offset + size].view(t - start, batch_sizes[start], *rest)
            padded[start:t, : batch_sizes[start]].copy_(run)
            offset, start = offset + size, t
    lengths = np.array([sum(1 for b in batch_sizes if b > i) for i in range(batch)])
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[np.asarray(sequence.unsorted_indices.numpy())]
    return padded, _long(lengths)


def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences of shapes ``(L_i, *)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import pack_sequence
    >>> pack_sequence([symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0])]).data
    tensor([1., 3., 2.])
    """
    sequences = list(sequences)
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences that :func:`pack_sequence` packed, in their original order.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> unpack_sequence(pack_sequence([symgrad.tensor([1.0]), symgrad.tensor([2.0, 3.0])], False))
    [tensor([1.]), tensor([2., 3.])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list:
    """Split a padded batch back into its sequences of the given lengths.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.rnn import unpad_sequence
    >>> unpad_sequence(symgrad.tensor([[1.0, 2.0], [3.0, 0.0]]), [2, 1], batch_first=True)
    [tensor([1., 2.]), tensor([3.])]
    """
    if not batch_first:  # in place, as PyTorch's: the caller's tensor is left transposed
        padded_sequences.transpose_(0, 1)
    # each row picked through a mask of its steps, as PyTorch (the nodes: IndexBackward0)
    steps = creation.arange(padded_sequences.shape[1])
    return [row[steps < n] for row, n in zip(padded_sequences, _int_list(lengths), strict=True)]
