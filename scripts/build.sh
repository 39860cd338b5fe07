#!/usr/bin/env bash
# Builds Medley in release mode, tuned for this machine's CPU when it has AVX2/FMA
# (x86-64-v3, "haswell"): the plain per-pixel loops vectorise much better with it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
flags=()
if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  flags+=(-Xswiftc -target-cpu -Xswiftc haswell -Xcc -march=haswell)
fi
swift build -c release "${flags[@]}" "$@" 2>&1 | grep -v "prohibited flag(s): -pthread" >&2
test -x .build/release/medley
