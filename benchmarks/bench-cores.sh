#!/usr/bin/env bash
# bench-cores.sh — does one image get every core? (issue 18, goal 3)
#
# Usage: benchmarks/bench-cores.sh
# Environment:
#   MEDLEY         Medley binary (default: <repo>/.build/release/medley)
#   MEDLEY_BEFORE  optional second Medley binary (e.g. main's), timed in the same rounds: before/after
#   PHOTOS         folder of real JPEGs, e.g. /work/bench-corpus/photos (default: made by
#                  benchmarks/real-photos.sh in ${TMPDIR:-/tmp}/medley-real-photos, outside the repository)
#   RUNS           rounds, tools interleaved in each round; best of RUNS reported (default 3)
#   KEEP_WORK      1 keeps the work directory
#
# Three measures, each tool timed in the same rounds (A B C, A B C, ...):
# 1. One image alone: CIGaussianBlur σ 10 → JPEG Q85 at 2, 12, 24 and 50 MP against `vips gaussblur`
#    (same file, same output format). Medley `--jobs 1` and the default `--jobs` (= cores). The big
#    images are crops of a 2 × 2 mosaic of four real 5120 × 2880 photos (vips arrayjoin + crop, Q95),
#    so their content is real photo content, not noise or an enlargement.
# 2. The tail of a batch: 7 real photos then the 50 MP image, 2 at a time (--jobs 2 / parallel -j 2).
#    For Medley, /proc/PID/stat is sampled every 0.1 s: "one core" is the share of the run's wall time
#    in which the process used less than 1.5 cores (on a loaded machine other processes also take cores:
#    read it next to the load average), and the share in which at most one of its threads was runnable
#    (state R in /proc/PID/task/*/stat: running or waiting for a core), which load does not change.
# 3. A full batch, 2 at a time: 12 real photos, blur σ 10 and sepia, against `parallel -j 2 vips ...`:
#    the cost of oversubscribing the cores (two items, each with a worker per core).
# Wall seconds and CPU seconds (user + sys of the process and its children, from wait4) per run.
# Results: a Markdown table on stdout; progress on stderr. Needs vips, GNU parallel, python3.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
before=${MEDLEY_BEFORE:-}
runs=${RUNS:-3}
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 ]] || { echo "bench-cores: RUNS must be a positive integer" >&2; exit 1; }
[[ -x $medley ]] || { echo "bench-cores: no Medley at $medley (scripts/build.sh)" >&2; exit 1; }
for tool in vips vipsheader parallel /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "bench-cores: '$tool' not found" >&2; exit 1; }
done
photos=${PHOTOS:-}
if [[ -z $photos ]]; then photos=$("$script_dir/real-photos.sh" "${TMPDIR:-/tmp}/medley-real-photos"); fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-cores.XXXXXX")
if [[ ${KEEP_WORK:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/big" "$work/tail" "$work/batch"

# The four largest photos of the same size (5120 × 2880 in Debian's wallpapers) make the mosaic.
mapfile -t largest < <(for f in "$photos"/*.jpg; do
  echo "$(vipsheader -f width "$f" 2>/dev/null) $(vipsheader -f height "$f" 2>/dev/null) $f"
done | sort -k1,1nr -k2,2nr -k3 | awk 'NR == 1 { w = $1; h = $2 } $1 == w && $2 == h { print $3 }' | head -4)
((${#largest[@]} == 4)) || { echo "bench-cores: need four photos of the largest size in $photos" >&2; exit 1; }
read -r pw ph < <(echo "$(vipsheader -f width "${largest[0]}" 2>/dev/null) $(vipsheader -f height "${largest[0]}" 2>/dev/null)")
echo "bench-cores: mosaic of ${largest[*]##*/} (${pw}×${ph} each)" >&2
vips arrayjoin "${largest[*]}" "$work/mosaic.v" --across 2 2>/dev/null
crop() { # name MP: a crop of the mosaic of about MP megapixels, 3:2 or wider
  local w h
  read -r w h < <(/usr/bin/python3 -c "
import math
w = min(2 * $pw, int(math.sqrt($2e6 * 1.5))); h = min(2 * $ph, $2 * 1000000 // w); w = min(2 * $pw, $2 * 1000000 // h)
print(w, h)")
  vips crop "$work/mosaic.v" "$work/big/$1.jpg[Q=95]" 0 0 "$w" "$h" 2>/dev/null
}
for mp in 2 12 24 50; do crop "mp$mp" "$mp"; done
rm -f "$work/mosaic.v"
# The tail: 7 photos, then the 50 MP image last (names sort in that order).
mapfile -t smaller < <(ls "$photos"/*.jpg | LC_ALL=C sort | head -7)
for f in "${smaller[@]}"; do cp "$f" "$work/tail/a-${f##*/}"; done
cp "$work/big/mp50.jpg" "$work/tail/z-50mp.jpg"
mapfile -t batch < <(ls "$photos"/*.jpg | LC_ALL=C sort | head -12)
for f in "${batch[@]}"; do cp "$f" "$work/batch/${f##*/}"; done
printf '3 3\n0.3588 0.7044 0.1368\n0.2990 0.5870 0.1140\n0.2392 0.4696 0.0912\n' > "$work/sepia.mat"

pipeline() { # name from filter
  cat > "$work/$1.yaml" <<EOF
version: 1
jobs:
  - name: $1
    ingest: { from: ["$2"] }
    filters: [ $3 ]
    colorSpace: none
    export: { to: $work/out-$1, format: jpeg, quality: 85, name: "{stem}.jpg" }
EOF
}
blur='{ CIGaussianBlur: { inputRadius: 10 } }'
for mp in 2 12 24 50; do pipeline "blur$mp" "$work/big/mp$mp.jpg" "$blur"; done
pipeline tail "$work/tail" "$blur"
pipeline batchblur "$work/batch" "$blur"
pipeline batchsepia "$work/batch" '{ CISepiaTone: { inputIntensity: 1 } }'
mkdir -p "$work/out-vips"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
MEDLEY="$medley" MEDLEY_BEFORE="$before" RUNS="$runs" WORK="$work" CORES=$(nproc) /usr/bin/python3 - <<'PY'
import os, subprocess, sys, time

medley, before, runs, work = os.environ["MEDLEY"], os.environ["MEDLEY_BEFORE"], int(os.environ["RUNS"]), os.environ["WORK"]
cores = int(os.environ["CORES"])
tick = os.sysconf("SC_CLK_TCK")

def timed(command, sample=False):
    """Wall seconds, CPU seconds (user + sys, children included) and, when sampling, the share of the
    wall time in which the process itself used fewer than 1.5 cores."""
    start = time.monotonic()
    errors = open(f"{work}/stderr.txt", "w+b")
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
    samples, last = [], (start, 0)
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG if sample else 0)
        if pid != 0:
            break
        time.sleep(0.1)
        try:
            with open(f"/proc/{process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            used = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
        runnable = 0
        try:
            for task in os.listdir(f"/proc/{process.pid}/task"):
                with open(f"/proc/{process.pid}/task/{task}/stat") as f:
                    runnable += f.read().rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, IndexError):
            pass
        now = time.monotonic()
        samples.append((now - last[0], (used - last[1]) / max(1e-9, now - last[0]), runnable))
        last = (now, used)
    process.returncode = status
    wall = time.monotonic() - start
    if status != 0:
        errors.seek(0)
        sys.exit(f"bench-cores: failed ({status}): {' '.join(command)}\n{errors.read().decode()[-2000:]}")
    errors.close()
    total = sum(d for d, _, _ in samples)
    tail = samples[int(len(samples) * 0.9):]  # the run's last 10 %
    tail_total = sum(d for d, _, _ in tail)
    one = (sum(d for d, c, _ in samples if c < 1.5) / total, sum(d for d, _, r in samples if r <= 1) / total,
           sum(d for d, _, r in tail if r <= 1) / tail_total) if total > 0 and tail_total > 0 else None
    return wall, usage.ru_utime + usage.ru_stime, one

def medleys():
    m = [("medley", medley)]
    if before:
        m.append(("medley (before)", before))
    return m

def run(name, jobs):
    return lambda binary: [binary, "run", f"{work}/{name}.yaml", "--quiet", "--force", "--jobs", str(jobs)]

def parallel(command):
    files = sorted(os.listdir(f"{work}/{command[0]}"))
    return ["parallel", "--will-cite", "--halt", "now,fail=1", "-j", "2"] + command[1:] + [":::"] + [f"{work}/{command[0]}/{f}" for f in files]

def measure(title, cases, sample=False):
    """cases: [(label, command)]; interleaved rounds, best wall of each."""
    best = {}
    for r in range(runs):
        for label, command in cases:
            print(f"bench-cores: {title}: {label} (round {r + 1})", file=sys.stderr)
            wall, cpu, one = timed(command, sample and label.startswith("medley"))
            if label not in best or wall < best[label][0]:
                best[label] = (wall, cpu, one)
    return best

def row(cells):
    print("| " + " | ".join(cells) + " |")

print("### One image alone: CIGaussianBlur σ 10 → JPEG Q85 vs `vips gaussblur` (best of %d)\n" % runs)
row(["image", "tool", "wall s", "CPU s", "CPU/wall", "÷ vips gaussblur"])
row(["---", "---", "---:", "---:", "---:", "---:"])
for mp in (2, 12, 24, 50):
    cases = []
    for label, binary in medleys():
        cases.append((f"{label} --jobs 1", run(f"blur{mp}", 1)(binary)))
        cases.append((f"{label} --jobs {cores}", run(f"blur{mp}", cores)(binary)))
    cases.append(("vips gaussblur", ["vips", "gaussblur", f"{work}/big/mp{mp}.jpg", f"{work}/out-vips/b.jpg[Q=85]", "10"]))
    best = measure(f"{mp} MP", cases)
    peer = best["vips gaussblur"][0]
    for label, _ in cases:
        wall, cpu, _ = best[label]
        row([f"{mp} MP", label, f"{wall:.2f}", f"{cpu:.2f}", f"{cpu / wall:.2f}", f"**{wall / peer:.2f}×**" if label.startswith("medley ") and "before" not in label else f"{wall / peer:.2f}×"])

print("\n### The tail of a batch: 7 real photos then one 50 MP image, 2 at a time (best of %d)\n" % runs)
row(["tool", "wall s", "CPU s", "CPU/wall", "time on < 1.5 cores", "time with ≤ 1 runnable thread", "last 10 %: ≤ 1 runnable", "÷ parallel vips"])
row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])
cases = [(label, run("tail", 2)(binary)) for label, binary in medleys()]
cases.append(("parallel -j 2 vips gaussblur", parallel(["tail", "vips", "gaussblur", "{}", f"{work}/out-vips/{{/.}}.jpg[Q=85]", "10"])))
best = measure("tail", cases, sample=True)
peer = best[cases[-1][0]][0]
for label, _ in cases:
    wall, cpu, one = best[label]
    shares = ["—"] * 3 if one is None else [f"{100 * x:.0f} %" for x in one]
    row([label, f"{wall:.2f}", f"{cpu:.2f}", f"{cpu / wall:.2f}"] + shares + [f"{wall / peer:.2f}×"])

print("\n### A full batch, 2 at a time: 12 real photos (best of %d)\n" % runs)
row(["job", "tool", "wall s", "CPU s", "÷ parallel vips"])
row(["---", "---", "---:", "---:", "---:"])
for job, peer_command in (("batchblur", ["batch", "vips", "gaussblur", "{}", f"{work}/out-vips/{{/.}}.jpg[Q=85]", "10"]),
                          ("batchsepia", ["batch", "vips", "recomb", "{}", f"{work}/out-vips/{{/.}}.jpg[Q=85]", f"{work}/sepia.mat"])):
    cases = [(label, run(job, 2)(binary)) for label, binary in medleys()]
    cases.append((f"parallel -j 2 vips {peer_command[2]}", parallel(peer_command)))
    best = measure(job, cases)
    peer = best[cases[-1][0]][0]
    for label, _ in cases:
        wall, cpu, _ = best[label]
        row(["blur σ 10" if job == "batchblur" else "sepia", label, f"{wall:.2f}", f"{cpu:.2f}", f"{wall / peer:.2f}×"])
PY
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
commit=$(git -C "$repo_dir" rev-parse --short HEAD 2>/dev/null || echo "no commit")
echo
echo "- $(nproc) CPUs, $cpu; $(vips --version); commit $commit; $(date -u '+%Y-%m-%d %H:%M UTC'); load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after."
echo "- Command: \`RUNS=$runs benchmarks/bench-cores.sh\`${before:+ with MEDLEY_BEFORE=$before}. Ratios are best wall ÷ the peer's best wall in the same rounds."
