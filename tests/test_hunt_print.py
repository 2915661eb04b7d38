"""What programs print, character for character as PyTorch 2.13 prints it: reprs of modules
with their parametrizations, of optimizers and schedulers, of tensors.

Each case builds the same object with ``T`` either symgrad or torch and returns its text (a
dtype's module prefix, ``symgrad.`` or ``torch.``, is written ``T.``): the table holds the
expected text, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests


def _text(T, value) -> str:
    return str(value).replace(f"{T.__name__}.", "T.")


def _spectral_norm_linear(T):
    linear = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 3))
    return _text(T, linear)


CASES = {
    # the parametrization's class is PyTorch's _SpectralNorm
    "spectral_norm_parametrization": (
        _spectral_norm_linear,
        "ParametrizedLinear(\n"
        "  in_features=2, out_features=3, bias=True\n"
        "  (parametrizations): ModuleDict(\n"
        "    (weight): ParametrizationList(\n"
        "      (0): _SpectralNorm()\n"
        "    )\n"
        "  )\n"
        ")",
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
