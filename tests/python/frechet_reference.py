"""Fréchet-distance references (tests/metrics/frechet_test.cpp).

Writes DIR/case_<name>.npz with mu1, sigma1, mu2, sigma2 and
  fid_pytorch_fid  pytorch-fid's calculate_frechet_distance (scipy sqrtm)
  fid_offset       scipy sqrtm((Σ1+εI)(Σ2+εI)) with traces of the original Σ,
                   i.e. pytorch-fid's singular-product fallback branch
  trace_sqrt       real part of tr(sqrtm(Σ1Σ2)) from scipy
  imag             max |imag| of the diagonal of scipy's sqrtm (the residue)
Cases: well-conditioned, rank-deficient (N < D on one or both sides),
constant (zero-variance) features, identical inputs.
"""
import sys, warnings
import numpy as np
from scipy import linalg

warnings.simplefilter("ignore")
try:
    from pytorch_fid.fid_score import calculate_frechet_distance
except ImportError:
    print("pytorch-fid missing (scripts/install_deps.sh installs it)")
    sys.exit(3)

d = sys.argv[1]
rng = np.random.default_rng(7)
eps = 1e-6


def stats(n, dim, scale, shift, dead=0):
    mix = rng.standard_normal((dim, dim)) * scale / np.sqrt(dim)
    x = np.maximum(rng.standard_normal((n, dim)) @ mix + shift, 0)  # ReLU-like features
    x[:, :dead] = 0.25
    return x.mean(0), np.cov(x, rowvar=False)


cases = {
    "regular": (stats(600, 64, 1.0, 0.5), stats(700, 64, 1.2, 0.4)),
    "singular_one": (stats(40, 96, 1.0, 0.5), stats(800, 96, 0.8, 0.6)),
    "singular_both": (stats(50, 128, 1.0, 0.3), stats(70, 128, 1.1, 0.5)),
    "dead_features": (stats(500, 64, 1.0, 0.5, dead=5), stats(500, 64, 1.0, 0.45, dead=3)),
    "large": (stats(1200, 256, 1.0, 0.5), stats(1100, 256, 1.3, 0.45)),
}
s_same = stats(300, 32, 1.0, 0.5)
cases["identical"] = (s_same, s_same)

for name, ((m1, s1), (m2, s2)) in cases.items():
    covmean, _ = linalg.sqrtm(s1.dot(s2), disp=False)
    imag = np.abs(np.diagonal(covmean).imag).max() if np.iscomplexobj(covmean) else 0.0
    off = np.eye(s1.shape[0]) * eps
    cov_off = linalg.sqrtm((s1 + off).dot(s2 + off))
    diff = m1 - m2
    fid_offset = diff.dot(diff) + np.trace(s1) + np.trace(s2) - 2 * np.trace(cov_off).real
    np.savez(f"{d}/case_{name}.npz", mu1=m1, sigma1=s1, mu2=m2, sigma2=s2,
             fid_pytorch_fid=calculate_frechet_distance(m1, s1, m2, s2),
             fid_offset=fid_offset, trace_sqrt=np.trace(covmean).real, imag=imag)
print(" ".join(cases))
