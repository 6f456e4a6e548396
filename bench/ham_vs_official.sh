#!/usr/bin/env bash
# Our Hamburger (hamgan bench modules --blocks ham:nmf) against the official
# PyTorch one (Enjoy-Hamburger seg/HamNet HamburgerV1, NMF, one-step gradient),
# side by side on one CPU thread, at the two shapes of docs/ham.md. Training
# time is forward + backward with respect to the input and the parameters.
#   bench/ham_vs_official.sh PATH/TO/Enjoy-Hamburger [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh  # python3 below is the project environment's
repo="${1:?usage: bench/ham_vs_official.sh PATH/TO/Enjoy-Hamburger [REPEATS]}"
repeats="${2:-5}"
BIN="${HAMGAN_BUILD_DIR:-build}/hamgan"
[ -x "$BIN" ] || { echo "ham_vs_official: $BIN not built; run scripts/build.sh hamgan" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| shape | HamGAN train ms | official train ms | official / HamGAN | HamGAN infer ms | official infer ms |\n|---|---|---|---|---|---|\n'
for shape in "1 512 64 64" "16 256 32 32"; do
  "$BIN" bench modules --shape $shape --blocks ham:nmf --threads 1 --warmup 2 --repeats "$repeats" \
    --out "$out/ours.json" >/dev/null 2>&1
  python3 bench/python/official_hamburger.py --repo "$repo" --shape $shape --threads 1 --warmup 2 \
    --repeats "$repeats" >"$out/official.json"
  python3 - "$out/ours.json" "$out/official.json" "$shape" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))
ours = next(r for r in (ours["results"] if isinstance(ours, dict) else ours) if r["block"].startswith("ham"))
off = json.load(open(sys.argv[2]))
print(f"| {sys.argv[3].replace(' ', 'x')} | {ours['train_ms']:.1f} | {off['train_ms']:.1f} | "
      f"{off['train_ms'] / ours['train_ms']:.2f}x | {ours['fwd_ms']:.1f} | {off['fwd_ms']:.1f} |")
PY
done
