#!/usr/bin/env bash
# Configures and builds HamGAN (library, CLI, tests) into ${HAMGAN_BUILD_DIR:-build}.
# Any libtorch 2.x can be used instead of pip's by exporting CMAKE_PREFIX_PATH or Torch_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
BUILD_DIR="${HAMGAN_BUILD_DIR:-build}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  prefix="${CMAKE_PREFIX_PATH:-}"
  if [ -z "${Torch_DIR:-}" ]; then
    torch_prefix=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
    prefix="${prefix:+$prefix;}$torch_prefix"
  fi
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DHAMGAN_PYTHON="$PY" ${Torch_DIR:+-DTorch_DIR="$Torch_DIR"} ${HAMGAN_CMAKE_ARGS:-} >/dev/null
fi
export CCACHE_BASEDIR="$PWD" CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
# Plain words are target names: scripts/build.sh hamgan test_modules
args=()
prev=""
for a in "$@"; do
  case "$prev:$a" in
    --target:* | -j:* | *:-*) args+=("$a") ;;  # options, and the values of --target and -j, pass through
    *) args+=(--target "$a") ;;
  esac
  prev="$a"
done
cmake --build "$BUILD_DIR" -j "${HAMGAN_JOBS:-$(nproc)}" "${args[@]}"
