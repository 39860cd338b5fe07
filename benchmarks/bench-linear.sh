#!/usr/bin/env bash
# bench-linear.sh — does a run's cost grow linearly with the item count (issue 18 goal 5)?
# First runs (no run state, no outputs) over 1k, 10k, 100k tiny images (distinct 1×1 PNGs,
# PNG → PNG) and 1k, 10k small audio files (distinct 0.5 s 44.1 kHz stereo WAVs → FLAC);
# per row: wall seconds, wall and CPU (user+sys) µs per item, peak RSS (GNU time), and per-item
# wall time relative to the 1k row of the same kind. Goal: per-item time within 10 % of the 1k row.
# Copies have distinct content (their own trailing bytes / their own last sample), so each item
# has its own content hash; folders hold 1,000 items. "last ÷ first tenth": within the same run,
# the seconds the last 10 % of the outputs took (by their modification times) over the first 10 %'s,
# so start-up is left out and growth inside one run shows (1.00 = flat).
# Outputs of earlier runs are moved aside and deleted only at the end: ext4 without a journal skips
# inodes freed in the last ~30 s when it allocates, so deleting 100k files right before a run would
# make every file that run creates slower (seen with perf: recently_deleted in __ext4_new_inode).
#
# Usage: benchmarks/bench-linear.sh [--quick] [--keep DIR]
#   --quick stops at 10k images (no 100k row); --keep makes (or reuses) the corpora in DIR
#   (generating 100k files takes about half a minute; reuse it across runs).
# Environment: MEDLEY (default <repo>/.build/release/medley); RUNS (default 3): the 1k rows take
#   the best of RUNS first runs; the 10k and 100k rows run min(RUNS, BIG_RUNS) times (BIG_RUNS
#   default 1). Needs vips, sox, python3, GNU time. Default run: about 5 minutes on 2 cores
#   (the 100k row alone about 2 minutes), --quick about 2.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
quick=0
keep=""
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
big_runs=${BIG_RUNS:-1}
((big_runs < runs)) || big_runs=$runs
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
if [[ -n $keep ]]; then
  work=$keep; mkdir -p "$work"; trap 'rm -rf "$work/trash"' EXIT
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
rm -rf "$work/trash"; mkdir -p "$work/trash"

# make KIND COUNT: the corpus in $work/KIND-COUNT/in (once), and its pipeline.
make_corpus() {
  local kind=$1 count=$2 dir="$work/$1-$2"
  mkdir -p "$dir"
  if [[ ! -f $dir/made ]]; then
    rm -rf "$dir/in"
    echo "making $count $kind items in $dir" >&2
    if [[ $kind == images ]]; then
      [[ -f $work/seed.png ]] || vips black "$work/seed.png" 1 1
    else
      [[ -f $work/seed.wav ]] || sox -n -r 44100 -c 2 -b 16 "$work/seed.wav" synth 0.5 sine 440 vol 0.5
    fi
    python3 - "$kind" "$work" "$dir" "$count" <<'PY'
import os, struct, sys
kind, work, dir, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
seed = open(os.path.join(work, "seed.png" if kind == "images" else "seed.wav"), "rb").read()
for i in range(count):
    folder = os.path.join(dir, "in", f"{i // 1000:04d}")
    if i % 1000 == 0:
        os.makedirs(folder, exist_ok=True)
    if kind == "images":
        name, data = f"img-{i:07d}.png", seed + f"medley-{i}".encode()
    else:  # the last stereo frame carries the index: a valid WAV with its own samples
        name, data = f"snd-{i:07d}.wav", seed[:-4] + struct.pack("<i", i)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)
PY
    touch "$dir/made"
  fi
  if [[ $kind == images ]]; then
    cat > "$dir/pipeline.yaml" <<'YAML'
version: 1
jobs:
  - name: linear
    ingest: { from: [in] }
    export: { to: out, format: png, name: "{relpath}/{stem}.png" }
YAML
  else
    cat > "$dir/pipeline.yaml" <<'YAML'
version: 1
jobs:
  - name: linear
    ingest: { from: [in], media: [anyAudio] }
    transcode: { AVFormatIDKey: kAudioFormatFLAC }
    export: { to: out, name: "{relpath}/{stem}.{ext}" }
YAML
  fi
}

# first_run DIR COUNT: one first run (earlier outputs and run state moved aside);
# prints "wall cpu rss_kb tail_ratio".
first_run() {
  local dir=$1 count=$2
  [[ ! -e $dir/out ]] || mv "$dir/out" "$work/trash/out-$RANDOM-$RANDOM"
  sync
  /usr/bin/time -v -o "$dir/time.txt" "$medley" run "$dir/pipeline.yaml" --quiet >/dev/null 2>"$dir/stderr.txt" \
    || { cat "$dir/stderr.txt" >&2; echo "medley failed in $dir" >&2; exit 1; }
  local outputs
  outputs=$(find "$dir/out" -type f -not -path '*/.medley/*' | wc -l)
  [[ $outputs == "$count" ]] || { echo "expected $count outputs in $dir, found $outputs" >&2; exit 1; }
  local tail
  tail=$(find "$dir/out" -type f -not -path '*/.medley/*' -printf '%T@\n' | sort -n | awk '
    { t[NR] = $1 } END { k = int(NR / 10); if (k < 2) { print "n/a"; exit }
      first = t[k + 1] - t[1]; last = t[NR] - t[NR - k]
      if (first <= 0) print "n/a"; else printf "%.2f", last / first }')
  awk -F': ' -v tail="$tail" '
    /User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
    /Elapsed \(wall clock\)/ { n=split($2, p, ":"); w=0; for (i=1; i<=n; i++) w=w*60+p[i] }
    END { printf "%.3f %.3f %d %s\n", w, u+s, m, tail }' "$dir/time.txt"
}

rows=()
declare -A base cpu_base
measure() {
  local kind=$1 count=$2 repeats=$3 dir="$work/$1-$2" best="" line wall cpu kb
  make_corpus "$kind" "$count"
  for ((r = 1; r <= repeats; r++)); do
    line=$(first_run "$dir" "$count")
    echo "$kind $count run $r: $line (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    if [[ -z $best ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best=$line; fi
  done
  read -r wall cpu kb tail <<<"$best"
  local us cpu_us
  us=$(awk -v w="$wall" -v n="$count" 'BEGIN{printf "%.0f", w*1e6/n}')
  cpu_us=$(awk -v c="$cpu" -v n="$count" 'BEGIN{printf "%.0f", c*1e6/n}')
  [[ -n ${base[$kind]:-} ]] || { base[$kind]=$us; cpu_base[$kind]=$cpu_us; }
  local rel cpu_rel
  rel=$(awk -v a="$us" -v b="${base[$kind]}" 'BEGIN{printf "%.2f", a/b}')
  cpu_rel=$(awk -v a="$cpu_us" -v b="${cpu_base[$kind]}" 'BEGIN{printf "%.2f", a/b}')
  local label
  label=$(awk -v n="$count" 'BEGIN{ if (n>=1000 && n%1000==0) printf "%dk", n/1000; else print n }')
  rows+=("| $label $kind | $repeats | $wall | $us | $cpu_us | $(awk -v k="$kb" 'BEGIN{printf "%.0f", k/1024}') | $rel | $cpu_rel | $tail |")
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
measure images 1000 "$runs"
measure images 10000 "$big_runs"
((quick)) || measure images 100000 "$big_runs"
measure audio 1000 "$runs"
measure audio 10000 "$big_runs"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "### Linear scale: first runs, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) ($(date -u +%Y-%m-%d), commit $(git -C "$repo_dir" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "Images: distinct 1×1 PNGs → PNG. Audio: distinct 0.5 s 44.1 kHz stereo WAVs → FLAC. Best of the"
echo "runs column; load average before: $load_before, after: $load_after."
echo
echo "| items | runs | wall s | wall µs/item | CPU µs/item | peak RSS (MB) | wall µs/item ÷ 1k row | CPU µs/item ÷ 1k row | last ÷ first tenth |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
