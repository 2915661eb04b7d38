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
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from symgrad._memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    legacy_contiguous_format,
    memory_format,
    preserve_format,
)
from symgrad.tensor import Tensor
from symgrad._data import Size
from symgrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from symgrad.creation import *  # noqa: F403
from symgrad._like import *  # noqa: F403
from symgrad.ops import *  # noqa: F403
from symgrad.ops.out import *  # noqa: F403  (the same functions, also taking out=)
from symgrad.ops.storages import TypedStorage, UntypedStorage
from symgrad._inplace_functions import *  # noqa: F403  (torch.relu_(x) and the like)
from symgrad._aten_functions import *  # noqa: F403  (torch.embedding(weight, indices) and the like)
from symgrad._aten_losses import *  # noqa: F403  (torch.kl_div(input, target, 1) and the like)
from symgrad._aten_pooling import *  # noqa: F403  (torch.max_pool2d, torch.constant_pad_nd)
from symgrad._aten_native import *  # noqa: F403  (torch.native_layer_norm and the like)
from symgrad._aten_sync_batch_norm import *  # noqa: F403  (torch.batch_norm_stats and the like)
from symgrad._aten_rnn_cells import *  # noqa: F403  (torch.lstm_cell and the like)
from symgrad.ops.segment_reduce import segment_reduce
from symgrad._lowrank import pca_lowrank, svd_lowrank
from symgrad import _aten_methods  # noqa: F401  (Tensor.prelu, Tensor.hardshrink)
from symgrad._device import device, get_default_device, set_default_device
from symgrad._asarray import asarray
from symgrad._threads import *  # noqa: F403  (get_num_threads and the like)
from symgrad._runtime import *  # noqa: F403  (the process-wide switches and small queries)
from symgrad._autocast import *  # noqa: F403  (autocast: always off)
from symgrad import accelerator, autograd, backends, cuda, func, nn, optim
from symgrad._printing import set_printoptions
from symgrad.type_info import finfo, iinfo
from symgrad import serialization, storage
from symgrad.serialization import load, save
from symgrad.spaced import logspace
from symgrad.signal_windows import *  # noqa: F403
from symgrad.strided_factories import *  # noqa: F403
from symgrad.ordered_factories import empty_permuted
from symgrad._buffers import *  # noqa: F403  (frombuffer, from_dlpack, to_dlpack)
from symgrad._sym_numbers import *  # noqa: F403  (sym_max and the like)
from symgrad._aten_extras import embedding_renorm_, hardshrink
from symgrad.random import default_generator
from symgrad.ops.weight_norm import norm_except_dim
from symgrad.ops.weight_norm import weight_norm_interface as _weight_norm
from symgrad.legacy_types import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)

float = float32  # noqa: A001 - PyTorch's aliases
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
from symgrad.ordered_factories import range_ as range  # noqa: A001,E402 - torch.range

from symgrad.version import __version__  # noqa: E402 - a version string comparing by its numbers

# submodules and names that need SymPy or are seldom used load on first use, so that
# ``import symgrad`` stays fast: ``symgrad.viz`` works after a plain ``import symgrad``
_SUBMODULES = (
    "amp",
    "jit",
    "profiler",
    "cpu",
    "symbolic",
    "viz",
    "check",
    "cli",
    "utils",
    "testing",
    "linalg",
    "compiler",
    "functional",
    "distributions",
    "distributed",
    "special",
    "signal",
    "__config__",
)
_LAZY_NAMES = {
    "compile": "symgrad.compiler",
    "elementwise": "symgrad.symbolic",
    "verify": "symgrad.check",
    "GradientReport": "symgrad.check",
    "vmap": "symgrad.func",  # torch.vmap
    "GradScaler": "symgrad.amp",  # torch.GradScaler
    "cond": "symgrad.control_flow",
    "while_loop": "symgrad.control_flow",
}


def __getattr__(name: str):
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f"symgrad.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    raise AttributeError(f"module 'symgrad' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_SUBMODULES) | set(_LAZY_NAMES))


# PyTorch's constants
import math as _math  # noqa: E402

pi = 3.141592653589793
e = 2.718281828459045
inf = _math.inf
nan = _math.nan
newaxis = None

# examples for the Tensor methods made from templates (in-place forms, conversions)
from symgrad.ops.method_examples import add_examples as _add_examples  # noqa: E402

_add_examples(Tensor)

# out= on the functions PyTorch gives it to
from symgrad.ops.out import add_out as _add_out  # noqa: E402

_add_out(globals())

# the classes of the named tuples results, under PyTorch's names (torch.return_types)
from symgrad import return_types  # noqa: E402

# NumPy's keyword names (axis, keepdims) for dim and keepdim, as PyTorch's parser takes them
from symgrad._numpy_keywords import install as _install_numpy_keywords  # noqa: E402
from symgrad._numpy_keywords import share as _share_numpy_keywords  # noqa: E402

_install_numpy_keywords(Tensor, globals())
_share_numpy_keywords(nn.functional)  # the functions it shares with symgrad stay the same
