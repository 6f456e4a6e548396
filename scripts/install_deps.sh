#!/usr/bin/env bash
# Installs whatever is missing for building and testing HamGAN on Debian 12 (or Ubuntu):
# Debian packages through apt (Python itself included), and every Python package
# into the project's virtual environment (scripts/venv.sh: .venv/ unless
# HAMGAN_VENV or an active environment says otherwise), never into Debian's Python:
# LibTorch through pip's torch package (pinned), the CUDA toolkit pieces LibTorch's
# CMake config needs (NVIDIA's wheels of torch's own CUDA version), and the Python
# reference implementations used only inside tests.
# Idempotent: returns in a few seconds when everything is present.
#   scripts/install_deps.sh [--runtime]
#   --runtime (or HAMGAN_RUNTIME_ONLY=1)  what building and running `hamgan` needs, without the test
#                                 references, clang or GoogleTest (configure with -DHAMGAN_BUILD_TESTS=OFF)
#   HAMGAN_TORCH_VERSION=2.12.1   the torch release
#   HAMGAN_TORCH_CUDA=cu126       a torch build from PyTorch's own index instead of PyPI's default
#                                 (cu126, cu128: drivers older than CUDA 13's 580; cpu: no CUDA at all)
# On a machine without apt, or without root and sudo, it installs nothing and names what is missing
# and the container image (container/Containerfile), which carries all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh

TORCH_VERSION="${HAMGAN_TORCH_VERSION:-2.12.1}"
TORCH_CUDA="${HAMGAN_TORCH_CUDA:-}"
RUNTIME_ONLY="${HAMGAN_RUNTIME_ONLY:-0}"
for a in "$@"; do
  case "$a" in
    --runtime) RUNTIME_ONLY=1 ;;
    *) echo "install_deps: unknown option $a (the one option is --runtime)" >&2; exit 1 ;;
  esac
done
# Names that Debian 12 and Ubuntu both have (libjpeg-dev: libjpeg-turbo on both).
APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git ca-certificates
  python3 python3-venv
  libhdf5-dev libpng-dev libjpeg-dev zlib1g-dev libzip-dev
  libcli11-dev libtomlplusplus-dev liblzf-dev libgloo-dev libssl-dev nlohmann-json3-dev
  dataset-fashion-mnist
)
# The test suite's own: GoogleTest, and clang with libFuzzer for scripts/fuzz.sh.
APT_TEST_PACKAGES=(libgtest-dev libgmock-dev clang libclang-rt-14-dev)
[ "$RUNTIME_ONLY" = 1 ] || APT_PACKAGES+=("${APT_TEST_PACKAGES[@]}")
# Reference implementations for tests only; never imported by the product.
# An entry "package:module" names the import when it differs from the package.
# pytorch-fid calls scipy's sqrtm(disp=...), removed in scipy 1.18; torchvision
# 0.27.x is the release built against torch 2.12 (pinned so pip keeps torch).
# prdc (NAVER's density/coverage code, which brings scikit-learn) is pinned to the
# version the PRDC test compares against. timm builds the DINOv2 ViT the FD_DINOv2
# test plants random weights in (scripts/convert_dinov2.py converts its models).
# safetensors, onnx, onnxscript (torch's ONNX exporter) and onnxruntime serve the
# Python package in python/ (`hamgan.load_generator`, its ONNX export) and the
# tests that run it beside the C++ generator.
PIP_TEST_PACKAGES=(numpy "scipy<1.18:scipy" h5py pillow:PIL "torchvision==0.27.1:torchvision" "tensorboard==2.21.0:tensorboard"
  pytorch-fid:pytorch_fid torch-fidelity:torch_fidelity "prdc==0.2:prdc" "timm==1.0.31:timm"
  "safetensors==0.8.0:safetensors" "onnx==1.23.2:onnx" "onnxscript==0.7.2:onnxscript"
  "onnxruntime==1.32.0:onnxruntime")

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
use_the_image='or use the container image (docs/building.md, "The container image")'

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "install_deps: no apt on this machine: install the equivalents of ${APT_PACKAGES[*]} with its package" \
       "manager and run again, $use_the_image" >&2
  exit 1
fi
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ -n "$SUDO" ] && ! command -v sudo >/dev/null; then
    echo "install_deps: these Debian packages are missing and installing them needs root: ${missing[*]};" \
         "ask an administrator, $use_the_image" >&2
    exit 1
  fi
  echo "install_deps: apt packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x "$PY" ]; then
  echo "install_deps: Python environment $HAMGAN_VENV (from ${HAMGAN_BASE_PYTHON:-/usr/bin/python3})"
  "${HAMGAN_BASE_PYTHON:-/usr/bin/python3}" -m venv "$HAMGAN_VENV"
fi
pip_install() { "$PY" -m pip install -q --disable-pip-version-check "$@"; }

torch_pip=("torch==$TORCH_VERSION")
want_local=""
if [ -n "$TORCH_CUDA" ]; then  # a local version in the pin makes pip replace another build of the same release
  want_local="+$TORCH_CUDA"
  torch_pip=("torch==$TORCH_VERSION$want_local" --index-url "https://download.pytorch.org/whl/$TORCH_CUDA"
             --extra-index-url https://pypi.org/simple)
fi
if ! "$PY" -c "import torch, sys; v = torch.__version__; sys.exit(0 if v.split('+')[0] == '$TORCH_VERSION' and ('$want_local' == '' or v.endswith('$want_local')) else 1)" 2>/dev/null; then
  echo "install_deps: pip torch==$TORCH_VERSION${want_local} into $HAMGAN_VENV (LibTorch comes inside it; several GB with its CUDA libraries)"
  pip_install "${torch_pip[@]}"
fi

# nvcc, the C runtime headers, CCCL and NVVM of torch's own CUDA version: LibTorch's CMake config
# needs a CUDA toolkit, and this one matches the libraries torch loads (cmake/TorchCudaToolkit.cmake).
mapfile -t cuda_missing < <("$PY" -W ignore scripts/cuda_wheels.py missing)
if [ ${#cuda_missing[@]} -gt 0 ]; then
  echo "install_deps: pip (CUDA toolkit for the build): ${cuda_missing[*]}"
  pip_install "${cuda_missing[@]}"
fi

[ "$RUNTIME_ONLY" = 1 ] && exit 0
pip_missing=()
for p in "${PIP_TEST_PACKAGES[@]}"; do
  "$PY" -c "import ${p#*:}" 2>/dev/null || pip_missing+=("${p%%:*}")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
  echo "install_deps: pip (test references): ${pip_missing[*]}"
  pip_install "torch==$TORCH_VERSION" "${pip_missing[@]}" ${TORCH_CUDA:+--extra-index-url "https://download.pytorch.org/whl/$TORCH_CUDA"}
fi
