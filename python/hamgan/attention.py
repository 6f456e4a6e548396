"""The context blocks `none`, `sa` and `sa_dense` (modules/none_block.cpp, modules/attention.cpp)."""
import torch
import torch.nn.functional as F
from torch import nn

from .layers import SNConv2d


class NoneBlock(nn.Module):
    """Identity: G and D always own a `context` module, with no tensors for this block."""

    def __init__(self, channels=0, opts=None, classes=0, init="xavier"):
        super().__init__()

    def forward(self, x, y=None):
        return x


class SelfAttention(nn.Module):
    """SAGAN self-attention: theta, phi (C -> C/8), g (C -> C/2), o (C/2 -> C), bias-free 1x1 convs with exact
    SN (W / sigma); pooled: keys and values 2x2 max-pooled (`sa`), else all H*W keys (`sa_dense`); softmax
    over the keys without a 1/sqrt(d) scale; x + sigma * o(out), sigma a scalar initialised 0."""

    def __init__(self, channels, opts=None, classes=0, init="xavier", pooled=True):
        super().__init__()
        name = "sa" if pooled else "sa_dense"
        if channels < 8 or channels % 8:
            raise ValueError(f"context block {name} needs channels divisible by 8 (C/8 query/key channels), "
                             f"got {channels}")
        c = channels
        self.channels, self.pooled, self.name = c, pooled, name
        self.theta = SNConv2d(c, c // 8, 1, bias=False, exact=True, init=init)
        self.phi = SNConv2d(c, c // 8, 1, bias=False, exact=True, init=init)
        self.g = SNConv2d(c, c // 2, 1, bias=False, exact=True, init=init)
        self.o = SNConv2d(c // 2, c, 1, bias=False, exact=True, init=init)
        self.sigma = nn.Parameter(torch.zeros(()))

    def forward(self, x, y=None):
        if x.dim() != 4 or x.size(1) != self.channels or (self.pooled and (x.size(2) % 2 or x.size(3) % 2)):
            raise ValueError(f"context block {self.name}: expected (N, {self.channels}, H, W)"
                             f"{' with even H and W' if self.pooled else ''}, got {tuple(x.shape)}")
        b, h, w = x.size(0), x.size(2), x.size(3)
        n = h * w
        pool = (lambda t: F.max_pool2d(t, 2)) if self.pooled else (lambda t: t)
        q = self.theta(x).reshape(b, -1, n)          # (B, C/8, N)
        k = pool(self.phi(x)).reshape(b, self.channels // 8, -1)  # (B, C/8, keys)
        v = pool(self.g(x)).reshape(b, self.channels // 2, -1)    # (B, C/2, keys)
        attn = torch.softmax(torch.bmm(q.transpose(1, 2), k).float(), -1)  # float32 softmax, as attention.cpp
        out = torch.bmm(v, attn.transpose(1, 2).to(v.dtype)).view(b, self.channels // 2, h, w)
        return x + self.sigma * self.o(out)


class DenseSelfAttention(SelfAttention):
    """`sa_dense`: SAGAN's channel split over all H*W keys (the Hamburger paper's Table 3 SA, unpooled)."""

    def __init__(self, channels, opts=None, classes=0, init="xavier"):
        super().__init__(channels, opts, classes, init, pooled=False)
