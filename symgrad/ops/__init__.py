"""Every primitive, declared once, and the public functions that apply them."""

from symgrad.ops import (
    activations,
    celu,
    gelu,
    decompositions,
    older_decompositions,
    determinants,
    matrix_functions,
    division,
    gathering,
    indexing,
    inplace,
    mask_fill,
    joining,
    linalg,
    math,
    math_special,
    norms,
    ordering,
    products,
    putting,
    reductions,
    arg_reductions,
    rounding,
    scans,
    scatter_reductions,
    scattering,
    selection,
    shape,
    triangular,
    softmax_family,
    special_functions,
    summaries,
    tiling,
    uniques,
    variance,
)
from symgrad.ops.tensor_xp import *  # noqa: F403
from symgrad.ops.determinants import *  # noqa: F403
from symgrad.ops.determinants import xp_det, xp_inv, xp_solve
from symgrad.ops.decompositions import *  # noqa: F403
from symgrad.ops.older_decompositions import *  # noqa: F403
from symgrad.ops.decompositions import xp_adjugate
from symgrad.ops.matrix_functions import *  # noqa: F403
from symgrad.ops.matrix_functions import xp_matrix_exp
from symgrad.ops.division import *  # noqa: F403
from symgrad.ops import masked_writes, strided_views
from symgrad.ops.masked_writes import *  # noqa: F403
from symgrad.ops.strided_views import *  # noqa: F403
from symgrad.ops.einsum import einsum
from symgrad.ops.elementwise import REGISTRY
from symgrad.ops.gathering import *  # noqa: F403
from symgrad.ops.gathering import xp_gather, xp_scatter_zeros
from symgrad.ops.lu_factorization import lu
from symgrad.ops.lu_solving import lu_solve, lu_unpack
from symgrad.ops.indexing import *  # noqa: F403
from symgrad.ops.indexing import xp_getitem, xp_index_put_zeros
from symgrad.ops.mask_fill import *  # noqa: F403
from symgrad.ops.inplace import *  # noqa: F403
from symgrad.ops.joining import *  # noqa: F403
from symgrad.ops.linalg import *  # noqa: F403
from symgrad.ops.math import *  # noqa: F403
from symgrad.ops.math_special import *  # noqa: F403
from symgrad.ops.special_functions import *  # noqa: F403
from symgrad.ops.norms import *  # noqa: F403
from symgrad.ops.ordering import *  # noqa: F403
from symgrad.ops.products import *  # noqa: F403
from symgrad.ops import fused_products
from symgrad.ops.fused_products import *  # noqa: F403
from symgrad.ops.putting import *  # noqa: F403
from symgrad.ops.reductions import *  # noqa: F403
from symgrad.ops.arg_reductions import *  # noqa: F403
from symgrad.ops.rounding import *  # noqa: F403
from symgrad.ops.scans import *  # noqa: F403
from symgrad.ops.scatter_reductions import *  # noqa: F403
from symgrad.ops.scattering import *  # noqa: F403
from symgrad.ops.selection import *  # noqa: F403
from symgrad.ops.shape import *  # noqa: F403
from symgrad.ops import copies, divisors, float_parts, python_maps  # noqa: F401
from symgrad.ops.copies import *  # noqa: F403
from symgrad.ops.divisors import *  # noqa: F403
from symgrad.ops.float_parts import *  # noqa: F403
from symgrad.ops.triangular import *  # noqa: F403
from symgrad.ops.softmax_family import *  # noqa: F403
from symgrad.ops.summaries import *  # noqa: F403
from symgrad.ops.tiling import *  # noqa: F403
from symgrad.ops.uniques import *  # noqa: F403
from symgrad.ops.variance import *  # noqa: F403
from symgrad.ops import assembling, differences, pairwise_distances, statistics
from symgrad.ops.assembling import *  # noqa: F403
from symgrad.ops.pairwise_distances import *  # noqa: F403
from symgrad.ops.differences import *  # noqa: F403
from symgrad.ops.statistics import *  # noqa: F403
from symgrad.ops.slice_norms import renorm
from symgrad.ops import losses  # noqa: E402,F401  (declares the loss primitives)
from symgrad.ops import methods  # noqa: E402,F401  (binds the Tensor methods)
from symgrad.ops import devices  # noqa: E402,F401  (binds to, cpu, cuda, device)
from symgrad.ops import atleast, bitwise, distances, sampling, shape_inplace  # noqa: E402
from symgrad.ops.distances import dist  # noqa: E402
from symgrad.ops.shape_inplace import swapdims  # noqa: E402
from symgrad.ops.sampling import *  # noqa: E402,F403
from symgrad.ops.atleast import *  # noqa: E402,F403
from symgrad.ops.bitwise import *  # noqa: E402,F403
from symgrad.ops import aliases  # noqa: E402
from symgrad.ops.aliases import *  # noqa: E402,F403
from symgrad.ops import nan_ignoring  # noqa: E402
from symgrad.ops.nan_ignoring import *  # noqa: E402,F403
from symgrad.ops import tensor_facts  # noqa: E402
from symgrad.ops.tensor_facts import *  # noqa: E402,F403
from symgrad.ops import categorical_sampling  # noqa: E402
from symgrad.ops.categorical_sampling import *  # noqa: E402,F403
from symgrad.ops import quantiles, windows  # noqa: E402,F401
from symgrad.ops.quantiles import *  # noqa: E402,F403
from symgrad.ops import distribution_fills  # noqa: E402
from symgrad.ops.distribution_fills import *  # noqa: E402,F403
from symgrad.ops import gamma_sampling  # noqa: E402
from symgrad.ops.gamma_sampling import *  # noqa: E402,F403
from symgrad.ops import dtype_views  # noqa: E402,F401  (binds Tensor.view: sizes or a dtype)
from symgrad.ops import double_powers  # noqa: E402
from symgrad.ops.double_powers import *  # noqa: E402,F403
from symgrad.ops.select import select  # noqa: E402
from symgrad.ops import inplace_aliases  # noqa: E402,F401  (binds x.eq_(y) and the like)
from symgrad.ops import real_tensors  # noqa: E402
from symgrad.ops.real_tensors import *  # noqa: E402,F403
from symgrad.ops import shape_aliases  # noqa: E402
from symgrad.ops.shape_aliases import *  # noqa: E402,F403
from symgrad.ops import tensor_only_methods  # noqa: E402,F401  (binds t.maximum and the like)
from symgrad.ops import filled, float_steps, unsafe_splits, view_copies, view_scatters  # noqa: E402
from symgrad.ops.filled import fill  # noqa: E402
from symgrad.ops.histograms import histogram, histogramdd  # noqa: E402
from symgrad.ops.float_steps import *  # noqa: E402,F403
from symgrad.ops.unsafe_splits import *  # noqa: E402,F403
from symgrad.ops.view_copies import *  # noqa: E402,F403
from symgrad.ops.view_scatters import *  # noqa: E402,F403
from symgrad.ops.reflected_sub import rsub  # noqa: E402
from symgrad.ops import cholesky_solves, householder, removed_linalg, triangular_solves  # noqa: E402
from symgrad.ops.cholesky_solves import *  # noqa: E402,F403
from symgrad.ops.householder import *  # noqa: E402,F403
from symgrad.ops.removed_linalg import *  # noqa: E402,F403
from symgrad.ops.triangular_solves import *  # noqa: E402,F403
from symgrad.ops.index_reductions import index_reduce  # noqa: E402
from symgrad.ops.resizing import resize_as_  # noqa: E402
from symgrad.ops import set_memory  # noqa: E402, F401
from symgrad.ops.static_nonzero import nonzero_static  # noqa: E402
from symgrad.ops import layouts, legacy_new, storages, tensor_queries  # noqa: E402,F401  (methods)
from symgrad.ops import fw_primal  # noqa: E402,F401  (methods)

__all__ = [
    *decompositions.__all__,
    *older_decompositions.__all__,
    *determinants.__all__,
    *matrix_functions.__all__,
    *division.__all__,
    "einsum",
    *strided_views.__all__,
    *masked_writes.__all__,
    *gathering.__all__,
    *indexing.__all__,
    *mask_fill.__all__,
    *joining.__all__,
    *linalg.__all__,
    *math.__all__,
    *math_special.__all__,
    *special_functions.__all__,
    *norms.__all__,
    *ordering.__all__,
    *products.__all__,
    *fused_products.__all__,
    *putting.__all__,
    *reductions.__all__,
    *arg_reductions.__all__,
    *rounding.__all__,
    *scans.__all__,
    *scatter_reductions.__all__,
    *scattering.__all__,
    *selection.__all__,
    *shape.__all__,
    *copies.__all__,
    *divisors.__all__,
    *float_parts.__all__,
    *triangular.__all__,
    *softmax_family.__all__,
    *summaries.__all__,
    *tiling.__all__,
    *uniques.__all__,
    *variance.__all__,
    *bitwise.__all__,
    *aliases.__all__,
    *nan_ignoring.__all__,
    *tensor_facts.__all__,
    *categorical_sampling.__all__,
    *quantiles.__all__,
    *atleast.__all__,
    *sampling.__all__,
    "swapdims",
    "dist",
    *assembling.__all__,
    *pairwise_distances.__all__,
    *differences.__all__,
    *statistics.__all__,
    "renorm",
    "lu",
    "lu_solve",
    "lu_unpack",
    *distribution_fills.__all__,
    *gamma_sampling.__all__,
    *double_powers.__all__,
    "rsub",
    "index_reduce",
    "resize_as_",
    "nonzero_static",
    "select",
    *real_tensors.__all__,
    *shape_aliases.__all__,
    "fill",
    "histogram",
    "histogramdd",
    *float_steps.__all__,
    *unsafe_splits.__all__,
    *view_copies.__all__,
    *view_scatters.__all__,
    *cholesky_solves.__all__,
    *householder.__all__,
    *removed_linalg.__all__,
    *triangular_solves.__all__,
]

from symgrad import ops as _ops  # noqa: E402
from symgrad.ops.tensor_xp import tensor_interpreter as _tensor_interpreter  # noqa: E402
from symgrad.prim.vocab import INTERPRETERS as _INTERPRETERS  # noqa: E402

_INTERPRETERS.tensor = TX = _tensor_interpreter(_ops)
