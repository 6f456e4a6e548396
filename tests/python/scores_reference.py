"""IS and KID references from torch-fidelity (tests/metrics/scores_test.cpp).
Writes DIR/scores.npz: logits (N, K), is_mean/is_std (torch-fidelity
isc_features_to_metric, 10 splits, no shuffle), features x (M, D), y (M, D),
kid_full (torch-fidelity mmd2 of kernel_poly on the full sets: a single
subset of size M is a permutation, so the value is deterministic)."""
import sys
import numpy as np
try:
    import torch
    from torch_fidelity.metric_isc import isc_features_to_metric
    from torch_fidelity.metric_kid import mmd2, kernel_poly
except ImportError:
    print("torch-fidelity missing (scripts/install_deps.sh installs it)")
    sys.exit(3)

d = sys.argv[1]
rng = np.random.default_rng(3)
logits = (rng.standard_normal((503, 17)) * 3).astype(np.float32)
isc = isc_features_to_metric(torch.from_numpy(logits), splits=10, shuffle=False)
x = rng.standard_normal((120, 24)).astype(np.float64) + 0.3
y = rng.standard_normal((120, 24)).astype(np.float64) * 1.1
kw = dict(kid_kernel_poly_degree=3, kid_kernel_poly_gamma=None, kid_kernel_poly_coef0=1)
kid = mmd2(kernel_poly(x, x, **kw), kernel_poly(x, y, **kw), kernel_poly(y, y, **kw))
np.savez(f"{d}/scores.npz", logits=logits, is_mean=isc["inception_score_mean"], is_std=isc["inception_score_std"],
         x=x, y=y, kid_full=kid)
print(f"IS {isc['inception_score_mean']:.6f} KID {kid:.6e}")
