#!/usr/bin/env bash
# Installs the Debian 12 packages vcloe builds and tests with. Idempotent; run as root.
# Usage: sudo scripts/install-deps.sh
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: must run as root (apt-get install); try: sudo $0" >&2
  exit 1
fi

PACKAGES=(
  build-essential cmake pkg-config git
  libeigen3-dev                # linear algebra
  libboost-dev                 # Boost.Odeint (header-only)
  libceres-dev                 # Levenberg-Marquardt, Jets
  libmujoco-dev libqhull-dev   # independent engine (MuJoCo's CMake target needs qhull)
  libopencv-dev                # vision and calibration
  libssl-dev                   # SHA-256 of traces and configs (libcrypto EVP)
  libzmq3-dev cppzmq-dev       # process bridge
  zlib1g-dev                   # CRC-32 of bridge frames and PNG chunks
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libnlopt-cxx-dev             # excitation optimizer
  gnuplot-nox                  # plots for compare/excite
  python3-scipy python3-numpy  # regenerating filter test vectors only
  python3-zmq                  # the rig protocol from Python: test and example adapter
  clang-14 libclang-rt-14-dev  # libFuzzer targets (scripts/fuzz)
  chromium                     # the HTML report checked in a real browser (tests/apps/report_browser.py)
  slurmctld slurmd slurm-client munge  # `vcloe study --slurm`, tested on a single-node cluster (scripts/slurm-single-node)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps.sh: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
