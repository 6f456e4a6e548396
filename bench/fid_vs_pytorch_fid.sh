#!/usr/bin/env bash
# Our Inception feature extraction (hamgan bench fid --extract_only, resize
# legacy_pytorch: pytorch-fid's preprocessing) against pytorch-fid's
# InceptionV3([3]), one after the other on this CPU with the same weights,
# thread count, batch and image size; prints both rates and their ratio.
# The weights are random ones in pytorch-fid's format, made by
# tests/python/inception_reference.py unless WEIGHTS names a weights.pth.
#   bench/fid_vs_pytorch_fid.sh [IMAGES] [BATCH] [SIZE] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh  # python3 below is the project environment's
images="${1:-64}" batch="${2:-32}" size="${3:-32}" threads="${4:-2}"
BIN="${HAMGAN_BUILD_DIR:-build}/hamgan"
[ -x "$BIN" ] || { echo "fid_vs_pytorch_fid: $BIN not built; run scripts/build.sh hamgan" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
weights="${WEIGHTS:-}"
if [ -z "$weights" ]; then
  python3 tests/python/inception_reference.py "$out" >/dev/null
  weights="$out/weights.pth"
fi
[ -f "$weights" ] || { echo "fid_vs_pytorch_fid: weights $weights not found; unset WEIGHTS to make random ones" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$BIN" bench fid --extract_only --inception "$weights" --resize legacy_pytorch --images "$images" --batch "$batch" \
  --size "$size" --threads "$threads" --device cpu >"$out/ours.txt" 2>/dev/null
python3 bench/python/pytorch_fid_speed.py --weights "$weights" --images "$images" --batch "$batch" --size "$size" \
  --threads "$threads" >"$out/theirs.json"
echo "load average (1, 5, 15 min): before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
python3 - "$out/ours.txt" "$out/theirs.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"inception:\n.*\n\s*(\d+) images (\d+)×\d+ in ([\d.]+) s: ([\d.]+) images/s \(batch (\d+), (\d+) threads", text)
if not m:
    sys.exit("fid_vs_pytorch_fid: no Inception line in hamgan's output:\n" + text)
images, size, ours_s, _, batch, threads = m.groups()
ours = int(images) / float(ours_s)
theirs = json.load(open(sys.argv[2]))
print(f"| images | size | batch | threads | HamGAN images/s | pytorch-fid images/s | HamGAN / pytorch-fid |")
print(f"|---|---|---|---|---|---|---|")
print(f"| {images} | {size} | {batch} | {threads} | {ours:.2f} | {theirs['images_per_s']:.2f} | "
      f"{ours / theirs['images_per_s']:.2f}x |")
PY
