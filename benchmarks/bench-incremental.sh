#!/usr/bin/env bash
# bench-incremental.sh — first run versus unchanged re-run of a 10,000-item job (docs/runs.md, "Incremental runs": the
# re-run skips every item from the run state; target ≤ 5% of the first run's time).
# Items: small distinct JPEGs (one 64×48 image, each copy with its own trailing bytes), sepia to JPEG.
#
# Usage: benchmarks/bench-incremental.sh [--items N]   (default 10000)
# Environment: MEDLEY (default <repo>/.build/release/medley).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
items=10000
while (($#)); do
  case $1 in
    --items) items=$2; shift 2 ;;
    -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
vips black "$work/seed.jpg" 64 48 --bands 3
python3 - "$work" "$items" <<'PY'
import os, sys
work, items = sys.argv[1], int(sys.argv[2])
seed = open(os.path.join(work, "seed.jpg"), "rb").read()
for i in range(items):
    folder = os.path.join(work, "in", f"{i // 1000:02d}")
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, f"img-{i:05d}.jpg"), "wb").write(seed + f"medley-{i}".encode())
PY
cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: incremental
    ingest: { from: [in] }
    filters: [ { CISepiaTone: { inputIntensity: 0.8 } } ]
    export: { to: out, format: jpeg, name: "{relpath}/{stem}.jpg" }
YAML
timed() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN{printf "%.2f", e - s}'
}
first=$(timed "$medley" run "$work/pipeline.yaml" --quiet)
again=$(timed "$medley" run "$work/pipeline.yaml" --quiet)
touch "$work"/in/00/*.jpg
touched=$(timed "$medley" run "$work/pipeline.yaml" --quiet)
outputs=$(find "$work/out" -name '*.jpg' | wc -l)
[[ $outputs == "$items" ]] || { echo "expected $items outputs, found $outputs" >&2; exit 1; }
echo "### Incremental re-run: $items small JPEGs, sepia → JPEG, $(nproc) jobs ($(date -u +%Y-%m-%d))"
echo
echo "| run | seconds | ÷ first run |"
echo "|---|---:|---:|"
echo "| first run (everything written) | $first | 1.00 |"
echo "| unchanged re-run (all skipped from the run state) | $again | $(awk -v a="$again" -v b="$first" 'BEGIN{printf "%.3f", a/b}') |"
echo "| re-run after touching 1,000 inputs (content hashed, still skipped) | $touched | $(awk -v a="$touched" -v b="$first" 'BEGIN{printf "%.3f", a/b}') |"
