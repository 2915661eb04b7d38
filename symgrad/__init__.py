"""symgrad: PyTorch-compatible autograd on NumPy whose every node also knows its derivative
as a SymPy expression.

``import symgrad as torch`` runs the autograd parts of PyTorch code unchanged.
"""

from symgrad.dtypes import (
    bool_ as bool,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
)
from symgrad.tensor import Tensor
from symgrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from symgrad.creation import *  # noqa: F403
from symgrad.ops import *  # noqa: F403
from symgrad import autograd, check, nn, symbolic
from symgrad.symbolic import elementwise
from symgrad.check import GradientReport, verify
from symgrad._printing import set_printoptions

float = float32  # noqa: A001 - PyTorch's aliases
double = float64
half = float16
long = int64
int = int32  # noqa: A001

__version__ = "0.1.0"
