"""``torch.linalg``: determinants, inverses, solves, decompositions, matrix functions and
norms of (batches of) matrices, with PyTorch's gradients; ``det``, ``inv`` and ``solve`` of
small matrices also have closed forms.

Examples
--------
>>> import symgrad
>>> a = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
>>> symgrad.linalg.solve(a, symgrad.tensor([1.0, 2.0]))
tensor([0.2000, 0.6000], grad_fn=<LinalgSolveExBackward0>)
"""

from symgrad.ops.cholesky_info import cholesky_ex
from symgrad.ops.decompositions import eigh, eigvalsh, svdvals
from symgrad.ops.decompositions import linalg_cholesky as cholesky
from symgrad.ops.decompositions import linalg_qr as qr
from symgrad.ops.decompositions import linalg_svd as svd
from symgrad.ops.determinants import det, inv, matrix_power, solve
from symgrad.ops.determinants import linalg_slogdet as slogdet
from symgrad.ops.householder import householder_product
from symgrad.ops.inverse_info import inv_ex, solve_ex
from symgrad.ops.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from symgrad.ops.least_squares import lstsq
from symgrad.ops.linalg import matmul
from symgrad.ops.linalg_composites import cond, tensorinv, tensorsolve, vander, vecdot
from symgrad.ops.linalg_entries import entry
from symgrad.ops.linalg_norms import linalg_norm as norm
from symgrad.ops.linalg_norms import matrix_norm, vector_norm
from symgrad.ops.lu_factorization import linalg_lu as lu
from symgrad.ops.lu_factorization import lu_factor, lu_factor_ex
from symgrad.ops.lu_solving import linalg_lu_solve as lu_solve
from symgrad.ops.matrix_functions import linalg_cross as cross
from symgrad.ops.matrix_functions import linalg_diagonal as diagonal
from symgrad.ops.matrix_functions import matrix_exp, multi_dot, pinv
from symgrad.ops.matrix_rank import matrix_rank
from symgrad.ops.triangular_solves import solve_triangular
from symgrad.prim.linalg_kernels import LinAlgError

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "lstsq",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

# PyTorch's keyword names ("input" and NumPy's "x" where the docs write A) and out= (of the
# result's dtype only but for the composite functions, which cast as PyTorch's do)
_INPUT = {"input": "A", "x": "A"}
cholesky = entry(cholesky, **_INPUT)
cholesky_ex = entry(cholesky_ex, **_INPUT)
cond = entry(cond, **_INPUT, exact=False)
det = entry(det, A="input")
eigh = entry(eigh, **_INPUT)
eigvalsh = entry(eigvalsh, **_INPUT)
householder_product = entry(householder_product, **_INPUT, exact=False)
inv = entry(inv)
inv_ex = entry(inv_ex)
ldl_factor = entry(ldl_factor, **_INPUT)
ldl_factor_ex = entry(ldl_factor_ex, **_INPUT)
ldl_solve = entry(ldl_solve)
lu = entry(lu)
lu_factor = entry(lu_factor)
lu_factor_ex = entry(lu_factor_ex)
lu_solve = entry(lu_solve)
lstsq = entry(lstsq, b="B", **_INPUT, exact=False)
matrix_exp = entry(matrix_exp, out=False, **_INPUT)
matrix_norm = entry(matrix_norm, **_INPUT)
matrix_power = entry(matrix_power)
matrix_rank = entry(matrix_rank, **_INPUT, exact=False)
multi_dot = entry(multi_dot)
norm = entry(norm, **_INPUT)
pinv = entry(pinv, **_INPUT, exact=False)
qr = entry(qr)
slogdet = entry(slogdet, A="input")
solve = entry(solve)
solve_ex = entry(solve_ex)
solve_triangular = entry(solve_triangular, **_INPUT)
svd = entry(svd)
svdvals = entry(svdvals)
tensorinv = entry(tensorinv, **_INPUT, exact=False)
tensorsolve = entry(tensorsolve, other="B", **_INPUT, exact=False)
vecdot = entry(vecdot)
vector_norm = entry(vector_norm, input="x")
cross = entry(cross)
matmul = entry(matmul)

# NumPy's keyword names for dim and keepdim, and keepdim as a bool only, as PyTorch's parser
from symgrad._numpy_keywords import install as _install_numpy_keywords  # noqa: E402

_install_numpy_keywords(None, globals())
