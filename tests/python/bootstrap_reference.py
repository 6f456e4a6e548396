"""Bootstrap FID reference (tests/metrics/bootstrap_test.cpp).

Usage: bootstrap_reference.py IN.npz OUT.json. IN holds `features` (N, D), the
fixed side's `mu` (D) and `sigma` (D, D), and `indices` (B, N), the resamples the
C++ code drew. For each row b: the rows features[indices[b]], their mean and
np.cov, then pytorch-fid's calculate_frechet_distance against (mu, sigma). OUT
gets the B values, np.percentile(values, [2.5, 97.5]) and np.std(values, ddof=1).
"""
import json, sys, warnings
import numpy as np

warnings.simplefilter("ignore")
try:
    from pytorch_fid.fid_score import calculate_frechet_distance
except ImportError:
    print("pytorch-fid missing (scripts/install_deps.sh installs it)")
    sys.exit(3)

src, dst = sys.argv[1], sys.argv[2]
z = np.load(src)
x, mu, sigma, indices = z["features"], z["mu"], z["sigma"], z["indices"]
values = []
for idx in indices:
    r = x[idx]
    values.append(float(calculate_frechet_distance(r.mean(0), np.cov(r, rowvar=False), mu, sigma)))
lower, upper = np.percentile(values, [2.5, 97.5])
out = {"values": values, "lower": float(lower), "upper": float(upper), "std": float(np.std(values, ddof=1))}
with open(dst, "w") as f:
    json.dump(out, f)
print(f"{len(values)} resamples, interval [{lower:.6f}, {upper:.6f}]")
