"""Transformers built from vramlab's preset YAMLs, in plain PyTorch eager modules.

Three families share one attention module:
  GPT-2 style: learned positions, nn.LayerNorm, q/k/v/o with biases, GELU (tanh) MLP,
               dropout 0.1, tied embeddings;
  Llama style: RoPE, RMSNorm as Hugging Face writes it, grouped-query attention with
               repeat_kv, the gated MLP down(silu(gate(x)) * up(x)), untied output layer;
  BERT style:  an encoder (Encoder): a norm over the embeddings (and BERT's token types),
               bidirectional attention, each sublayer's sum normalised after it (post-norm),
               exact GELU, the pooler (DistilBERT: a pre-classifier) and a sequence-
               classification head.
What the architecture keys of the preset say (widths, biases, norm, MLP, tying, dropout)
decides which parts a model gets; the parameter count matches vramlab's exactly.

Where a CPU run would keep something other than a GPU run, the modules ask for what
CUDA does, because vramlab estimates GPU memory:
  - nn.Dropout on the CPU makes its mask in the activation dtype and, in backward, an
    input-sized temporary; CUDA's fused kernels keep a 1-byte mask and make nothing else
    (FusedDropout).
  - CUDA's autocast runs softmax and layer norm in fp32 (both are on its autocast-to-float32
    list); CPU autocast in torch 1.13 leaves softmax in bf16 and does not cast layer norm's
    input.
and where torch 1.13 keeps more than current releases, they keep what current ones do
(RMSNorm's mean of squares).
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

DROPOUT_P = 0.1


class FusedDropout(torch.autograd.Function):
    """Dropout as CUDA's fused kernels run it (native_dropout and native_dropout_backward):
    forward makes the bool mask and the output, backward the input's gradient, and nothing
    else.  The CPU's native_dropout makes the mask in the input's dtype first, and its
    backward multiplies by the mask and by the scale apart (torch 1.13), an input-sized
    temporary each; torch.where reads the bool mask as it is."""

    @staticmethod
    def forward(ctx, x, p):
        mask = torch.empty(x.shape, dtype=torch.bool).bernoulli_(1 - p)
        ctx.save_for_backward(mask)
        ctx.scale = 1.0 / (1 - p)
        return torch.where(mask, x, 0.0).mul_(ctx.scale)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return torch.where(mask, grad, 0.0).mul_(ctx.scale), None


class Dropout(nn.Dropout):
    """nn.Dropout as CUDA runs it (FusedDropout), which keeps a bool mask."""

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        return FusedDropout.apply(x, self.p)


class RMSNorm(nn.Module):
    """Hugging Face's LlamaRMSNorm: normalises in fp32, scales in the input dtype.  The mean
    of squares is written as a sum over h: mean() saved its input for backward before
    PyTorch 2.2 (the squares, 4 bytes an element), later releases save only its size, as
    sum() does."""

    def __init__(self, hidden, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) / x.shape[-1] + self.eps)
        return self.weight * x.to(dtype)


class LayerNorm(nn.LayerNorm):
    """nn.LayerNorm as CUDA's autocast runs it: a 16-bit input cast to fp32 (a copy, which
    the norm saves), the output in fp32."""

    def forward(self, x):
        if torch.is_autocast_cpu_enabled():
            with torch.autocast("cpu", enabled=False):
                return super().forward(x.float())
        return super().forward(x)


def norm(arch):
    h = arch["hidden_size"]
    return LayerNorm(h) if arch["norm"] == "layernorm" else RMSNorm(h)


def encoder(arch):
    """BERT's shape, as vramlab reads it from a preset (vl_arch_encoder)."""
    return arch.get("norm_position") == "post" and bool(
        arch.get("pooler") or arch.get("token_types") or arch.get("embedding_norm"))


def rope_tables(seq, head_dim, dtype, base=10000.0):
    """cos and sin, (s, d), in the residual stream's dtype, made once for all layers."""
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
    freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    """(b, k, s, d) -> (b, k * n_rep, s, d), as Hugging Face's eager attention does."""
    if n_rep == 1:
        return x
    b, k, s, d = x.shape
    return x[:, :, None, :, :].expand(b, k, n_rep, s, d).reshape(b, k * n_rep, s, d)


class Attention(nn.Module):
    """Explicit softmax attention (no SDPA): q, k, v and o are separate nn.Linear."""

    def __init__(self, arch):
        super().__init__()
        h, a, k, d = (arch["hidden_size"], arch["num_heads"], arch["num_kv_heads"],
                      arch["head_dim"])
        qkv_bias, o_bias = arch["attention_bias"], arch["mlp_bias"]
        self.heads, self.kv_heads, self.head_dim = a, k, d
        self.causal = not encoder(arch)
        # transformers' eager attention: softmax(..., dtype=float32).to(dtype) in 16 bits
        self.softmax_fp32 = arch.get("_softmax_fp32", False)
        self.q = nn.Linear(h, a * d, bias=qkv_bias)
        self.k = nn.Linear(h, k * d, bias=qkv_bias)
        self.v = nn.Linear(h, k * d, bias=qkv_bias)
        self.o = nn.Linear(a * d, h, bias=o_bias)
        p = DROPOUT_P if arch["dropout"] else 0.0
        self.attn_drop, self.resid_drop = Dropout(p), Dropout(p)

    def forward(self, x, cos=None, sin=None):
        return self.resid_drop(self.o(self.core(x, cos, sin)))

    def core(self, x, cos, sin):
        """Everything before the output projection, which frees its variables as it returns
        (BertSelfAttention before BertSelfOutput)."""
        b, s, _ = x.shape
        a, k_heads, d = self.heads, self.kv_heads, self.head_dim
        q = self.q(x).view(b, s, a, d).transpose(1, 2)
        k = self.k(x).view(b, s, k_heads, d).transpose(1, 2)
        v = self.v(x).view(b, s, k_heads, d).transpose(1, 2)
        if cos is not None:
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
        k, v = repeat_kv(k, a // k_heads), repeat_kv(v, a // k_heads)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        # transformers' encoder classes name the scores apart from the probabilities
        # (BertSelfAttention's attention_scores, DistilBERT's scores): held to the return
        scores = None if self.causal else att  # noqa: F841
        if self.causal:
            att = att + torch.full((s, s), float("-inf"), dtype=att.dtype).triu(1)
        if torch.is_autocast_cpu_enabled():
            att = torch.softmax(att, dim=-1, dtype=torch.float32)
        elif self.softmax_fp32:
            att = torch.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
        else:
            att = torch.softmax(att, dim=-1)
        att = self.attn_drop(att)
        return (att @ v).transpose(1, 2).reshape(b, s, a * d)


class LoRA(nn.Module):
    """PEFT's LoRA layer without dropout: the frozen base plus B(A(x)) * alpha / r.  With
    cast_input, PEFT's LoRA over a 4-bit layer (peft/tuners/lora/bnb.py, Linear4bit.forward)
    with its adapters in fp32 and no autocast: the base's output cloned, the input cast to
    the adapters' dtype for this adapter, the product cast back."""

    def __init__(self, base, rank, alpha=16):
        super().__init__()
        self.base = base
        self.A = nn.Linear(base.in_features, rank, bias=False)
        self.B = nn.Linear(rank, base.out_features, bias=False)
        nn.init.zeros_(self.B.weight)
        self.scaling = alpha / rank
        self.cast_input = False

    def forward(self, x):
        if self.cast_input:
            result = self.base(x).clone()
            out = self.B(self.A(x.to(self.A.weight.dtype))) * self.scaling
            return result + out.to(result.dtype)
        return self.base(x) + self.B(self.A(x)) * self.scaling


def add_lora(model, rank, targets, input_grad=True):
    """Freezes the model and puts an adapter of rank on the attention projections named in
    targets ("q", "k", "v", "o") and, for "head", on the output layer.  With input_grad the
    embeddings' output asks for a gradient, as transformers' enable_input_require_grads
    makes it, so that the first layer keeps what the others keep; without, as LitGPT leaves
    it, the first layer's norm keeps nothing (frozen_embeddings_grad in
    vramlab-presets(5))."""
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for t in targets:
            if t != "head":
                setattr(layer.attn, t, LoRA(getattr(layer.attn, t), rank))
    if "head" in targets:
        model.lm_head = LoRA(model.lm_head, rank)
    if input_grad:
        model.tok.register_forward_hook(lambda mod, inputs, out: out.requires_grad_(True))


class MatMul4Bit(torch.autograd.Function):
    """bitsandbytes' MatMul4Bit before 0.43.2 (bitsandbytes/autograd/_functions.py): the
    matrix dequantized, multiplied and dropped; the input kept as an attribute of the
    autograd context, ctx.tensors = (A, B), which backward does not release (not
    save_for_backward); backward dequantizes the matrix again for the input's gradient."""

    @staticmethod
    def forward(ctx, A, B, bias, state):
        output = F.linear(A, dequantize_4bit(B, state).to(A.dtype).t(), bias)
        ctx.state = state
        ctx.tensors = (A, B) if any(ctx.needs_input_grad[:2]) else (None, None)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        A, B = ctx.tensors
        grad_A = None
        if ctx.needs_input_grad[0]:
            grad_A = torch.matmul(grad_output,
                                  dequantize_4bit(B, ctx.state).to(grad_output.dtype).t())
        return grad_A, None, None, None


def dequantize_4bit(B, state):
    """The kernel's output, the whole matrix in the dtype it was quantized from, made but
    not computed (nothing measured here depends on the values); transposed back, as
    bitsandbytes returns it for the transposed codes Linear4bit passes."""
    shape, dtype = state
    out = torch.zeros(shape, dtype=dtype)
    return out.t() if B.shape[0] == 1 else out


class Linear4bit(nn.Module):
    """A frozen nn.Linear as bitsandbytes' Linear4bit holds it once load_in_4bit has
    quantized it: NF4 codes two to a byte and an fp32 absmax a block of 64 values (no
    double quantization; a parameter here, so that the measured state counts it).  Its
    forward as 0.41 and 0.42 run it (nn/modules.py): the input cast to the compute dtype,
    the dtype the matrix was quantized from here, the output cast back."""

    def __init__(self, base):
        super().__init__()
        n = base.weight.numel()
        self.weight = nn.Parameter(torch.zeros((n + 1) // 2, 1, dtype=torch.uint8),
                                   requires_grad=False)
        self.absmax = nn.Parameter(torch.zeros(-(-n // 64)), requires_grad=False)
        self.bias = base.bias
        self.state = (tuple(base.weight.shape), base.weight.dtype)

    def forward(self, x):
        dtype = x.dtype
        bias = None if self.bias is None else self.bias.to(self.state[1])
        return MatMul4Bit.apply(x.to(self.state[1]), self.weight.t(), bias, self.state).to(dtype)


def quantize_4bit(model):
    """Every frozen nn.Linear of the layers made a Linear4bit, as load_in_4bit makes them
    (the output layer and the adapters stay as they are)."""
    for layer in model.layers:
        for mod in list(layer.modules()):
            for name, child in list(mod.named_children()):
                if type(child) is nn.Linear and not child.weight.requires_grad:
                    setattr(mod, name, Linear4bit(child))


class MLP(nn.Module):
    def __init__(self, arch):
        super().__init__()
        h, f, bias = arch["hidden_size"], arch["intermediate_size"], arch["mlp_bias"]
        self.gated = arch["mlp"] == "gated"
        if self.gated:
            self.gate = nn.Linear(h, f, bias=bias)
        self.up = nn.Linear(h, f, bias=bias)
        self.down = nn.Linear(f, h, bias=bias)
        self.drop = Dropout(DROPOUT_P if arch["dropout"] else 0.0)
        self.gelu = "none" if encoder(arch) else "tanh"  # BERT's exact GELU, GPT-2's tanh

    def forward(self, x):
        if self.gated:
            return self.drop(self.down(F.silu(self.gate(x)) * self.up(x)))
        return self.drop(self.down(F.gelu(self.up(x), approximate=self.gelu)))


class Block(nn.Module):
    def __init__(self, arch):
        super().__init__()
        self.norm1, self.attn = norm(arch), Attention(arch)
        self.norm2, self.mlp = norm(arch), MLP(arch)

    def forward(self, x, cos=None, sin=None):
        x = x + self.attn(self.norm1(x), cos, sin)
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, arch, recompute=False):
        super().__init__()
        if arch["parallel_attention"] or arch.get("experts", 1) > 1 or arch["position"] == "alibi":
            raise ValueError("parallel attention, experts and ALiBi are not built here")
        h, V = arch["hidden_size"], arch["vocab_size"]
        self.arch, self.recompute = arch, recompute
        self.tok = nn.Embedding(V, h)
        self.pos = (nn.Embedding(arch["max_position_embeddings"], h)
                    if arch["position"] == "learned" else None)
        self.drop = Dropout(DROPOUT_P if arch["dropout"] else 0.0)
        self.layers = nn.ModuleList(Block(arch) for _ in range(arch["num_layers"]))
        self.norm = norm(arch)
        self.head_entry = self.norm  # where the loss's phase begins
        self.lm_head = nn.Linear(h, V, bias=False)
        if arch["tie_embeddings"]:
            self.lm_head.weight = self.tok.weight

    def targets(self, batch, seq):
        """The next token at every position."""
        return torch.randint(self.arch["vocab_size"], (batch, seq))

    def hidden(self, ids):
        """The final norm's output."""
        s = ids.shape[1]
        x = self.tok(ids)
        if self.pos is not None:
            x = x + self.pos(torch.arange(s))
        x = self.drop(x)
        rope = ()
        if self.arch["position"] == "rope":
            rope = rope_tables(s, self.arch["head_dim"], x.dtype)
        for layer in self.layers:
            x = checkpoint(layer, x, *rope) if self.recompute else layer(x, *rope)
        return self.norm(x)

    def forward(self, ids, targets):
        b, s = ids.shape
        logits = self.lm_head(self.hidden(ids))
        return F.cross_entropy(logits.float().view(b * s, -1), targets.view(b * s))

    def chunked(self, ids, targets, chunk):
        """LitGPT's loop under Lightning Fabric: the head on `chunk` positions at a time
        (lm_head_chunk_size), the list cast to fp32 once the model returns it, as Fabric
        returns a module's outputs (precision.convert_output), and cross-entropy chunk by
        chunk (chunked_cross_entropy).  Returns the logits, which the loop holds through
        backward, and the loss."""
        x = self.hidden(ids)
        logits = [self.lm_head(xi) for xi in x.split(chunk, dim=1)]
        logits = [c.float() for c in logits]
        losses = [F.cross_entropy(c.reshape(-1, c.size(-1)), t.reshape(-1), reduction="none")
                  for c, t in zip(logits, targets.split(chunk, dim=1))]
        return logits, torch.cat(losses).mean()


class PostBlock(nn.Module):
    """BERT's layer (BertLayer): attention and the MLP each add their input back, and the
    sum is normalised (post-norm)."""

    def __init__(self, arch):
        super().__init__()
        self.attn, self.norm1 = Attention(arch), norm(arch)
        self.mlp, self.norm2 = MLP(arch), norm(arch)

    def forward(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.mlp(x))


class Encoder(nn.Module):
    """BertForSequenceClassification and DistilBertForSequenceClassification as transformers
    writes them, without the padding mask: the word, token-type (BERT) and position
    embeddings summed and normalised, post-norm layers, then the first position's state
    through BERT's pooler (an h x h layer and tanh) or DistilBERT's pre-classifier (an h x h
    layer and ReLU), a classifier over `labels` classes and cross-entropy on its logits."""

    def __init__(self, arch, recompute=False, labels=2):
        super().__init__()
        h, n = arch["hidden_size"], arch["max_position_embeddings"]
        self.arch, self.recompute, self.labels = arch, recompute, labels
        self.tok = nn.Embedding(arch["vocab_size"], h)
        self.types = nn.Embedding(arch["token_types"], h) if arch.get("token_types") else None
        self.pos = nn.Embedding(n, h)
        # the token types and positions as the embeddings module holds them: buffers it slices
        self.register_buffer("type_ids", torch.zeros(1, n, dtype=torch.long))
        self.register_buffer("position_ids", torch.arange(n).unsqueeze(0))
        self.emb_norm = norm(arch)
        self.drop = Dropout(DROPOUT_P if arch["dropout"] else 0.0)
        self.layers = nn.ModuleList(PostBlock(arch) for _ in range(arch["num_layers"]))
        self.dense = nn.Linear(h, h)  # the pooler's, or DistilBERT's pre-classifier
        self.activation = torch.tanh if arch.get("pooler") else torch.relu
        self.head_entry = self.dense  # where the loss's phase begins
        self.classifier = nn.Linear(h, labels)

    def targets(self, batch, seq):
        """A class a sequence."""
        return torch.randint(self.labels, (batch,))

    def forward(self, ids, targets):
        b, s = ids.shape
        x = self.tok(ids)
        if self.types is not None:
            x = x + self.types(self.type_ids[:, :s].expand(b, s))
        x += self.pos(self.position_ids[:, :s])
        x = self.drop(self.emb_norm(x))
        for layer in self.layers:
            x = checkpoint(layer, x) if self.recompute else layer(x)
        pooled = self.activation(self.dense(x[:, 0]))
        return F.cross_entropy(self.classifier(self.drop(pooled)).float(), targets)


def build(arch, recompute=False):
    """The model of a completed architecture: an Encoder for BERT's shape, else a
    Transformer."""
    return Encoder(arch, recompute) if encoder(arch) else Transformer(arch, recompute)


def complete(arch):
    """The preset's architecture with vramlab's defaults filled in (HACKING §3)."""
    a = dict(arch)
    a.setdefault("num_kv_heads", a["num_heads"])
    a.setdefault("head_dim", a["hidden_size"] // a["num_heads"])
    a.setdefault("intermediate_size", 4 * a["hidden_size"])
    for key in ("attention_bias", "mlp_bias", "tie_embeddings", "parallel_attention",
                "dropout"):
        a.setdefault(key, False)
    a.setdefault("mlp", "gated")
    a.setdefault("norm", "rmsnorm")
    a.setdefault("position", "rope")
    return a


def from_preset(presets, preset, layers, divisor, dropout):
    """The architecture of presets/PRESET.yaml cut to `layers` layers, its widths divided
    by `divisor` (the head dimension kept), with dropout on or off."""
    import yaml
    with open(os.path.join(presets, preset + ".yaml")) as f:
        arch = dict(yaml.safe_load(f)["architecture"])
    arch["num_layers"] = layers
    arch["dropout"] = dropout
    if divisor != 1:
        head_dim = complete(arch)["head_dim"]
        for key in ("hidden_size", "num_heads", "num_kv_heads", "intermediate_size"):
            if key in arch:
                arch[key] //= divisor
        arch["head_dim"] = head_dim
    return arch
