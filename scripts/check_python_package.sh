#!/usr/bin/env bash
# The `hamgan` Python package on another Python: a fresh virtual environment of PYTHON, `pip install`
# of python/ into it (which brings tomli below 3.11) with a torch that supports that Python, then
# tests/python/hamgan_package_check.py against the hamgan binary (every block's parameter counts equal
# `hamgan model-info`, save/load round trips, the strict loader's errors, fix_ham_bases, the model text).
#   scripts/check_python_package.sh PYTHON [TORCH_REQUIREMENT]
#   e.g. scripts/check_python_package.sh ~/.pyenv/versions/3.9.18/bin/python "torch==2.8.0"
# TORCH_REQUIREMENT defaults to "torch" (the newest for that Python), from pip's configured index (PyPI: the
# CUDA build, several GB; HAMGAN_TORCH_INDEX=https://download.pytorch.org/whl/cpu takes the CPU build).
# HAMGAN_BIN is the binary (default build/hamgan).
set -euo pipefail
cd "$(dirname "$0")/.."
python="$1" torch_req="${2:-torch}"
bin="$(realpath "${HAMGAN_BIN:-build/hamgan}")"
[ -x "$bin" ] || { echo "check_python_package: no hamgan binary at $bin (scripts/build.sh hamgan, or set HAMGAN_BIN)" >&2; exit 1; }
work="$(mktemp -d /var/tmp/hamgan-python-XXXXXX)"
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" "$torch_req" ${HAMGAN_TORCH_INDEX:+--index-url "$HAMGAN_TORCH_INDEX"}
"${pip[@]}" ./python
echo "check_python_package: $("$work/venv/bin/python" -c 'import sys, torch, hamgan; print(f"Python {sys.version.split()[0]}, torch {torch.__version__}, the installed hamgan imports")')"
# The check imports the package from python/ (the same files pip installed), on this Python and torch.
"$work/venv/bin/python" tests/python/hamgan_package_check.py "$bin"
