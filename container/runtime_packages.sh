#!/usr/bin/env bash
# The Debian packages that hold the shared libraries a binary loads, one a line, leaving out those under
# SKIP_DIR (the Python environment's torch, which the image copies whole):
#   container/runtime_packages.sh BINARY SKIP_DIR
set -euo pipefail
binary="$1" skip="$(realpath "$2")/"
ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r lib; do
  real="$(realpath "$lib")"
  [[ "$real" == "$skip"* ]] && continue
  # Debian 12 merges /lib into /usr/lib: dpkg knows each file under one of the two names.
  for candidate in "$lib" "$real" "/usr$lib" "/usr$real" "${lib#/usr}" "${real#/usr}"; do
    if owner="$(dpkg -S "$candidate" 2>/dev/null)"; then echo "${owner%%:*}"; continue 2; fi
  done
  echo "runtime_packages: no Debian package holds $lib" >&2
  exit 1
done | sort -u
