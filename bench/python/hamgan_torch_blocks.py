"""The context blocks of the C++ library in PyTorch eager Python, for bench/python/hamgan_torch.py: none, the
NMF Hamburger (modules/ham_block.cpp, ham_decomposition.cpp) and SAGAN self-attention (modules/attention.cpp)."""
import torch
import torch.nn.functional as F
from torch import nn

from hamgan_torch_layers import ConditionalBN, SNConv2d, fp32_region

HAM_EPS = 1e-6  # modules/ham_decomposition.h kHamEps


class NoneBlock(nn.Module):
    def forward(self, x, y=None):
        return x


class HamBlock(nn.Module):
    """NMF Hamburger (modules/ham_block.cpp): lower 1x1 SN conv, ReLU, K multiplicative NMF steps from
    U[0,1) bases without autograd (one-step) or with it (bptt), upper 1x1 SN conv, x + sigma * out."""

    def __init__(self, c, ctx, classes, init):
        super().__init__()
        self.c, self.r, self.k = c, ctx["rank"], ctx["steps"]
        self.one_step, self.t = ctx["gradient"] == "one-step", ctx["temperature"]
        self.lower = SNConv2d(c, c, 1, bias=False, exact=True, init=init)
        self.upper = SNConv2d(c, c, 1, bias=False, exact=True, init=init)
        self.bn = ConditionalBN(c, classes) if classes > 0 else None
        self.sigma = nn.Parameter(torch.zeros(()))

    def forward(self, x, y=None):
        b, c, n = x.size(0), self.c, x.size(2) * x.size(3)
        w_low = self.lower.normalized_weight().reshape(c, c)
        X = torch.relu(torch.bmm(w_low.expand(b, c, c), x.reshape(b, c, n)))  # (B, d, n)
        bases = torch.rand(b, c, self.r, device=x.device)
        with fp32_region(x.device):  # the decomposition is float32 (ham_decomposition.cpp)
            codes, bases = self.decompose(X.float(), bases)
        w_up = self.upper.normalized_weight().reshape(c, c)
        if self.bn is not None:
            out = torch.bmm(w_up.expand(b, c, c), torch.bmm(bases, codes.transpose(1, 2)))
            return x + self.sigma * self.bn(out.view(x.shape), y)
        m = torch.matmul(w_up, bases) * self.sigma
        return torch.baddbmm(x.reshape(b, c, n), m, codes.transpose(1, 2)).view(x.shape)

    def decompose(self, X, bases):
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.one_step):
            Xs = X.detach() if self.one_step else X
            codes = torch.softmax(torch.bmm(Xs.transpose(1, 2), bases) / self.t, -1)
            for _ in range(self.k):
                codes = codes * torch.bmm(Xs.transpose(1, 2), bases) / (
                    torch.bmm(codes, torch.bmm(bases.transpose(1, 2), bases)) + HAM_EPS)
                bases = bases * torch.bmm(Xs, codes) / (torch.bmm(bases, torch.bmm(codes.transpose(1, 2), codes)) + HAM_EPS)
        if self.one_step:  # one more code update, the only step autograd sees
            with torch.no_grad():
                scale = codes / (torch.bmm(codes, torch.bmm(bases.transpose(1, 2), bases)) + HAM_EPS)
            codes = torch.bmm(X.transpose(1, 2), bases) * scale
        else:
            codes = codes * torch.bmm(X.transpose(1, 2), bases) / (
                torch.bmm(codes, torch.bmm(bases.transpose(1, 2), bases)) + HAM_EPS)
        return codes, bases


class SelfAttention(nn.Module):
    """SAGAN self-attention (modules/attention.cpp): theta, phi (C -> C/8), g (C -> C/2), o (C/2 -> C),
    bias-free 1x1 convs with exact SN; keys and values 2x2 max-pooled; softmax over the keys without
    1/sqrt(d) scale; x + sigma * o(out)."""

    def __init__(self, c, init):
        super().__init__()
        self.c = c
        self.theta = SNConv2d(c, c // 8, 1, bias=False, exact=True, init=init)
        self.phi = SNConv2d(c, c // 8, 1, bias=False, exact=True, init=init)
        self.g = SNConv2d(c, c // 2, 1, bias=False, exact=True, init=init)
        self.o = SNConv2d(c // 2, c, 1, bias=False, exact=True, init=init)
        self.sigma = nn.Parameter(torch.zeros(()))

    def forward(self, x, y=None):
        b, n = x.size(0), x.size(2) * x.size(3)
        q = self.theta(x).reshape(b, -1, n)
        k = F.max_pool2d(self.phi(x), 2).reshape(b, -1, n // 4)
        v = F.max_pool2d(self.g(x), 2).reshape(b, -1, n // 4)
        attn = torch.softmax(torch.bmm(q.transpose(1, 2), k).float(), -1)  # float32 softmax, as attention.cpp
        out = torch.bmm(v, attn.transpose(1, 2).to(v.dtype)).view(b, self.c // 2, x.size(2), x.size(3))
        return x + self.sigma * self.o(out)


def context_block(ctx, c, classes, init):
    if ctx["name"] == "sa":
        return SelfAttention(c, init)
    return NoneBlock() if ctx["name"] == "none" else HamBlock(c, ctx, classes, init)
