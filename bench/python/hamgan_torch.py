"""The networks of a HamGAN config in PyTorch eager Python, for bench/python/train_step.py: built from
what `hamgan model-info --config F` prints, with the layers of the C++ library (gan/model/*.cpp,
modules/spectral_norm.cpp, conditional_bn.cpp, attention.cpp, ham_block.cpp, ham_decomposition.cpp).

Under bf16 autocast the same parts stay float32 as in the library (modules/fp32_region.h): spectral
norm's power iteration and W / sigma, batch-norm statistics and normalisation, attention softmaxes and
the Hamburger's decomposition; convolutions and the other matrix products run in bf16."""
import re
import subprocess

import torch
import torch.nn.functional as F
from torch import nn

HAM_EPS = 1e-6  # modules/ham_decomposition.h kHamEps


# ---------------------------------------------------------------- model-info

def model_info(hamgan, config):
    """The model as `hamgan model-info` describes it: header values, each net's context and part parameter counts."""
    text = subprocess.run([hamgan, "model-info", "--config", config], check=True, capture_output=True,
                          text=True).stdout
    header = dict(re.findall(r"(\w+) (\w+)(?:,|$)", text.splitlines()[0].split(":", 1)[1]))
    info = {k: int(header[k]) for k in ("resolution", "image_channels", "num_classes", "z_dim", "g_ch", "d_ch")}
    info["init"] = header["init"]
    info["side"] = int(re.search(r"context at (\d+)x", text).group(1))
    for net in ("G", "D"):
        m = re.search(rf"^{net} \(context: (.*)\)$", text, re.M)
        info[net + "_context"] = m.group(1)
        section = text.split(f"\n{net} (context:")[1].split("\n", 1)[1]
        info[net + "_total"] = int(re.search(r"^\s+total\s+([\d,]+)", section, re.M).group(1).replace(",", ""))
    return info


def parse_context(description):
    """'none', 'sa(C=256, qk=32, v=128, pooled keys)' or 'ham(nmf, d=32, r=4, K=6/6, one-step, T=1,
    init=random, cbn)' -> dict."""
    if description == "none":
        return {"name": "none"}
    if description.startswith("sa("):
        if not description.endswith("pooled keys)"):
            raise SystemExit(f"train_step.py: context block '{description}' is not reproduced here (sa: pooled keys only)")
        return {"name": "sa"}
    m = re.match(r"ham\((\w+), d=\d+, r=(\d+), K=(\d+)/\d+, ([\w-]+), T=([\d.e+-]+), init=(\w+)", description)
    if not m or m.group(1) != "nmf" or m.group(6) != "random":
        raise SystemExit(f"train_step.py: context block '{description}' is not reproduced here (none, sa, ham nmf random)")
    return {"name": "ham", "rank": int(m.group(2)), "steps": int(m.group(3)), "gradient": m.group(4),
            "temperature": float(m.group(5))}


# ---------------------------------------------------------------- layers

def fp32_region(device):
    """Autocast off: what runs inside stays float32 (modules/fp32_region.h's Fp32Region)."""
    return torch.autocast(device.type, enabled=False)


def l2_normalize(x, eps=1e-12):
    return x * torch.rsqrt(torch.clamp_min(x.square().sum(), eps))


def spectral_normalize(weight, u, exact, update):
    with fp32_region(weight.device):
        return spectral_normalize_fp32(weight, u, exact, update)


def spectral_normalize_fp32(weight, u, exact, update):
    w = weight.reshape(weight.size(0), -1)
    with torch.no_grad():
        v = l2_normalize(torch.mv(w.t(), u))
        u_new = l2_normalize(torch.mv(w, v))
        if update:
            u.copy_(u_new)
    sigma = torch.dot(u_new, torch.mv(w, v))
    return weight / (sigma if exact else torch.clamp_min(sigma, 1.0))


def init_weight(w, fan_in, fan_out, scheme):
    with torch.no_grad():
        if scheme == "xavier":
            bound = (6.0 / (fan_in + fan_out)) ** 0.5
            w.uniform_(-bound, bound)
        elif scheme == "orthogonal":
            nn.init.orthogonal_(w)
        else:
            w.normal_(0.0, 0.02)


class SNConv2d(nn.Module):
    def __init__(self, cin, cout, k, bias=True, exact=False, init="xavier"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(cout, cin, k, k))
        self.bias = nn.Parameter(torch.zeros(cout)) if bias else None
        self.register_buffer("u", torch.randn(cout))
        self.exact, self.pad = exact, k // 2
        init_weight(self.weight, cin * k * k, cout * k * k, init)

    def normalized_weight(self):
        return spectral_normalize(self.weight, self.u, self.exact, self.training)

    def forward(self, x):
        return F.conv2d(x, self.normalized_weight(), self.bias, padding=self.pad)


class SNLinear(nn.Module):
    def __init__(self, fin, fout, init):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(fout, fin))
        self.bias = nn.Parameter(torch.zeros(fout))
        self.register_buffer("u", torch.randn(fout))
        init_weight(self.weight, fin, fout, init)

    def forward(self, x):
        return F.linear(x, spectral_normalize(self.weight, self.u, False, self.training), self.bias)


class SNEmbedding(nn.Module):
    def __init__(self, classes, dim, init):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(classes, dim))
        self.register_buffer("u", torch.randn(classes))
        init_weight(self.weight, classes, dim, init)

    def forward(self, y):
        return F.embedding(y, spectral_normalize(self.weight, self.u, False, self.training))


class ConditionalBN(nn.Module):
    """TF-GAN batch norm: biased batch variance, eps 1e-3, decay 0.999; per-class gain and bias (classes 0: one row)."""

    def __init__(self, c, classes):
        super().__init__()
        rows = max(classes, 1)
        self.gain, self.bias = nn.Parameter(torch.ones(rows, c)), nn.Parameter(torch.zeros(rows, c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))
        self.conditional, self.c = classes > 0, c

    def forward(self, x, y=None):
        with fp32_region(x.device):  # statistics and normalisation in float32 (conditional_bn.cpp)
            return self.forward_fp32(x.float(), y)

    def forward_fp32(self, x, y):
        c = self.c
        g = (self.gain[y] if self.conditional else self.gain).view(-1, c, 1, 1)
        b = (self.bias[y] if self.conditional else self.bias).view(-1, c, 1, 1)
        if self.training:  # ATen's fused batch norm, as F.batch_norm; the moving averages take the biased variance
            out, mean, inv_std = torch.native_batch_norm(x, None, None, None, None, True, 0.0, 1e-3)
            with torch.no_grad():
                self.running_mean.mul_(1 - 1e-3).add_(mean, alpha=1e-3)
                self.running_var.mul_(1 - 1e-3).add_(inv_std.pow(-2) - 1e-3, alpha=1e-3)
            return torch.addcmul(b, out, g)
        mean, var = self.running_mean, self.running_var
        return (x - mean.view(1, c, 1, 1)) * torch.rsqrt(var + 1e-3).view(1, c, 1, 1) * g + b


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


# ---------------------------------------------------------------- G and D (gan/model/*.cpp)

def width(numerator, side):
    return min(16, numerator // side)


def up2(x):
    return F.interpolate(x, scale_factor=2, mode="nearest")


class GBlock(nn.Module):
    def __init__(self, cin, cout, classes, init):
        super().__init__()
        self.bn1, self.bn2 = ConditionalBN(cin, classes), ConditionalBN(cout, classes)
        self.conv1, self.conv2 = SNConv2d(cin, cout, 3, init=init), SNConv2d(cout, cout, 3, init=init)
        self.shortcut = SNConv2d(cin, cout, 1, init=init)

    def forward(self, x, y):
        h = self.conv1(up2(torch.relu(self.bn1(x, y))))
        h = self.conv2(torch.relu(self.bn2(h, y)))
        return h + up2(self.shortcut(x))  # 1x1 conv commutes with nearest upsampling


class Generator(nn.Module):
    def __init__(self, m, ctx):
        super().__init__()
        res, classes, init = m["resolution"], m["num_classes"], m["init"]
        self.stem = m["g_ch"] * width(res, 4)
        self.linear = SNLinear(m["z_dim"], 16 * self.stem, init)
        self.blocks, ch, side = nn.ModuleList(), self.stem, 4
        self.context_after = -1
        while side < res:
            out = m["g_ch"] * width(res, side * 2)
            self.blocks.append(GBlock(ch, out, classes, init))
            if side * 2 == m["side"]:
                self.context_after, ctx_ch = len(self.blocks) - 1, out
            ch, side = out, side * 2
        self.context = context_block(ctx, ctx_ch, classes, init)
        self.bn = ConditionalBN(ch, 0)
        self.conv_out = SNConv2d(ch, m["image_channels"], 3, init=init)

    def forward(self, z, y):
        h = self.linear(z).view(z.size(0), -1, 4, 4)
        for i, block in enumerate(self.blocks):
            h = block(h, y)
            if i == self.context_after:
                h = self.context(h, y)
        return torch.tanh(self.conv_out(torch.relu(self.bn(h))))


class DBlock(nn.Module):
    def __init__(self, cin, cout, down, optimized, init):
        super().__init__()
        self.conv1, self.conv2 = SNConv2d(cin, cout, 3, init=init), SNConv2d(cout, cout, 3, init=init)
        self.shortcut = SNConv2d(cin, cout, 1, init=init) if optimized or down or cin != cout else None
        self.down, self.optimized = down or optimized, optimized

    def forward(self, x):
        h = self.conv2(torch.relu(self.conv1(x if self.optimized else torch.relu(x))))
        s = x
        if self.down:  # pooling before the 1x1 shortcut conv: both linear, they commute
            h, s = F.avg_pool2d(h, 2), F.avg_pool2d(x, 2)
        return h + (self.shortcut(s) if self.shortcut is not None else s)


class Discriminator(nn.Module):
    def __init__(self, m, ctx):
        super().__init__()
        res, init = m["resolution"], m["init"]
        self.blocks, ch, side = nn.ModuleList(), m["image_channels"], res
        self.context_after = -1
        while side > 4:
            out = m["d_ch"] * width(res // 2, side // 2)
            self.blocks.append(DBlock(ch, out, True, len(self.blocks) == 0, init))
            if side // 2 == m["side"]:
                self.context_after, ctx_ch = len(self.blocks) - 1, out
            ch, side = out, side // 2
        self.blocks.append(DBlock(ch, ch, False, False, init))
        self.context = context_block(ctx, ctx_ch, 0, init)
        self.linear = SNLinear(ch, 1, init)
        self.embed = SNEmbedding(m["num_classes"], ch, init)

    def forward(self, x, y):
        h = x
        for i, block in enumerate(self.blocks):
            h = block(h)
            if i == self.context_after:
                h = self.context(h)
        h = torch.relu(h).sum((2, 3))
        return self.linear(h).squeeze(1) + (self.embed(y) * h).sum(1)
