"""Intra-class FID reference (tests/metrics/intra_class_test.cpp).

Usage: intra_class_reference.py IN.npz OUT.json. IN holds features_a (N, D),
labels_a (N), features_b (M, D), labels_b (M), written by the C++ test. For
every class with 2 or more samples on both sides: mean and np.cov of its rows,
then pytorch-fid's calculate_frechet_distance (scipy sqrtm). OUT gets the
classes, their FIDs and the mean over them.
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
fa, la, fb, lb = z["features_a"], z["labels_a"], z["features_b"], z["labels_b"]
classes, fids = [], []
for c in sorted(set(la.tolist()) & set(lb.tolist())):
    xa, xb = fa[la == c], fb[lb == c]
    if len(xa) < 2 or len(xb) < 2:
        continue
    fid = calculate_frechet_distance(xa.mean(0), np.cov(xa, rowvar=False), xb.mean(0), np.cov(xb, rowvar=False))
    classes.append(int(c))
    fids.append(float(fid))
out = {"classes": classes, "fid": fids, "mean": float(np.mean(fids))}
with open(dst, "w") as f:
    json.dump(out, f)
print(f"{len(classes)} classes, mean {out['mean']:.6f}")
