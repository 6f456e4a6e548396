#!/usr/bin/env bash
# Configure-time checks of cmake/TorchCudaToolkit.cmake, each against a stated expectation:
#   configure_test.sh toolkit_major SRC TORCH_CMAKE_DIR PYTHON   a CUDA 12.4 nvcc beside a cu130 LibTorch stops
#   configure_test.sh nccl_header   SRC TORCH_CMAKE_DIR PYTHON   a LibTorch with libnccl and no nccl.h stops
#   configure_test.sh wheel_toolkit SRC TORCH_CMAKE_DIR PYTHON   the real LibTorch configures with the wheels' toolkit
# The first two use a stand-in LibTorch tree (only what the module reads: version.py, lib/) and a stand-in
# nvcc that prints a release line, so they stop before find_package(Torch) and take a second.
set -euo pipefail
case_name="$1" src="$2" torch_cmake_dir="$3" python="$4"
work="$(mktemp -d "${HAMGAN_TEST_TMP:-/tmp}/configure_${case_name}_XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($case_name): $*"; echo "--- configure output:"; cat "$work/out"; exit 1; }

fake_torch() {  # $1: version string, $2: yes to ship lib/libnccl.so.2
  mkdir -p "$work/site/torch/share/cmake/Torch" "$work/site/torch/lib"
  echo "message(FATAL_ERROR \"stand-in LibTorch reached\")" > "$work/site/torch/share/cmake/Torch/TorchConfig.cmake"
  echo "__version__ = '$1'" > "$work/site/torch/version.py"
  [ "$2" != yes ] || : > "$work/site/torch/lib/libnccl.so.2"
}
fake_nvcc() {  # $1: release, as nvcc --version prints it
  mkdir -p "$work/nvcc/bin"
  printf '#!/bin/sh\necho "Cuda compilation tools, release %s, V%s.0"\n' "$1" "$1" > "$work/nvcc/bin/nvcc"
  chmod +x "$work/nvcc/bin/nvcc"
}
configure() {
  local rc=0
  cmake -S "$src" -B "$work/build" -G Ninja -DHAMGAN_PYTHON="$python" "$@" > "$work/out" 2>&1 || rc=$?
  return $rc
}
# Configures against the stand-in LibTorch and nvcc; configure must stop with one "hamgan: error:" line
# that says each of the given phrases.
expect_refusal() {
  configure -DCMAKE_PREFIX_PATH="$work/site/torch/share/cmake" -DCMAKE_CUDA_COMPILER="$work/nvcc/bin/nvcc" &&
    fail "configure went on"
  [ "$(grep -c '^hamgan: error: ' "$work/out")" -eq 1 ] || fail "no single 'hamgan: error:' line"
  local line
  line=$(grep '^hamgan: error: ' "$work/out")
  echo "$line"
  for want in "$@"; do
    [[ "$line" == *"$want"* ]] || fail "the error does not say '$want'"
  done
}

case "$case_name" in
  toolkit_major)  # a CUDA 12.4 toolkit for a CUDA 13.0 LibTorch
    fake_torch "2.12.1+cu130" no
    fake_nvcc 12.4
    expect_refusal "is CUDA 12.4" "built for CUDA 13.0" "-DHAMGAN_CUDA_FROM_WHEELS=ON" "HAMGAN_TORCH_CUDA=cu12"
    ;;
  nccl_header)  # a LibTorch that loads NCCL, with no nccl.h beside it
    fake_torch "2.12.1+cu130" yes
    fake_nvcc 13.0
    expect_refusal "loads NCCL" "no nccl.h" "-DHAMGAN_NCCL_INCLUDE_DIR=DIR" "-DHAMGAN_WITH_NCCL=OFF"
    ;;
  wheel_toolkit)
    site="$(cd "$torch_cmake_dir/../../../.." && pwd)"
    ls "$site"/nvidia/*/bin/nvcc > /dev/null 2>&1 || fail "no nvcc wheel beside torch in $site (scripts/install_deps.sh)"
    configure -DCMAKE_PREFIX_PATH="$(dirname "$torch_cmake_dir")" -DHAMGAN_CUDA_FROM_WHEELS=ON \
      -DHAMGAN_BUILD_TESTS=OFF || fail "configure with the wheels' toolkit failed"
    grep -q "CUDA toolkit .* from NVIDIA's wheels" "$work/out" || fail "the wheels' toolkit was not chosen"
    grep -q "CUDA code path ON" "$work/out" || fail "the CUDA code path is off"
    compiler=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$work/build/CMakeCache.txt")
    [ "$compiler" = "$work/build/cuda-from-wheels/bin/nvcc" ] || fail "CMAKE_CUDA_COMPILER is $compiler"
    # The toolkit version nvcc reports is torch's own CUDA release.
    torch_cuda=$("$python" -W ignore -c 'import torch; print(torch.version.cuda)')
    "$compiler" --version | grep -q "release $torch_cuda," || fail "nvcc is not CUDA $torch_cuda"
    [ -e "$work/build/cuda-from-wheels/lib64/libcudart.so" ] || fail "no unversioned libcudart.so"
    ;;
  *) echo "configure_test.sh: unknown case '$case_name'" >&2; exit 2 ;;
esac
echo "ok ($case_name)"
