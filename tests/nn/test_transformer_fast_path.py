"""``nn.TransformerEncoder`` on PyTorch's inference fast path: in evaluation, with a key
padding mask and nothing to record, the padded positions come out as 0 (PyTorch leaves them
out of a nested tensor and pads the result with zeros); elsewhere, the layers' values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn

PADDING = [[False, False, False, False], [False, False, True, True]]


def _encoder(norm: bool = False, **options) -> nn.TransformerEncoder:
    symgrad.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if norm else None, **options)


def _src() -> symgrad.Tensor:
    return symgrad.tensor(
        np.random.default_rng(0).standard_normal((2, 4, 8)), dtype=symgrad.float32
    )


def _run(encoder: nn.TransformerEncoder, padding=PADDING, **options) -> np.ndarray:
    with symgrad.no_grad():
        return encoder(_src(), src_key_padding_mask=symgrad.tensor(padding), **options).numpy()


def test_padded_positions_are_zero_and_the_others_unchanged() -> None:
    fast = _run(_encoder().eval())
    plain = _run(_encoder(enable_nested_tensor=False).eval())
    assert (fast[1, 2:] == 0).all() and not (plain[1, 2:] == 0).any()
    np.testing.assert_array_equal(fast[0], plain[0])
    np.testing.assert_array_equal(fast[1, :2], plain[1, :2])


def test_norm_comes_after_the_zeros() -> None:
    encoder = _encoder(norm=True).eval()
    with symgrad.no_grad():
        encoder.norm.bias.copy_(symgrad.arange(8, dtype=symgrad.float32))
    out = _run(encoder)
    np.testing.assert_allclose(out[1, 2], np.arange(8), atol=1e-6)  # LayerNorm(0) = its bias


def test_a_float_padding_mask() -> None:
    float_mask = np.where(np.array(PADDING), -np.inf, 0.0).astype(np.float32)
    out = _run(_encoder().eval(), padding=float_mask)
    assert (out[1, 2:] == 0).all()


@pytest.mark.parametrize(
    "case", ["training", "grad", "not_left_aligned", "with_mask", "disabled", "switched_off"]
)
def test_off_the_fast_path(case: str) -> None:
    encoder = _encoder(enable_nested_tensor=case != "disabled")
    if case != "training":
        encoder.eval()
    padding, options = PADDING, {}
    if case == "not_left_aligned":
        padding = [[False, False, False, False], [True, True, False, False]]
    if case == "with_mask":
        options["mask"] = symgrad.zeros(4, 4)
    if case == "grad":
        out = encoder(_src(), src_key_padding_mask=symgrad.tensor(padding)).detach().numpy()
    elif case == "switched_off":
        symgrad.backends.mha.set_fastpath_enabled(False)
        try:
            out = _run(encoder, padding)
        finally:
            symgrad.backends.mha.set_fastpath_enabled(True)
    else:
        out = _run(encoder, padding, **options)
    assert not (out == 0).all(axis=-1).any()


def test_pytorch_s_warning_when_the_layer_rules_the_fast_path_out() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, 16)  # batch_first=False
    with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested_"):
        encoder = nn.TransformerEncoder(layer, 1)
    assert not encoder.use_nested_tensor and encoder.enable_nested_tensor
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
    odd = nn.TransformerEncoderLayer(9, 3, 16, batch_first=True)
    with pytest.warns(UserWarning, match="num_heads is odd"):
        nn.TransformerEncoder(odd, 1)
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2).activation_relu_or_gelu == 1


def test_against_pytorch() -> None:
    torch = pytest.importorskip("torch")
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    reference = torch.nn.TransformerEncoder(layer, 2).eval()
    encoder = _encoder().eval()
    encoder.load_state_dict(
        {k: symgrad.tensor(v.numpy()) for k, v in reference.state_dict().items()}
    )
    src = _src().numpy()
    with torch.no_grad():
        expected = reference(torch.tensor(src), src_key_padding_mask=torch.tensor(PADDING))
    with symgrad.no_grad():
        out = encoder(symgrad.tensor(src), src_key_padding_mask=symgrad.tensor(PADDING))
    np.testing.assert_allclose(out.numpy(), expected.numpy(), atol=1e-5)


MISALIGNED = [[False, False, False, False], [True, True, False, False]]


def test_unchecked_mask_keeps_each_row_s_first_positions() -> None:
    # PyTorch's nested tensor takes each row's count of unpadded positions from its start
    unchecked = _run(_encoder(mask_check=False).eval(), padding=MISALIGNED)
    aligned = _run(_encoder().eval(), padding=PADDING)
    np.testing.assert_array_equal(unchecked, aligned)


@pytest.mark.torch
def test_unchecked_mask_against_pytorch() -> None:
    torch = pytest.importorskip("torch")
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    reference = torch.nn.TransformerEncoder(layer, 2, mask_check=False).eval()
    encoder = _encoder(mask_check=False).eval()
    encoder.load_state_dict(
        {k: symgrad.tensor(v.numpy()) for k, v in reference.state_dict().items()}
    )
    with torch.no_grad():
        expected = reference(
            torch.tensor(_src().numpy()), src_key_padding_mask=torch.tensor(MISALIGNED)
        )
    out = _run(encoder, padding=MISALIGNED)
    np.testing.assert_allclose(out, expected.numpy(), atol=1e-5)
