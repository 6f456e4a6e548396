"""Seed statistics reference (tests/experiments/seed_statistics_test.cpp).

Usage: seed_statistics_reference.py OUT.json. Writes fixed synthetic per-seed
FIDs and, from scipy.stats, what the C++ code must reproduce: t.ppf and t.cdf
over df 1..100 and some fractional df (Welch's df is rarely an integer), the
95% interval of the mean (t.interval with scale = sem), Welch's t-test
(ttest_ind(equal_var=False): statistic, df, pvalue), and Holm-adjusted
p-values written out here from the definition.
"""
import json, sys

try:
    import numpy as np
    from scipy import stats
except ImportError:
    print("scipy missing (scripts/install_deps.sh installs it)")
    sys.exit(3)

out = {}
dfs = [float(d) for d in range(1, 101)] + [0.7, 1.5, 2.7, 3.35, 7.3, 12.25, 55.5, 250.0]
probs = [0.975, 0.95, 0.995, 0.9, 0.6, 0.5, 0.3, 0.025, 0.0005]
out["ppf"] = [{"p": p, "df": d, "value": float(stats.t.ppf(p, d))} for d in dfs for p in probs]
ts = [-40.0, -3.2, -1.0, -0.05, 0.0, 0.4, 1.96, 2.5, 12.7, 300.0]
out["cdf"] = [{"t": t, "df": d, "value": float(stats.t.cdf(t, d))} for d in dfs[::7] + dfs[100:] for t in ts]

# Per-seed final FIDs of made-up configs: some close, some far apart, few seeds.
rng = np.random.default_rng(20240611)
configs = {
    "ham": 24.0 + 1.2 * rng.standard_normal(5),
    "sa": 25.3 + 1.0 * rng.standard_normal(5),
    "ylg": 25.0 + 3.0 * rng.standard_normal(3),
    "none": 31.0 + 0.6 * rng.standard_normal(4),
    "pair": np.array([27.5, 26.1]),
    "wide": 24.5 + 6.0 * rng.standard_normal(6),
}
out["intervals"] = []
for name, v in configs.items():
    lower, upper = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
    out["intervals"].append({"name": name, "values": v.tolist(), "mean": float(v.mean()),
                             "std": float(v.std(ddof=1)), "lower": float(lower), "upper": float(upper)})
out["welch"] = []
names = list(configs)
for i, a in enumerate(names):
    for b in names[i + 1:]:
        r = stats.ttest_ind(configs[a], configs[b], equal_var=False)
        out["welch"].append({"a": a, "b": b, "t": float(r.statistic), "df": float(r.df), "p": float(r.pvalue)})


def holm(p):
    """Sort ascending, multiply the k-th smallest (0-based) by m − k, cap at 1, then
    carry the running maximum so the adjusted values keep the p-values' order."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(np.minimum(1.0, (len(p) - np.arange(len(p))) * p[order]))
    return adjusted.tolist()


pairwise_p = [w["p"] for w in out["welch"]]
extra_p = pairwise_p + [0.04, 0.04, 0.5, 1e-9]  # ties and a tiny one
out["holm"] = {"pairwise": holm(pairwise_p), "p": extra_p, "adjusted": holm(extra_p)}

with open(sys.argv[1], "w") as f:
    json.dump(out, f)
print(f"{len(out['ppf'])} quantiles, {len(out['cdf'])} cdf values, {len(out['welch'])} Welch tests")
