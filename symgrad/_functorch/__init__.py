"""The modules PyTorch's own ``functorch`` package imports (``torch._functorch.deprecated``,
``torch._functorch.make_functional``, ``torch._functorch.python_key``), so that ``import
functorch`` works with symgrad standing in for torch and its names (``functorch.jvp``,
``functorch.make_functional_with_buffers``, ...) call :mod:`symgrad.func`."""
