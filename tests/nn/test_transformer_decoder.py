"""MultiheadAttention with kdim/vdim, bias_kv and zero attention; TransformerDecoderLayer,
TransformerDecoder and the encoder-decoder Transformer."""

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn


def test_separate_projections_are_named_as_pytorch():
    attn = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True)
    shapes = {n: tuple(p.shape) for n, p in attn.named_parameters()}
    assert shapes == {
        "q_proj_weight": (4, 4),
        "k_proj_weight": (4, 3),
        "v_proj_weight": (4, 5),
        "in_proj_bias": (12,),
        "bias_k": (1, 1, 4),
        "bias_v": (1, 1, 4),
        "out_proj.weight": (4, 4),
        "out_proj.bias": (4,),
    }
    assert attn.in_proj_weight is None and not attn._qkv_same_embed_dim
    out, w = attn(symgrad.ones(2, 1, 4), symgrad.ones(6, 1, 3), symgrad.ones(6, 1, 5))
    assert out.shape == (2, 1, 4) and w.shape == (1, 2, 7)  # one more key: bias_k


def test_zero_attention_adds_a_key_of_score_zero():
    attn = nn.MultiheadAttention(2, 1, add_zero_attn=True, bias=False)
    with symgrad.no_grad():
        attn.in_proj_weight.zero_()  # every score 0: weights uniform over 3 + 1 keys
    _, w = attn(symgrad.ones(1, 1, 2), symgrad.ones(3, 1, 2), symgrad.ones(3, 1, 2))
    assert np.allclose(w.detach().numpy(), 0.25)
    pad = symgrad.tensor([[False, True, True]])
    _, w = attn(symgrad.ones(1, 1, 2), symgrad.ones(3, 1, 2), symgrad.ones(3, 1, 2),
                key_padding_mask=pad)  # fmt: skip
    assert np.allclose(w.detach().numpy(), [[[0.5, 0.0, 0.0, 0.5]]])


def test_decoder_and_transformer_structure():
    model = nn.Transformer(8, 2, 2, 1, dim_feedforward=16, dropout=0.0)
    names = list(model.state_dict())
    assert names[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "decoder.layers.0.multihead_attn.out_proj.bias" in names
    assert names[-2:] == ["decoder.norm.weight", "decoder.norm.bias"]
    assert len(model.encoder.layers) == 2 and len(model.decoder.layers) == 1
    src, tgt = symgrad.randn(5, 3, 8), symgrad.randn(4, 3, 8, requires_grad=True)
    out = model(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    assert out.shape == (4, 3, 8) and type(out.grad_fn).__name__ == "NativeLayerNormBackward0"
    out.sum().backward()
    assert tgt.grad.shape == (4, 3, 8)
    assert model(src[:, 0], tgt[:, 0]).shape == (4, 8)  # unbatched
    with pytest.raises(RuntimeError, match="batch number"):
        model(src, tgt[:, :2])
    with pytest.raises(RuntimeError, match="feature number"):
        model(src[..., :4], tgt)


def test_cloned_decoder_layer_with_a_module_activation_uses_relu():
    layer = nn.TransformerDecoderLayer(4, 1, 8, 0.0, nn.GELU())
    decoder = nn.TransformerDecoder(layer, 1)
    assert layer.activation.__class__ is nn.GELU
    assert decoder.layers[0].activation is nn.functional.relu  # as PyTorch's deepcopy
    assert "(activation): GELU(approximate='none')" in repr(decoder)


def _same_weights(ours, theirs, torch, seed):
    rs = np.random.RandomState(seed)
    state = {k: rs.randn(*v.shape) * 0.3 for k, v in theirs.state_dict().items()}
    assert list(ours.state_dict()) == list(state)
    theirs.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    ours.load_state_dict({k: symgrad.tensor(v) for k, v in state.items()})


def _grads(results):
    return [t.detach().numpy() for t in results[:-1]] + [results[-1]]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"kdim": 6, "vdim": 5},
        {"kdim": 6, "add_bias_kv": True},
        {"add_zero_attn": True, "add_bias_kv": True},
        {"vdim": 3, "add_zero_attn": True, "bias": False},
    ],
)
def test_attention_against_torch(options):
    torch = pytest.importorskip("torch")
    mods = [lib.nn.MultiheadAttention(8, 2, **options).double() for lib in (symgrad, torch)]
    _same_weights(*mods, torch, 0)
    assert repr(mods[0]) == repr(mods[1])
    rs = np.random.RandomState(1)
    q, k, v = (rs.randn(4, 3, 8), rs.randn(5, 3, options.get("kdim", 8)),
               rs.randn(5, 3, options.get("vdim", 8)))  # fmt: skip
    pad = np.zeros((3, 5), bool)
    pad[1, 3:] = True
    causal = np.triu(np.ones((4, 5)), 2) > 0
    outs = []
    for lib, m in zip((symgrad, torch), mods):
        x = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        o, w = m(*x, key_padding_mask=lib.tensor(pad), attn_mask=lib.tensor(causal))
        (o.sin().sum() + w.cos().sum()).backward()
        params = [p.grad for p in m.parameters()]
        outs.append(_grads([o, w, *(t.grad for t in x), *params, type(o.grad_fn).__name__]))
    for o, t in zip(*outs):
        assert o == t if isinstance(o, str) else np.allclose(o, t, atol=1e-10)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu", "module"])
def test_transformer_against_torch(batch_first, norm_first, activation):
    torch = pytest.importorskip("torch")
    mods = []
    for lib in (symgrad, torch):
        act = lib.nn.GELU() if activation == "module" else activation
        model = lib.nn.Transformer(8, 2, 2, 2, 16, 0.0, act, batch_first=batch_first,
                                   norm_first=norm_first)  # fmt: skip
        mods.append(model.double())
    _same_weights(*mods, torch, 3)
    assert repr(mods[0]) == repr(mods[1])
    rs = np.random.RandomState(1)
    src, tgt = rs.randn(2, 5, 8), rs.randn(2, 4, 8)
    if not batch_first:
        src, tgt = src.transpose(1, 0, 2), tgt.transpose(1, 0, 2)
    src_pad = np.zeros((2, 5), bool)
    src_pad[1, 3:] = True
    tgt_pad = np.zeros((2, 4), bool)
    tgt_pad[0, 3] = True
    outs = []
    for lib, m in zip((symgrad, torch), mods):
        s, t = lib.tensor(src, requires_grad=True), lib.tensor(tgt, requires_grad=True)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        pads = {
            "src_key_padding_mask": lib.tensor(src_pad),
            "tgt_key_padding_mask": lib.tensor(tgt_pad),
            "memory_key_padding_mask": lib.tensor(src_pad),
        }
        y = m(s, t, tgt_mask=mask, **pads)
        y.sin().sum().backward()
        params = [p.grad for p in m.parameters()]
        outs.append(_grads([y, s.grad, t.grad, *params, type(y.grad_fn).__name__]))
    for o, t in zip(*outs):
        assert o == t if isinstance(o, str) else np.allclose(o, t, atol=1e-10)


def test_gradcheck_of_cross_attention_with_separate_projections():
    attn = nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True, add_zero_attn=True)
    attn.double()
    q = symgrad.randn(2, 1, 4, dtype=symgrad.float64, requires_grad=True)
    k = symgrad.randn(3, 1, 3, dtype=symgrad.float64, requires_grad=True)
    v = symgrad.randn(3, 1, 2, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda *x: attn(*x)[0], (q, k, v))


def test_is_causal_needs_a_mask():
    attn = nn.MultiheadAttention(4, 1)
    x = symgrad.ones(3, 1, 4)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        attn(x, x, x, is_causal=True)
    layer = nn.TransformerDecoderLayer(4, 1, 8, 0.0)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        layer(x, symgrad.ones(2, 1, 4), tgt_is_causal=True)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    hinted = layer(x, symgrad.ones(2, 1, 4), tgt_mask=mask, tgt_is_causal=True)
    assert hinted.shape == (3, 1, 4)
