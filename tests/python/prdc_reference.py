"""Precision, recall, density and coverage references (tests/metrics/prdc_test.cpp).

Usage: prdc_reference.py IN.npz OUT.json. IN holds `real` (N, D), `fake` (M, D)
and `k`, written by the C++ test. OUT gets
  prdc            the `prdc` package's compute_prdc(real, fake, nearest_k=k)
                  (Naeem et al. 2020's code: strict < against the k-NN radii)
  torch_fidelity  torch-fidelity 0.4's prc_features_to_metric(fake, real) precision
                  and recall (Kynkäänniemi et al.'s <=; equal on continuous features)
"""
import contextlib, io, json, sys
import numpy as np
try:
    import torch
    from prdc import compute_prdc
    from torch_fidelity.metric_prc import prc_features_to_metric
except ImportError as e:
    print(f"{e.name} missing (scripts/install_deps.sh installs it)")
    sys.exit(3)

src, dst = sys.argv[1], sys.argv[2]
z = np.load(src)
real, fake, k = z["real"], z["fake"], int(z["k"])
with contextlib.redirect_stdout(io.StringIO()):  # compute_prdc prints the set sizes
    ours = compute_prdc(real_features=real, fake_features=fake, nearest_k=k)
tf = prc_features_to_metric(torch.from_numpy(fake), torch.from_numpy(real), prc_neighborhood=k, verbose=False)
out = {"prdc": {key: float(v) for key, v in ours.items()},
       "torch_fidelity": {"precision": float(tf["precision"]), "recall": float(tf["recall"])}}
with open(dst, "w") as f:
    json.dump(out, f)
print(json.dumps(out))
