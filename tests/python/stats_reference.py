"""Reference mean/covariance for streamed statistics: reads DIR/features.npz
(key `x`, float32 (N, D)), DIR/stats.npz written by hamgan's RunningStats, and
compares with np.mean / np.cov (pytorch-fid's calculate_activation_statistics)."""
import sys
import numpy as np

d = sys.argv[1]
x = np.load(f"{d}/features.npz")["x"].astype(np.float64)
s = np.load(f"{d}/stats.npz")
mu, sigma = np.mean(x, axis=0), np.cov(x, rowvar=False)
err_mu = np.abs(s["mu"] - mu).max() / np.abs(mu).max()
err_sigma = np.abs(s["sigma"] - sigma).max() / np.abs(sigma).max()
print(f"relative error mu {err_mu:.3e} sigma {err_sigma:.3e} n {int(s['n'])}")
sys.exit(0 if err_mu < 1e-12 and err_sigma < 1e-12 and int(s["n"]) == x.shape[0] and s["mu"].dtype == np.float64 else 1)
