#!/usr/bin/env bash
# bench-sepia.sh — time Medley's sepia pipeline against per-file peer tools.
#
# Usage: benchmarks/bench-sepia.sh [--count N] [--quality Q] [--jobs J]
#   --count N    images to process (default 40; generated if missing)
#   --quality Q  JPEG output quality for every tool (default 85)
#   --jobs J     concurrency for every tool (default: nproc)
# Environment:
#   MEDLEY      Medley binary (default: <repo>/.build/release/medley)
#   CORPUS_DIR  corpus directory (default: benchmarks/.corpus)
#   RUNS        timed runs per tool, best and median reported (default 3)
#   KEEP_WORK   set to 1 to keep the temporary work directory
#
# All tools read the same N files, write JPEGs at the same quality, run J
# files at a time, and are timed in interleaved rounds (A B C D, A B C D, ...)
# so that background noise hits every tool alike. Progress goes to stderr;
# the results (a plain table, then a Markdown block for RESULTS.md) go to
# stdout.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)

die() { echo "bench-sepia: $*" >&2; exit 1; }
log() { echo "bench-sepia: $*" >&2; }
usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# --- arguments ---------------------------------------------------------------
count=40
quality=85
jobs=$(nproc)
while (($#)); do
  case $1 in
    --count) count=${2:?--count needs a value}; shift 2 ;;
    --quality) quality=${2:?--quality needs a value}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --count=*) count=${1#*=}; shift ;;
    --quality=*) quality=${1#*=}; shift ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
runs=${RUNS:-3}
[[ $count =~ ^[0-9]+$ && $count -ge 1 ]] || die "--count must be a positive integer"
[[ $quality =~ ^[0-9]+$ && $quality -ge 1 && $quality -le 100 ]] || die "--quality must be 1..100"
[[ $jobs =~ ^[0-9]+$ && $jobs -ge 1 ]] || die "--jobs must be a positive integer"
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 ]] || die "RUNS must be a positive integer"

medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
corpus_dir=${CORPUS_DIR:-"$script_dir/.corpus"}

for tool in vips parallel convert awk; do
  command -v "$tool" >/dev/null || die "'$tool' not found in PATH"
done
# GNU time specifically: the bash keyword 'time' cannot report peak RSS.
[[ -x /usr/bin/time ]] || die "/usr/bin/time (GNU time) not found"

# --- corpus and work directory ----------------------------------------------
"$script_dir/make-corpus.sh" "$corpus_dir" "$count"
corpus_dir=$(cd "$corpus_dir" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/medley-bench.XXXXXX")
if [[ ${KEEP_WORK:-0} == 1 ]]; then
  log "keeping work directory $work"
else
  trap 'rm -rf "$work"' EXIT
fi

# The input set is exactly the first N corpus files, hard-linked (same inode,
# so the same page-cache pages) into one directory. Every tool reads this
# directory: Medley ingests a whole directory, so pointing it at a corpus
# holding more than N files would make it do more work than the peers.
input="$work/input"
mkdir "$input"
mapfile -t corpus_files < <(find "$corpus_dir" -maxdepth 1 -name 'img-*.jpg' ! -name '*.part.jpg' | sort | head -n "$count")
((${#corpus_files[@]} == count)) || die "expected $count images in $corpus_dir, found ${#corpus_files[@]}"
for f in "${corpus_files[@]}"; do
  ln "$f" "$input/" 2>/dev/null || cp "$f" "$input/"   # cp if on another filesystem
done
inputs=("$input"/*.jpg)

# Total megapixels, from the real image headers.
total_mp=$(for f in "${inputs[@]}"; do vipsheader -f width "$f"; vipsheader -f height "$f"; done |
  awk 'NR % 2 { w = $1; next } { px += w * $1 } END { printf "%.1f", px / 1e6 }')
input_mb=$(du -cm "${inputs[@]}" | awk 'END { print $1 }')
log "input: $count files, $total_mp MP, $input_mb MB; quality $quality; jobs $jobs; $runs runs per tool"

# --- tool definitions --------------------------------------------------------
# Sepia matrix from Medley's spec (rows give output R, G, B from input R, G, B),
# in vips' matrix file format: "width height" then the rows.
cat > "$work/sepia.mat" <<'EOF'
3 3
0.3588 0.7044 0.1368
0.2990 0.5870 0.1140
0.2392 0.4696 0.0912
EOF

cat > "$work/pipeline.yaml" <<EOF
version: 1
jobs:
  - name: bench-sepia
    ingest: { from: ["$input"], media: [image] }
    filters:
      - CISepiaTone: { inputIntensity: 1.0 }
    export: { to: "$work/out-medley", format: jpeg, quality: $quality, name: "{stem}.jpg" }
EOF

tools=()
declare -A status       # tool -> ok | "not available: reason" | "failed: reason"
medley_args=()
if [[ ! -x $medley ]]; then
  status[medley]="not available (no executable at $medley)"
else
  # Medley may skip up-to-date outputs on re-runs; we empty the output dir
  # before every run anyway, and pass --force when the binary knows it.
  if "$medley" run --help 2>&1 | grep -q -- --force; then
    medley_args=(--force)
  fi
  status[medley]=ok
fi
tools+=(medley vips-copy vips-recomb magick)
status[vips-copy]=ok status[vips-recomb]=ok status[magick]=ok

# Human-readable command lines, for the report.
declare -A cmdline=(
  [medley]="medley run pipeline.yaml --jobs $jobs --quiet${medley_args:+ ${medley_args[*]}}"
  [vips-copy]="parallel -j$jobs vips copy {} OUT/{/.}.jpg[Q=$quality]"
  [vips-recomb]="parallel -j$jobs vips recomb {} OUT/{/.}.jpg[Q=$quality] sepia.mat"
  [magick]="MAGICK_THREAD_LIMIT=1 parallel -j$jobs convert {} -sepia-tone 80% -quality $quality OUT/{/.}.jpg"
)

# Per-file peers run under GNU parallel. Each child is wrapped in
# /usr/bin/time -v writing to its own file ({#} = job number), so the RSS we
# report is the peak of a single vips/convert process. (J of them run at
# once, so the machine-wide peak is up to J times that.) -q quotes the
# command so paths with spaces survive the shell parallel uses.
# --halt now,fail=1 makes the run fail as a whole if any file fails.
peer() {  # peer RSSDIR CMD... — CMD uses {} / {/.} replacement strings
  local rssdir=$1; shift
  parallel --will-cite --halt now,fail=1 -q -j "$jobs" \
    /usr/bin/time -v -o "$rssdir/{#}.txt" "$@" ::: "${inputs[@]}"
}

# run_tool TOOL OUTDIR RSSDIR — one (timed by the caller) run of TOOL.
run_tool() {
  local tool=$1 out=$2 rssdir=$3
  case $tool in
    medley)
      /usr/bin/time -v -o "$rssdir/medley.txt" \
        "$medley" run "$work/pipeline.yaml" --jobs "$jobs" --quiet "${medley_args[@]}" ;;
    vips-copy)
      peer "$rssdir" vips copy {} "$out/{/.}.jpg[Q=$quality]" ;;
    vips-recomb)
      peer "$rssdir" vips recomb {} "$out/{/.}.jpg[Q=$quality]" "$work/sepia.mat" ;;
    magick)
      # ImageMagick is multi-threaded (OpenMP) by default; one thread per
      # process makes "J files at a time" mean J busy cores, as for the others.
      MAGICK_THREAD_LIMIT=1 peer "$rssdir" convert {} -sepia-tone 80% -quality "$quality" "$out/{/.}.jpg" ;;
  esac
}

# --- timed runs ---------------------------------------------------------------
# Warm the page cache so the first timed run doesn't pay for disk reads.
cat "${inputs[@]}" > /dev/null

declare -A times        # tool -> space-separated wall seconds
declare -A reason       # tool -> last line of output of a failed run
declare -A rss_kb       # tool -> max RSS (kB) of one process over all runs
for ((run = 1; run <= runs; run++)); do
  for tool in "${tools[@]}"; do
    [[ ${status[$tool]} == ok ]] || continue
    out="$work/out-$tool" rssdir="$work/rss-$tool-$run"
    # Empty the output dir before every run: no tool may benefit from (or be
    # slowed by) files left by a previous run.
    rm -rf "$out" "$rssdir"
    mkdir -p "$out" "$rssdir"
    log "run $run/$runs: $tool"
    start=$(date +%s%N)
    if run_tool "$tool" "$out" "$rssdir" > "$work/$tool.log" 2>&1; then
      end=$(date +%s%N)
      times[$tool]+="$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }') "
      kb=$(cat "$rssdir"/*.txt | awk -F': ' '/Maximum resident set size/ && $2 > m { m = $2 } END { print m + 0 }')
      if ((kb > ${rss_kb[$tool]:-0})); then rss_kb[$tool]=$kb; fi
    else
      rc=$?
      if [[ $tool == medley ]]; then
        status[$tool]="not available (exit $rc)"
      else
        status[$tool]="failed (exit $rc)"
      fi
      # /usr/bin/time appends "Command exited with non-zero status N"; skip it.
      reason[$tool]=$(grep -v '^Command exited with' "$work/$tool.log" | awk 'NF { l = $0 } END { print substr(l, 1, 100) }')
      log "$tool failed (exit $rc); last lines of its output:"
      tail -n 5 "$work/$tool.log" | sed 's/^/    /' >&2
    fi
  done
done

# --- verify outputs of each tool's last run ---------------------------------
declare -A verify
for tool in "${tools[@]}"; do
  [[ ${status[$tool]} == ok ]] || continue
  out="$work/out-$tool"
  mapfile -t outs < <(find "$out" -type f -name '*.jpg')
  n=${#outs[@]}
  if ((n != count)); then
    log "WARNING: $tool wrote $n outputs for $count inputs"
    verify[$tool]="WARNING: $n/$count outputs"
  else
    # Spot-check one output: a decodable JPEG with the input's dimensions.
    dims_in=$(vipsheader -f width "${inputs[0]}")x$(vipsheader -f height "${inputs[0]}")
    first="$out/$(basename "${inputs[0]}")"
    dims_out=$( { vipsheader -f width "$first" && echo x && vipsheader -f height "$first"; } 2>/dev/null | tr -d '\n' || true)
    mb=$(du -ck "${outs[@]}" | awk 'END { printf "%.1f", $1 / 1024 }')
    if [[ $dims_out != "$dims_in" ]]; then
      log "WARNING: $tool: $first is '${dims_out:-unreadable}', expected $dims_in"
      verify[$tool]="WARNING: bad output ${dims_out:-unreadable}"
    else
      verify[$tool]="ok: $n/$count outputs, $mb MB total"
    fi
  fi
done

# --- report ---------------------------------------------------------------
# stats "t1 t2 t3" -> "best median"
stats() {
  tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g |
    awk '{ t[NR] = $1 } END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2; print t[1], m }'
}

declare -A best median
for tool in "${tools[@]}"; do
  [[ ${status[$tool]} == ok ]] || continue
  read -r best[$tool] median[$tool] < <(stats "${times[$tool]}")
done
medley_ok=0
[[ ${status[medley]} == ok ]] && medley_ok=1

# rows: tool|best|median|MP/s|RSS|ratio|note — shared by both tables.
rows=()
for tool in "${tools[@]}"; do
  if [[ ${status[$tool]} != ok ]]; then
    rows+=("$tool|-|-|-|-|-|${status[$tool]}")
    continue
  fi
  b=${best[$tool]} m=${median[$tool]}
  mps=$(awk -v mp="$total_mp" -v s="$b" 'BEGIN { printf "%.1f", mp / s }')
  rss=$(awk -v kb="${rss_kb[$tool]:-0}" 'BEGIN { printf "%.0f", kb / 1024 }')
  if [[ $tool == medley ]]; then
    ratio="-"; rss_note="$rss (process)"
  else
    rss_note="$rss (per process)"
    if ((medley_ok)); then
      ratio=$(awk -v a="${best[medley]}" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
    else
      ratio="n/a"
    fi
  fi
  rows+=("$tool|$(printf '%.2f' "$b")|$(printf '%.2f' "$m")|$mps|$rss_note|$ratio|${verify[$tool]:-}")
done

echo
echo "Sepia benchmark: $count files ($total_mp MP), quality $quality, jobs $jobs, best/median of $runs"
printf '%-12s %9s %9s %8s %20s %13s  %s\n' tool "best s" "median s" "MP/s" "peak RSS MB" "medley/peer" "check"
for row in "${rows[@]}"; do
  IFS='|' read -r t b m mps rss ratio note <<<"$row"
  printf '%-12s %9s %9s %8s %20s %13s  %s\n' "$t" "$b" "$m" "$mps" "$rss" "$ratio" "$note"
done
if ((!medley_ok)); then
  echo "medley: not available ${status[medley]#not available }${reason[medley]:+: ${reason[medley]}}"
fi

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(free -g | awk '/^Mem:/ { print $2 }')
medley_version=$( ((medley_ok)) && "$medley" --version 2>/dev/null | head -n 1 || true)
commit=$(git -C "$repo_dir" rev-parse --short HEAD 2>/dev/null || echo "no commit")

cat <<EOF

----- Markdown (paste into RESULTS.md) -----
### Sepia: $count × 12 MP JPEG, quality $quality, $jobs jobs

| tool | best s | median s | MP/s | peak RSS MB | Medley/peer |
|---|---:|---:|---:|---:|---:|
EOF
for row in "${rows[@]}"; do
  IFS='|' read -r t b m mps rss ratio note <<<"$row"
  if [[ $b == - ]]; then
    echo "| $t | — | — | — | — | ${note} |"
  else
    echo "| $t | $b | $m | $mps | ${rss% (*} | ${ratio/#-/—} |"
  fi
done
cat <<EOF

- Input: $count synthetic photo-like JPEGs (\`benchmarks/make-corpus.sh\`), $total_mp MP, $input_mb MB, page cache warm.
- Wall clock, best and median of $runs runs per tool, tools interleaved per round; output dir emptied before each run.
- Medley/peer = Medley best time ÷ peer best time (< 1 means Medley is faster).
- Peak RSS: Medley = the whole process; peers = the largest single \`vips\`/\`convert\` process (J run at once, so the machine-wide peak is up to $jobs× that).
- Commands:
  - medley: \`${cmdline[medley]}\`${medley_version:+ ($medley_version)}
  - vips-copy: \`${cmdline[vips-copy]}\` — decode + encode only, the floor for any per-file tool
  - vips-recomb: \`${cmdline[vips-recomb]}\` — the same sepia matrix, done by vips per file
  - magick: \`${cmdline[magick]}\` — ImageMagick's own sepia (a different algorithm), one thread per process
- Machine: $(nproc) CPUs, $cpu, ${mem} GB RAM; $(vips --version); $(convert --version | head -n 1 | sed 's/ https.*//'); repo commit $commit; $(date '+%Y-%m-%d %H:%M %Z').
EOF
