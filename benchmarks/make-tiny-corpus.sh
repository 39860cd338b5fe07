#!/usr/bin/env bash
# make-tiny-corpus.sh — DIR/in: COUNT distinct 1×1 PNGs (one seed, each copy with its own trailing
# bytes, so every item has its own content hash) in folders of 1,000, for the per-item-cost
# benchmarks (bench-scale.sh, bench-shards.sh). Idempotent: DIR/made-COUNT marks a complete corpus.
# Usage: benchmarks/make-tiny-corpus.sh DIR COUNT   (needs vips and python3)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 DIR COUNT" >&2; exit 2; }
work=$1 items=$2
[[ -f $work/made-$items ]] && exit 0
rm -rf "$work/in"
mkdir -p "$work"
vips black "$work/seed.png" 1 1
python3 - "$work" "$items" <<'PY'
import os, sys
work, items = sys.argv[1], int(sys.argv[2])
seed = open(os.path.join(work, "seed.png"), "rb").read()
for i in range(items):
    folder = os.path.join(work, "in", f"{i // 1000:04d}")
    if i % 1000 == 0:
        os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"img-{i:07d}.png"), "wb") as f:
        f.write(seed + f"medley-{i}".encode())
PY
touch "$work/made-$items"
