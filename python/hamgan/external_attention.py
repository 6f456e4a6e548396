"""The `ea` context block, External Attention (modules/ea_block.cpp; Guo et al., arXiv 2105.02358):
q = SN 1x1 conv (C -> C), split into H contiguous heads of d = C/H channels; logits M_k q (M_k an SN S x d
memory shared by the heads); softmax over the n positions, then L1 over the S slots (1e-9 + sum); M_v (SN
d x S) back to d channels, heads concatenated; o = SN 1x1 conv (C -> C); class-conditional BN on o in G
(classes > 0 and ea_cbn); y = x + sigma * o, sigma a scalar initialised 0. All four maps bias-free, W / sigma.
"""
import torch
from torch import nn

from .layers import ConditionalBN, SNConv2d

L1_EPS = 1e-9  # model_torch.py: attn / (1e-9 + attn.sum(dim=1))


def _widened(logits):
    # 1e-9 underflows in float16: half-precision logits are normalised in float32, as ea_block.cpp does.
    return logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits


def double_normalize(logits):
    """Softmax over n (last dim), then division by 1e-9 + the sum over the S slots (dim -2)."""
    a = torch.softmax(_widened(logits), -1)
    return a / (a.sum(-2, keepdim=True) + L1_EPS)


class ExternalAttention(nn.Module):
    """`ea` with the model keys ea_memory (S), ea_heads (H, dividing C) and ea_cbn. Tensor names as the C++
    module registers them: query, memory_key, memory_value, out, bn (G with ea_cbn only), sigma."""

    def __init__(self, channels, opts, classes=0, init="xavier"):
        super().__init__()
        s, h, cbn = int(opts.get("ea_memory", 64)), int(opts.get("ea_heads", 1)), bool(opts.get("ea_cbn", True))
        if s < 1 or h < 1:
            raise ValueError(f"ea: ea_memory and ea_heads must be at least 1, got {s} and {h}")
        if channels % h:
            raise ValueError(f"ea: channels {channels} are not divisible by ea_heads {h}; pick ea_heads dividing "
                             f"the block's channels")
        c, d = channels, channels // h
        self.channels, self.memory, self.heads, self.head_dim = c, s, h, d
        self.query = SNConv2d(c, c, 1, bias=False, exact=True, init=init)
        self.memory_key = SNConv2d(d, s, 1, bias=False, exact=True, init=init)    # M_k (S x d)
        self.memory_value = SNConv2d(s, d, 1, bias=False, exact=True, init=init)  # M_v (d x S)
        self.out = SNConv2d(c, c, 1, bias=False, exact=True, init=init)
        self.bn = ConditionalBN(c, classes) if classes > 0 and cbn else None
        self.sigma = nn.Parameter(torch.zeros(()))

    def forward(self, x, y=None):
        c, s, h, d = self.channels, self.memory, self.heads, self.head_dim
        if x.dim() != 4 or x.size(1) != c:
            raise ValueError(f"ea: expected input (N, {c}, H, W), got {tuple(x.shape)}")
        if self.bn is not None and (y is None or y.dim() != 1 or y.size(0) != x.size(0)):
            raise ValueError("ea: class-conditional BN needs labels of shape (N,) with N = batch size")
        b, n = x.size(0), x.size(2) * x.size(3)
        # Each normalised weight once per forward: in training each call advances SN's power iteration.
        wq = self.query.normalized_weight().reshape(c, c)
        wk = self.memory_key.normalized_weight().reshape(s, d)
        wv = self.memory_value.normalized_weight().reshape(d, s)
        wo = self.out.normalized_weight().reshape(c, c)
        x_flat = x.reshape(b, c, n)
        if h == 1:
            # The back-to-back linear maps folded once per forward: (M_k W_q) x and (W_o M_v) A.
            attn = double_normalize(torch.matmul(wk.mm(wq), x_flat)).to(x.dtype)  # (B, S, n)
            value = wo.mm(wv)                                                     # (C, S)
            if self.bn is not None:
                return x + self.sigma * self.bn(torch.matmul(value, attn).view(x.shape), y)
            return torch.baddbmm(x_flat, (value * self.sigma).expand(b, c, s), attn).view(x.shape)
        q = torch.matmul(wq, x_flat).view(b, h, d, n)                      # contiguous channel blocks per head
        attn = double_normalize(torch.matmul(wk, q)).to(x.dtype)          # (B, H, S, n)
        out = torch.matmul(wo, torch.matmul(wv, attn).reshape(b, c, n)).view(x.shape)
        return x + self.sigma * (self.bn(out, y) if self.bn is not None else out)

    def extra_repr(self):
        return f"C={self.channels}, S={self.memory}, H={self.heads}{', cbn' if self.bn is not None else ''}"
