"""sFID references (tests/metrics/sfid_test.cpp), on random planted weights.

pytorch-fid's own InceptionV3 network with forward hooks gives the spatial
features of both SfidLayer choices, first 7 channels, flattened in ADM's
(h, w, c) order (evaluator.py slices NHWC `[..., :7]` and reshapes):
  adm       Mixed_6d.branch1x1 (TF graph `mixed_6/conv`, after BN and ReLU)
  mixed_6e  the output of Mixed_6e (dgm-eval's `sinception`)

Writes into DIR:
  weights.pth   the planted state dict (torch.save zip)
  ref.npz       images (uint8, 4), spatial features <layer>_<mode> for them,
                with modes pytorch (pytorch-fid: x/255, F.interpolate, 2x−1) and
                tf (TF1 bilinear as the TF graph resizes, via torch-fidelity, then
                (x−128)/128); sets a, b (uint8) and their tf-mode features
                <layer>_a/_b; sfid_<layer>: their Fréchet distance, exact through the
                n×n low-rank form (HAMGAN_SFID_SCIPY=1 also prints pytorch-fid's
                calculate_frechet_distance, ~1 min per layer); plain.npz (mu, sigma only) and
                adm32.npz (mu, sigma, mu_s, sigma_s in float32), as other tools write.
`DIR verify FILE` checks with numpy that FILE (written by save_stats from
ref.npz's adm_a) holds float64 mu_s/sigma_s = np.mean/np.cov of adm_a.
"""
import os, sys, warnings
import numpy as np

try:
    import torch
    import pytorch_fid.inception as pi
    from pytorch_fid.fid_score import calculate_frechet_distance
    from torch_fidelity.interpolate_compat_tensorflow import interpolate_bilinear_2d_like_tensorflow1x
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs pytorch-fid and torch-fidelity")
    sys.exit(3)

d = sys.argv[1]
if sys.argv[2:3] == ["verify"]:
    x = np.load(f"{d}/ref.npz")["adm_a"].astype(np.float64)
    s = np.load(sys.argv[3])
    mu, sigma = x.mean(0), np.cov(x, rowvar=False)
    ok = s["mu_s"].dtype == np.float64 and s["sigma_s"].shape == (2023, 2023)
    err = max(np.abs(s["mu_s"] - mu).max() / np.abs(mu).max(), np.abs(s["sigma_s"] - sigma).max() / np.abs(sigma).max())
    print(f"numpy read mu_s {s['mu_s'].shape} sigma_s {s['sigma_s'].shape}, relative error {err:.2e}")
    sys.exit(0 if ok and err < 1e-10 else 1)

torch.manual_seed(0)
torch.set_num_threads(2)
warnings.simplefilter("ignore")


def planted_state_dict():  # He-scaled random weights, as in inception_reference.py
    net = pi._inception_v3(num_classes=1008, aux_logits=False, weights=None)
    net.Mixed_5b, net.Mixed_5c = pi.FIDInceptionA(192, 32), pi.FIDInceptionA(256, 64)
    net.Mixed_5d = pi.FIDInceptionA(288, 64)
    net.Mixed_6b, net.Mixed_6c = pi.FIDInceptionC(768, 128), pi.FIDInceptionC(768, 160)
    net.Mixed_6d, net.Mixed_6e = pi.FIDInceptionC(768, 160), pi.FIDInceptionC(768, 192)
    net.Mixed_7b, net.Mixed_7c = pi.FIDInceptionE_1(1280), pi.FIDInceptionE_2(2048)
    g = torch.Generator().manual_seed(43)
    sd = {}
    for k, v in net.state_dict().items():
        if k.endswith("num_batches_tracked"):
            continue
        if v.dim() == 4:
            v = torch.randn(v.shape, generator=g) * (2.0 / v[0].numel()) ** 0.5
        elif k.endswith("running_var") or (k.endswith("weight") and v.dim() == 1):
            v = 0.8 + 0.4 * torch.rand(v.shape, generator=g)
        elif v.dim() == 1:
            v = 0.05 * torch.randn(v.shape, generator=g)
        else:
            v = 0.02 * torch.randn(v.shape, generator=g)
        sd[k] = v.contiguous()
    return sd


sd = planted_state_dict()
torch.save(sd, f"{d}/weights.pth")
pi.load_state_dict_from_url = lambda *a, **k: sd
# Block 2 ends at Mixed_6e, so the 8×8 blocks are never run.
pytorch_mode = pi.InceptionV3([2], resize_input=True, normalize_input=True).eval()
tf_mode = pi.InceptionV3([2], resize_input=False, normalize_input=False).eval()
captured = {}
for net in (pytorch_mode, tf_mode):
    mixed = net.blocks[2]  # Mixed_5b, 5c, 5d, 6a, 6b, 6c, 6d, 6e
    mixed[6].branch1x1.register_forward_hook(lambda m, i, o: captured.__setitem__("adm", o))
    mixed[7].register_forward_hook(lambda m, i, o: captured.__setitem__("mixed_6e", o))


def spatial(net, x):  # {layer: (B, 2023)} in (h, w, c) order
    with torch.no_grad():
        net(x)
    return {k: v.permute(0, 2, 3, 1)[..., :7].reshape(v.shape[0], -1).numpy() for k, v in captured.items()}


def tf_input(img):
    return (interpolate_bilinear_2d_like_tensorflow1x(img.float(), size=(299, 299), align_corners=False) - 128) / 128


gen = torch.Generator().manual_seed(11)
images = torch.randint(0, 256, (4, 3, 40, 48), generator=gen, dtype=torch.uint8)
out = {"images": images.numpy()}
for layer, f in spatial(pytorch_mode, images.float() / 255).items():  # pytorch-fid: ToTensor → model
    out[f"{layer}_pytorch"] = f
for layer, f in spatial(tf_mode, tf_input(images)).items():
    out[f"{layer}_tf"] = f

# Two different distributions of small images: smooth blobs vs. the same with noise and a colour shift.
n = 32
base = torch.nn.functional.interpolate(torch.rand(2 * n, 3, 4, 4, generator=gen), size=(24, 24), mode="bilinear")
a = (base[:n] * 255).round().to(torch.uint8)
b = (base[n:] * 200 + 40 * torch.rand(n, 3, 24, 24, generator=gen) + torch.tensor([15.0, 0, -10]).view(1, 3, 1, 1))
b = b.clamp(0, 255).round().to(torch.uint8)
out["a"], out["b"] = a.numpy(), b.numpy()
fa, fb = {}, {}
for lo in range(0, n, 32):
    for layer, f in spatial(tf_mode, tf_input(a[lo:lo + 32])).items():
        fa.setdefault(layer, []).append(f)
    for layer, f in spatial(tf_mode, tf_input(b[lo:lo + 32])).items():
        fb.setdefault(layer, []).append(f)
for layer in fa:
    out[f"{layer}_a"], out[f"{layer}_b"] = np.concatenate(fa[layer]), np.concatenate(fb[layer])
    xa, xb = out[f"{layer}_a"].astype(np.float64), out[f"{layer}_b"].astype(np.float64)
    # Σa = XaᵀXa, Σb = XbᵀXb (centred, ÷√(n−1)) have rank ≤ n−1 ≪ 2023, so tr((ΣaΣb)^½) is
    # exactly the nuclear norm of the n×n matrix XaXbᵀ: independent of both sqrtm and eigh routes.
    ca = (xa - xa.mean(0)) / np.sqrt(n - 1)
    cb = (xb - xb.mean(0)) / np.sqrt(n - 1)
    dm = xa.mean(0) - xb.mean(0)
    fid = dm @ dm + (ca * ca).sum() + (cb * cb).sum() - 2 * np.linalg.svd(ca @ cb.T, compute_uv=False).sum()
    out[f"sfid_{layer}"] = np.float64(fid)
    msg = f"sFID {layer}: {fid:.6f}"
    if os.environ.get("HAMGAN_SFID_SCIPY"):  # pytorch-fid's scipy sqrtm on 2023×2023: ~1 min per call
        slow = calculate_frechet_distance(xa.mean(0), np.cov(xa, rowvar=False), xb.mean(0), np.cov(xb, rowvar=False))
        msg += f", pytorch-fid {slow:.6f} (relative gap {abs(slow - fid) / fid:.1e})"
    print(msg)
np.savez(f"{d}/ref.npz", **out)

mu_s, sigma_s = out["adm_a"].astype(np.float64).mean(0), np.cov(out["adm_a"].astype(np.float64), rowvar=False)
np.savez(f"{d}/plain.npz", mu=np.zeros(3), sigma=np.eye(3))
np.savez(f"{d}/adm32.npz", mu=np.zeros(3), sigma=np.eye(3),
         mu_s=mu_s.astype(np.float32), sigma_s=sigma_s.astype(np.float32))
print("wrote", d)
