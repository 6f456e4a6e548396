"""External attention oracle: the official block's order of operations (MenghaoGuo/EANet
model_torch.py External_attention, steps conv1 -> linear_0 -> softmax over n -> L1 over S with
eps 1e-9 -> linear_1 -> conv2), here with the HamGAN residual x + sigma * o, in float64 numpy.

Usage: ea_reference.py DIR. DIR/ea.npz holds the normalised weights the block used (wq (C, C),
wk (S, d), wv (d, S), wo (C, C)), the input x (B, C, H, W), heads and sigma (one element each) and the
block's output y. Exits 0 when the oracle's output agrees with y to 1e-5, else 1."""
import sys
import numpy as np

a = np.load(f"{sys.argv[1]}/ea.npz")
x, wq, wk, wv, wo = (a[k].astype(np.float64) for k in ("x", "wq", "wk", "wv", "wo"))
heads, sigma = int(a["heads"].item()), float(a["sigma"].item())
b, c, h, w = x.shape
n, d = h * w, c // heads

q = np.einsum("oc,bcn->bon", wq, x.reshape(b, c, n))           # conv1 (no bias), (B, C, n)
q = q.reshape(b, heads, d, n)                                   # contiguous channel blocks per head
logits = np.einsum("sd,bhdn->bhsn", wk, q)                      # linear_0, shared by the heads
e = np.exp(logits - logits.max(axis=-1, keepdims=True))
attn = e / e.sum(axis=-1, keepdims=True)                        # softmax over n (dim=-1)
attn = attn / (1e-9 + attn.sum(axis=-2, keepdims=True))         # L1 over S (dim=1), eps in the denominator
vals = np.einsum("ds,bhsn->bhdn", wv, attn).reshape(b, c, n)    # linear_1, heads concatenated
o = np.einsum("oc,bcn->bon", wo, vals).reshape(b, c, h, w)      # conv2 (no bias)
ref = x + sigma * o

err = np.abs(ref - a["y"].astype(np.float64)).max()
print(f"ea oracle: heads {heads} max abs difference {err:.3e}")
sys.exit(0 if err < 1e-5 else 1)
