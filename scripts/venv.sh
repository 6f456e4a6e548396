# Sourced by the scripts: the project's Python environment. Every Python package HamGAN's build and
# tests use (torch, the CUDA toolkit wheels, the test references) lives in this virtual environment,
# never in Debian's Python (PEP 668). HAMGAN_VENV names it; otherwise an active virtual environment;
# otherwise .venv/ in the checkout. Sets HAMGAN_VENV and PY and puts the environment first on PATH.
_hamgan_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${HAMGAN_VENV:-}" ]; then HAMGAN_VENV="${VIRTUAL_ENV:-$_hamgan_root/.venv}"; fi
HAMGAN_VENV="$(realpath -m "$HAMGAN_VENV")"
PY="$HAMGAN_VENV/bin/python3"
export HAMGAN_VENV PY
case ":$PATH:" in *":$HAMGAN_VENV/bin:"*) ;; *) export PATH="$HAMGAN_VENV/bin:$PATH" ;; esac
unset _hamgan_root
