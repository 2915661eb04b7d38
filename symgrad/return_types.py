"""``torch.return_types``: the classes of the named tuples functions return (``max`` and
``sort`` give ``(values, indices)``, ``linalg.qr`` gives ``(Q, R)``, ...), under PyTorch's
names, so that programs can check ``isinstance(result, symgrad.return_types.max)``; each
function's ``out=`` form returns the class named with ``_out`` (``max_out``).

Examples
--------
>>> import symgrad
>>> result = symgrad.tensor([[1.0, 3.0], [2.0, 0.0]]).max(dim=1)
>>> isinstance(result, symgrad.return_types.max), type(result).__name__
(True, 'max')
>>> result.indices
tensor([1, 0])
"""

from __future__ import annotations

from typing import Any

from symgrad.ops import ordering, reductions, scans, selection, summaries
from symgrad.ops.determinants import return_type
from symgrad.ops.out import _out_type

__all__: list[str] = []

_VALUES_INDICES = {
    "max": reductions._Max,
    "min": reductions._Min,
    "cummax": scans._Cummax,
    "cummin": scans._Cummin,
    "aminmax": summaries._Aminmax,
    **{op: ordering._RETURNS[op] for op in ("sort", "topk", "kthvalue", "median")},
    **{op: selection._RETURNS[op] for op in ("mode", "nanmedian")},
}

# the fields each function's result has, as the functions build them
_FIELDS = {
    "frexp": ("mantissa", "exponent"),
    "geqrf": ("a", "tau"),
    "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"),
    "qr": ("Q", "R"),
    "svd": ("U", "S", "V"),
    "triangular_solve": ("solution", "cloned_coefficient"),
    "lu_unpack": ("P", "L", "U"),
    "linalg_qr": ("Q", "R"),
    "linalg_svd": ("U", "S", "Vh"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_slogdet": ("sign", "logabsdet"),
    "linalg_inv_ex": ("inverse", "info"),
    "linalg_solve_ex": ("result", "info"),
    "linalg_cholesky_ex": ("L", "info"),
    "linalg_lu": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"),
    "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
}

# PyTorch has no out= form of these
_NO_OUT = ("histogramdd",)


def _from_sequence(make: Any) -> Any:
    """A constructor that also takes the fields as one iterable, as PyTorch's classes do
    (``return_types.max((values, indices))``, ``type(out)(f(v) for v in out)``); one of
    another length is PyTorch's TypeError."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            try:
                args = tuple(args[0])
            except TypeError:
                raise TypeError(f"{cls.__name__}() takes a sequence of fields") from None
            if len(args) != len(cls._fields):
                raise TypeError(
                    f"symgrad.return_types.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                    f"({len(args)}-sequence given)"
                )
        return make(cls, *args, **kwargs)

    return staticmethod(__new__)


def _publish(name: str, cls: type) -> None:
    """``cls`` as ``symgrad.return_types.<name>``: its name, where pickle finds it, and
    PyTorch's constructor from one sequence."""
    cls.__new__ = _from_sequence(cls.__new__)
    cls.__name__ = cls.__qualname__ = name
    cls.__module__ = __name__
    globals()[name] = cls
    __all__.append(name)


for _name, _cls in {
    **_VALUES_INDICES,
    **{op: return_type(op, fields) for op, fields in _FIELDS.items()},
}.items():
    _publish(_name, _cls)
    if _name not in _NO_OUT:
        _publish(f"{_name}_out", _out_type(_cls, _name))
