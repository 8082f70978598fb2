#!/usr/bin/env bash
# Installs the Debian packages if any are missing (needs root or sudo) and builds vcloe into
# build/ (Release). Idempotent: re-running only rebuilds what changed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

if [ "$(id -u)" -eq 0 ]; then
  bash scripts/install-deps.sh
elif command -v sudo >/dev/null 2>&1; then
  sudo bash scripts/install-deps.sh
else
  echo "build.sh: not root and no sudo; assuming the packages in scripts/install-deps.sh are installed" >&2
fi

jobs="${VCLOE_JOBS:-$(nproc)}"
start=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
echo "build.sh: built in $((SECONDS - start)) s"  # CI's log keeps the build's share of its time
