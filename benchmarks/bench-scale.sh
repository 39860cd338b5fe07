#!/usr/bin/env bash
# bench-scale.sh — memory and time of a run over many tiny items (docs/runs.md, "The run": enumeration is
# streamed, so peak memory must not grow with the item count; an unchanged re-run skips every
# item from the run state). Goal (issue 13): peak RSS ≤ 256 MB at 1,000,000 items, independent of
# the count; unchanged re-run of 100,000 items ≤ 3% of the first run's time.
# Items: distinct 1×1 PNGs (one seed, each copy with its own trailing bytes, so every item has its
# own content hash), spread over folders of 1,000; the job is the cheapest real one: PNG → PNG.
#
# Usage: benchmarks/bench-scale.sh [--items N] [--keep DIR] [--dry-only]
#   default 100000 items; --keep makes (or reuses) the corpus in DIR; --dry-only measures the dry run alone
# Environment: MEDLEY (default <repo>/.build/release/medley).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
items=100000
keep=""
dry_only=0
while (($#)); do
  case $1 in
    --items) items=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --dry-only) dry_only=1; shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
if [[ -n $keep ]]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
rm -rf "$work/out"
"$script_dir/make-tiny-corpus.sh" "$work" "$items"
cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: scale
    ingest: { from: [in] }
    export: { to: out, format: png, name: "{relpath}/{stem}.png" }
YAML
# GNU time: wall seconds and the peak resident set of the medley process, in KB.
measure() {
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$medley" "$@" >/dev/null 2>"$work/stderr.txt" \
    || { [[ $? == 1 ]] || { cat "$work/stderr.txt" >&2; exit 1; }; }
  cat "$work/time.txt" | tail -1
}
read -r dry_s dry_kb < <(measure run "$work/pipeline.yaml" --quiet --dry-run)
mb() { awk -v k="$1" 'BEGIN{printf "%.0f", k/1024}'; }
if ((dry_only)); then
  echo "### Scale: dry run over $items tiny PNGs, $(nproc) cores ($(date -u +%Y-%m-%d)): $dry_s s, peak RSS $(mb "$dry_kb") MB"
  exit 0
fi
read -r first_s first_kb < <(measure run "$work/pipeline.yaml" --quiet)
read -r again_s again_kb < <(measure run "$work/pipeline.yaml" --quiet)
outputs=$(find "$work/out" -name '*.png' | wc -l)
[[ $outputs == "$items" ]] || { echo "expected $items outputs, found $outputs" >&2; exit 1; }
echo "### Scale: $items tiny PNGs → PNG, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) ($(date -u +%Y-%m-%d))"
echo
echo "| run | seconds | peak RSS (MB) | ÷ first run (time) |"
echo "|---|---:|---:|---:|"
echo "| dry run, no run state | $dry_s | $(mb "$dry_kb") | |"
echo "| first run (everything written) | $first_s | $(mb "$first_kb") | 1.00 |"
echo "| unchanged re-run (all skipped) | $again_s | $(mb "$again_kb") | $(awk -v a="$again_s" -v b="$first_s" 'BEGIN{printf "%.3f", a/b}') |"
