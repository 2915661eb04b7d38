"""MultiheadAttention, TransformerEncoderLayer, TransformerEncoder and the causal mask."""

import math

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn


def test_attention_of_equal_keys_is_uniform_and_masks_apply():
    attn = nn.MultiheadAttention(4, 2)
    x = symgrad.ones(3, 1, 4)  # (L, N, E): every key the same
    out, w = attn(x, x, x)
    assert out.shape == (3, 1, 4) and w.shape == (1, 3, 3)
    assert np.allclose(w.detach().numpy(), 1 / 3)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.tolist() == [[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf], [0.0] * 3]
    _, w = attn(x, x, x, attn_mask=mask)
    assert np.allclose(w[0].detach().numpy(), [[1, 0, 0], [0.5, 0.5, 0], [1 / 3] * 3])
    _, w = attn(x, x, x, key_padding_mask=symgrad.tensor([[False, False, True]]))
    assert np.allclose(w[0].detach().numpy(), [[0.5, 0.5, 0.0]] * 3)
    _, w = attn(x, x, x, is_causal=True, attn_mask=mask, average_attn_weights=False)
    assert w.shape == (1, 2, 3, 3)
    assert attn(x[:, 0], x[:, 0], x[:, 0], need_weights=False)[1] is None


def test_parameters_and_encoder_shapes():
    attn = nn.MultiheadAttention(8, 2, batch_first=True)
    names = [n for n, _ in attn.named_parameters()]
    assert names == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert attn.in_proj_bias.abs().sum().item() == 0
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
    x = symgrad.randn(2, 5, 8, requires_grad=True)
    enc(x).sum().backward()
    assert x.grad.shape == (2, 5, 8) and len(enc.layers) == 2
    with pytest.raises(AssertionError):
        nn.MultiheadAttention(6, 4)
    with pytest.raises(RuntimeError, match="relu/gelu"):
        nn.TransformerDecoderLayer(8, 2, activation="tanh")


def _same_weights(ours, theirs, torch, seed):
    rs = np.random.RandomState(seed)
    state = {k: rs.randn(*v.shape) * 0.3 for k, v in theirs.state_dict().items()}
    theirs.load_state_dict({k: torch.tensor(v, dtype=torch.float32) for k, v in state.items()})
    ours.load_state_dict({k: symgrad.tensor(v, dtype=symgrad.float32) for k, v in state.items()})


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_against_torch(batch_first, norm_first):
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(1)
    data = rs.randn(2, 5, 8).astype(np.float32)
    kpm = np.array([[False] * 5, [False] * 3 + [True] * 2])
    results = []
    for lib in (symgrad, torch):
        layer = lib.nn.TransformerEncoderLayer(
            8, 2, 16, 0.0, "gelu", batch_first=batch_first, norm_first=norm_first
        )
        attn = lib.nn.MultiheadAttention(8, 4, batch_first=batch_first)
        results.append((lib, layer, attn))
    _same_weights(results[0][1], results[1][1], torch, 2)
    _same_weights(results[0][2], results[1][2], torch, 3)
    outs = []
    for lib, layer, attn in results:
        layer.eval()
        x = lib.tensor(data if batch_first else data.transpose(1, 0, 2), requires_grad=True)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(5)
        pad = lib.tensor(kpm)
        y = layer(x, src_mask=mask, src_key_padding_mask=pad)
        a, w = attn(x, x, x, key_padding_mask=pad, average_attn_weights=False)
        (y.sum() + (a * a).sum() + w[:, 0].sum()).backward()
        outs.append([t.detach().numpy() for t in (y, a, w, x.grad, attn.in_proj_weight.grad)])
        outs[-1].append(type(a.grad_fn).__name__)
    for o, t in zip(*outs):
        assert o == t if isinstance(o, str) else np.allclose(o, t, atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_encoder_warns_once_of_mismatched_masks_under_its_own_names(training):
    """The encoder turns both masks into additive masks before its layers see them, so a bool
    padding mask with a float ``mask`` warns once, naming the encoder's arguments."""
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).train(training)
    x = symgrad.randn(4, 2, 8)
    padding = symgrad.tensor([[False, False, True, True], [False] * 4])
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    with pytest.warns(UserWarning) as record:
        out = encoder(x, mask=mask, src_key_padding_mask=padding)
    assert [str(w.message) for w in record] == [
        "Support for mismatched src_key_padding_mask and mask is deprecated. Use same type for "
        "both instead."
    ]
    float_padding = symgrad.zeros(2, 4).masked_fill(padding, -math.inf)
    same = encoder(x, mask=mask, src_key_padding_mask=float_padding)
    assert np.array_equal(out.detach().numpy(), same.detach().numpy(), equal_nan=True)
