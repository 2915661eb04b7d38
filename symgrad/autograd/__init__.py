"""Autograd: grad modes, graph nodes, the backward engine and custom Functions."""

from symgrad.autograd.anomaly import (
    AnomalyWarning,
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from symgrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from symgrad.autograd import hooks  # binds Tensor.register_hook and Tensor.retain_grad
from symgrad.autograd import conversions  # binds Tensor.numpy and float(Tensor)
from symgrad.autograd import grad_dtype  # binds Tensor.grad_dtype
from symgrad.autograd.engine import backward  # binds Tensor.backward
from symgrad.autograd.grad_api import grad
from symgrad.autograd.node import Node
from symgrad.autograd import functional  # torch.autograd.functional: jacobian, hessian, ...
from symgrad.autograd.variable import Variable
from symgrad.autograd import graph  # torch.autograd.graph: saved-tensor hooks
from symgrad.autograd import anomaly_mode  # (PyTorch's module name)
from symgrad.autograd.engine_switches import (
    is_multithreading_enabled,
    is_view_replay_enabled,
    set_multithreading_enabled,
)
from symgrad.autograd.saved_names import SavedTensor

# PyTorch's module torch.autograd.gradcheck is importable, while the attribute of that name is
# the function: load the module now, so that a later import of it finds it loaded and leaves
# the attribute alone, and drop the attribute, so that __getattr__ serves the function.
from symgrad.autograd import gradcheck

del gradcheck

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "Node",
    "functional",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "check_function",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "AnomalyWarning",
    "graph",
    "anomaly_mode",
    "is_multithreading_enabled",
    "set_multithreading_enabled",
    "is_view_replay_enabled",
    "SavedTensor",
]


def __getattr__(name: str):
    if name == "profiler":  # loaded on first use: it wraps the primitives while profiling
        import importlib

        return importlib.import_module("symgrad.autograd.profiler")
    if name in ("Function", "FunctionCtx", "once_differentiable"):
        from symgrad.autograd import function

        return getattr(function, name)
    if name in ("gradcheck", "gradgradcheck", "GradcheckError", "check_function"):
        from symgrad import check  # the checks live above autograd: re-exported, not imported

        return getattr(check, name)
    raise AttributeError(f"module 'symgrad.autograd' has no attribute {name!r}")
