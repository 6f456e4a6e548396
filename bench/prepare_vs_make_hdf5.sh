#!/usr/bin/env bash
# `hamgan prepare` against BigGAN-PyTorch's make_hdf5.py on one folder of
# ImageNet-like JPEGs (bench/python/make_jpeg_folder.py: about 500×375,
# quality 90, ImageNet train layout), both to a 128×128 HDF5 with the same
# number of decoding workers, uncompressed and with LZF. Each command is timed
# whole (start-up included), one after the other, REPEATS times; make_hdf5.py
# is also timed without its Python imports, and ours without its start-up (the
# time `prepare` takes on a folder of one image). Then the two files are compared
# (docs/data.md: pixels within one level, from BigGAN's float round trip) and
# the numbers, machine and versions go to a JSON file.
#   bench/prepare_vs_make_hdf5.sh PATH/TO/BigGAN-PyTorch [IMAGES] [WORKERS] [REPEATS]
# BIGGAN_PYTORCH may name the checkout instead of the first argument. JPEG_DIR
# reuses a folder make_jpeg_folder.py wrote (same IMAGES). OUT: the JSON file
# (default docs/bench/prepare_vs_make_hdf5.json). Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh  # python3 below is the project environment's
repo="${1:-${BIGGAN_PYTORCH:-}}"
images="${2:-3000}"
workers="${3:-$(nproc)}"
repeats="${4:-2}"
out_json="${OUT:-docs/bench/prepare_vs_make_hdf5.json}"
if [ -z "$repo" ] || [ ! -f "$repo/make_hdf5.py" ]; then
  echo "prepare_vs_make_hdf5: no BigGAN-PyTorch checkout${repo:+ at $repo}; get one with" \
    "'git clone https://github.com/ajbrock/BigGAN-PyTorch DIR' and pass DIR (or BIGGAN_PYTORCH=DIR)" >&2
  exit 1
fi
repo=$(cd "$repo" && pwd)
BIN="${HAMGAN_BUILD_DIR:-build}/hamgan"
[ -x "$BIN" ] || { echo "prepare_vs_make_hdf5: $BIN not built; run scripts/build.sh hamgan" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# make_hdf5.py reads DATA_ROOT/ImageNet and writes DATA_ROOT/ILSVRC128.hdf5.
mkdir -p "$work/data"
if [ -n "${JPEG_DIR:-}" ]; then
  jpegs=$(cd "$JPEG_DIR" && pwd)
  ln -s "$jpegs" "$work/data/ImageNet"
else
  jpegs="$work/data/ImageNet"
  python3 bench/python/make_jpeg_folder.py "$jpegs" --images "$images"
fi
find "$jpegs" -type f -exec cat {} + >/dev/null  # both sides read from the page cache
first=("$jpegs"/*/*.JPEG)
mkdir -p "$work/one/class" && cp "${first[0]}" "$work/one/class/"  # for timing our start-up

# BigGAN-PyTorch's script unchanged, imported and run as its main() would; the
# imports (torch, torchvision, h5py) are timed apart from the conversion.
cat >"$work/run_make_hdf5.py" <<'PY'
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import make_hdf5
t1 = time.perf_counter()
make_hdf5.run(vars(make_hdf5.prepare_parser().parse_args(sys.argv[3:])))
t2 = time.perf_counter()
json.dump({"import_s": t1 - t0, "run_s": t2 - t1}, open(sys.argv[2], "w"))
PY

now() { date +%s.%N; }
runs="$work/runs.tsv"
for r in $(seq "$repeats"); do
  for comp in none lzf; do
    ours_args=() theirs_args=()
    [ "$comp" = lzf ] && ours_args=(--compression lzf) theirs_args=(--compression)
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    s0=$(now)
    "$BIN" prepare --input "$work/one" --output "$work/one.hdf5" --size 128 --workers "$workers" --no_progress \
      "${ours_args[@]}" >/dev/null
    s1=$(now)
    rm -f "$work/ours_$comp.hdf5"
    t0=$(now)
    "$BIN" prepare --input "$jpegs" --output "$work/ours_$comp.hdf5" --size 128 --workers "$workers" --no_progress \
      "${ours_args[@]}" >/dev/null
    t1=$(now)
    rm -f "$work/data/ILSVRC128.hdf5" "$work/I128_imgs.npz"  # its directory walk is timed, as ours is
    (cd "$work" && python3 run_make_hdf5.py "$repo" "$work/theirs_times.json" --dataset I128 \
      --data_root "$work/data" --num_workers "$workers" "${theirs_args[@]}" >/dev/null 2>&1)
    t2=$(now)
    mv "$work/data/ILSVRC128.hdf5" "$work/theirs_$comp.hdf5"
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$comp" "$r" "$s0" "$s1" "$t0" "$t1" "$t2" \
      "$load_before" "$load_after" >>"$runs"
    cp "$work/theirs_times.json" "$work/theirs_times_${comp}_$r.json"
  done
done

python3 bench/python/prepare_report.py --work "$work" --jpegs "$jpegs" --repo "$repo" --workers "$workers" \
  --out "$out_json"
