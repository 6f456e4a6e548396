#!/usr/bin/env bash
# Builds the container image (container/Containerfile) with Podman and uses it as a cluster user would:
# `hamgan --version`; no compiler inside; 10 steps of experiments/fmnist_ham.toml on the CPU with a
# checkpoint, resumed to 20, whose samples must equal those of a straight 20-step run bit for bit;
# `hamgan sample`; `hamgan export`; and the `hamgan` Python package loading the export and computing the
# same images as `hamgan sample`. Prints the image size and each step's time. Needs root and about 30 GB.
#   scripts/check_container.sh [IMAGE]     IMAGE: the tag to build (hamgan:check)
# HAMGAN_CONTAINER_TORCH_CUDA=cpu|cu126|... is the image's HAMGAN_TORCH_CUDA build argument (default: PyPI's
# CUDA 13 torch); HAMGAN_CONTAINER_REUSE=1 checks an existing IMAGE without building it again. Where
# docker.io/library/debian:bookworm-slim cannot be pulled, that base is built with debootstrap from the
# Debian mirror this machine's apt uses and tagged locally.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check_container: run as root (podman builds and debootstrap need it)" >&2; exit 1; }
IMAGE="${1:-hamgan:check}"
BASE=docker.io/library/debian:bookworm-slim
say() { echo "check_container: $*"; }
need=()
for c in podman runc debootstrap; do command -v "$c" >/dev/null || need+=("$c"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! podman image exists "$BASE" && ! timeout 120 podman pull -q "$BASE" >/dev/null 2>&1; then
  source scripts/debian_root.sh
  mirror="$(debian_mirror)"
  root="$(mktemp -d /var/tmp/hamgan-base-XXXXXX)"
  trap 'rm -rf "$root"' EXIT
  say "no $BASE to pull: building it with debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.log" 2>&1 || { tail -n 20 "$root.log"; exit 1; }
  rm -f "$root.log"
  add_site_cas "$root"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import -q - "$BASE" >/dev/null
  rm -rf "$root"
fi

mkdir -p runs
if [ "${HAMGAN_CONTAINER_REUSE:-0}" = 1 ] && podman image exists "$IMAGE"; then
  say "checking the existing $IMAGE (HAMGAN_CONTAINER_REUSE=1)"
else
  t0=$(date +%s)
  podman build --network host --pull=never -f container/Containerfile -t "$IMAGE" \
    --build-arg HAMGAN_TORCH_CUDA="${HAMGAN_CONTAINER_TORCH_CUDA:-}" . > runs/container-build.log 2>&1 ||
    { tail -n 30 runs/container-build.log; exit 1; }
  say "built $IMAGE in $(($(date +%s) - t0)) s (log: runs/container-build.log)"
fi
say "image size $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.2f GB", $1 / 1e9}')"

# Podman asks for rlimits above this process's own; where the kernel refuses that (no CAP_SYS_RESOURCE, seen
# in a sandboxed VM) the containers get this shell's open-file limit instead (the process limit does not
# bind root in the container, whatever its value).
limits=(--ulimit host)
probe="$(podman run --rm --network none "${limits[@]}" "$IMAGE" true 2>&1 || true)"
if [[ "$probe" == *rlimit* ]]; then
  limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=8192:8192)
  say "this machine refuses the default rlimits: running with ${limits[*]}"
fi
work="$(mktemp -d /var/tmp/hamgan-container-XXXXXX)"
trap 'rm -rf "$work"' EXIT
in_image() {  # a step inside the image, /work bound to the scratch directory, no network; timed
  local t rc=0
  t=$(date +%s)
  podman run --rm --network none "${limits[@]}" -v "$work:/work" "$IMAGE" bash -ceu "$2" > "$work/step.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then cat "$work/step.log"; say "FAILED: $1 (exit $rc)"; exit 1; fi
  say "$1: $(tail -n 1 "$work/step.log") ($(($(date +%s) - t)) s)"
}
train="hamgan train --config /opt/hamgan/share/hamgan/experiments/fmnist_ham.toml --device cpu --quiet --sample_every 0 --log_every 5 --eval_every 0 --checkpoint_every 10"
sample="--n 12 --batch_size 5 --seed 5 --standing_stats 0 --device cpu --quiet --float"
in_image "version" "hamgan --version | head -n 1"
in_image "no compiler" "for c in cc c++ gcc g++ clang nvcc; do if command -v \$c; then exit 1; fi; done
  if [ -n \"\$(find /opt/hamgan -name nvcc)\" ]; then exit 1; fi; echo no cc, c++, gcc, g++, clang or nvcc"
in_image "10 steps, checkpoint, resumed to 20" "$train --run_dir /work/run --steps 10 &&
  $train --run_dir /work/run --steps 20 --resume && ls /work/run/checkpoints | tr '\n' ' '"
in_image "20 steps straight" "$train --run_dir /work/straight --steps 20 && echo done"
in_image "hamgan sample (both runs)" "hamgan sample --checkpoint /work/run $sample --out /work/resumed.npz &&
  hamgan sample --checkpoint /work/straight $sample --out /work/straight.npz && echo 12 samples each"
in_image "resumed = straight" "python -c \"
import numpy as np
a, b = np.load('/work/resumed.npz'), np.load('/work/straight.npz')
assert all(np.array_equal(a[k], b[k]) for k in ('x', 'y', 'z')), 'the resumed run differs from the straight one'
print('bit for bit')\""
in_image "hamgan export" "hamgan export /work/run --out /work/G.safetensors --standing_stats 0 && ls -s /work/G.safetensors"
in_image "Python package" "python -c \"
import numpy as np, torch, hamgan
s = np.load('/work/resumed.npz')
x, y, z = (torch.from_numpy(s[k]) for k in ('x', 'y', 'z'))
G = hamgan.load_generator('/work/G.safetensors')
torch.manual_seed(5)
with torch.no_grad():
    got = torch.cat([G(z[i:i + 5], y[i:i + 5]) for i in range(0, len(z), 5)])
d = (got.double() - x.double()).abs().max().item()
assert d <= 1e-5, d
print(f'hamgan.load_generator equals hamgan sample: max |difference| {d:.2g}')\""
say "passed"
