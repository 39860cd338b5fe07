#!/usr/bin/env bash
# bench-pdfpages.sh — every page of real PDFs drawn to PNG at 600 px (longer side), Medley against the
# peers on the same files, one run: `medley run` with `ingest.page: all` and `resize 600 × 600` vs
# `pdftoppm -png -scale-to 600` a process a PDF (poppler's own tool, what scripts run) and
# `vipsthumbnail doc.pdf[page=N] -s 600` a process a page. Medley and parallel take `nproc` at once.
# Each timing is the best of RUNS.
#
# Usage: benchmarks/bench-pdfpages.sh [--max N]   (default: the first 8 PDFs of 5+ pages found)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3), PDF_DIR (default
# /usr/share/doc: the manuals Debian packages install, made by other people's TeX and DocBook tools).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
max=8
while (($#)); do
  case $1 in
    --max) max=$2; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
pdf_dir=${PDF_DIR:-/usr/share/doc}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in vipsthumbnail vipsheader pdftoppm parallel; do
  command -v "$tool" >/dev/null || { echo "bench-pdfpages: $tool is missing (scripts/setup.sh --test)" >&2; exit 1; }
done
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
pages=0
while IFS= read -r pdf; do
  n=$(vipsheader -f n-pages "$pdf" 2>/dev/null) || continue
  ((n >= 5)) || continue
  cp "$pdf" "$work/in/$(printf '%02d' "$(find "$work/in" -type f | wc -l)")-$(basename "$pdf")"
  pages=$((pages + n))
  (($(find "$work/in" -type f | wc -l) < max)) || break
done < <(find "$pdf_dir" -name '*.pdf' -type f 2>/dev/null | sort)
files=$(find "$work/in" -type f | wc -l)
((files)) || { echo "bench-pdfpages: no PDF of 5 or more pages under $pdf_dir" >&2; exit 1; }
echo "bench-pdfpages: $files PDFs, $pages pages ($(du -sh "$work/in" | cut -f1)), $jobs at once, best of $runs" >&2

best_of() {
  local out=$1; shift
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$out"; mkdir -p "$out"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; echo "bench-pdfpages: failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{ b = e - s; if (a == "" || b < a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
check() {
  local n; n=$(find "$1" -name '*.png' -size +0 | wc -l)
  [[ $n == "$pages" ]] || { echo "bench-pdfpages: $1 has $n PNGs, not $pages" >&2; exit 1; }
}

cat > "$work/pages.yaml" <<YAML
version: 1
jobs:
  - name: pages
    ingest: { from: [$work/in], page: all }
    filters: [ { resize: { width: 600, height: 600 } } ]
    export: { to: $work/out/medley, format: png }
YAML
medley_s=$(best_of "$work/out/medley" "$medley" run "$work/pages.yaml" --quiet --jobs "$jobs")
check "$work/out/medley"
pdftoppm_s=$(best_of "$work/out/pdftoppm" parallel -j "$jobs" \
  pdftoppm -png -scale-to 600 {} "$work/out/pdftoppm/{/.}" ::: "$work"/in/*.pdf)
check "$work/out/pdftoppm"
for pdf in "$work"/in/*.pdf; do
  for ((p = 0; p < $(vipsheader -f n-pages "$pdf"); p++)); do echo "$pdf[page=$p]"; done
done > "$work/page-list"
vips_s=$(best_of "$work/out/vips" parallel -j "$jobs" -a "$work/page-list" \
  'vipsthumbnail {} -s 600 -o '"$work"'/out/vips/$(basename {} | tr "[]=" "___").png')
check "$work/out/vips"

echo "| tool | seconds | Medley ÷ tool |"
echo "|---|---:|---:|"
echo "| medley run (page: all, resize 600) | $medley_s | |"
echo "| pdftoppm -png -scale-to 600, a process a PDF (parallel -j $jobs) | $pdftoppm_s | $(awk -v m="$medley_s" -v p="$pdftoppm_s" 'BEGIN{printf "%.2f", m/p}') |"
echo "| vipsthumbnail doc.pdf[page=N] -s 600, a process a page (parallel -j $jobs) | $vips_s | $(awk -v m="$medley_s" -v p="$vips_s" 'BEGIN{printf "%.2f", m/p}') |"
