#!/usr/bin/env bash
# soak.sh — `medley watch` over a folder that a seeded script churns for an hour: real photos and sounds
# dropped (written in place, or as hidden files renamed in), replaced, renamed, truncated and deleted; the watch
# stopped by SIGTERM or SIGKILL every few minutes and started again; the export root (a tmpfs) full once.
# Then every input's output is checked with vipsheader/ffprobe, the manifests against the folder and the run
# state, and the watch's RSS per life is printed (benchmarks/soak.py says what each check is).
#
# Usage: benchmarks/soak.sh [--minutes 60] [--seed 1] [--restart-every 180] [--no-full-disk]
# Environment: MEDLEY (default <repo>/.build/release/medley), MEDLEY_TEST_DATA (the test-data cache).
# The full disk needs root (mount -t tmpfs); without root it is left out, and said.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
minutes=60 seed=1 restart=180 full=--full-disk
while (($#)); do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --restart-every) restart=$2; shift 2 ;;
    --no-full-disk) full=""; shift ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
data=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in vipsheader ffprobe; do
  command -v "$tool" >/dev/null || { echo "soak: $tool is missing (scripts/setup.sh --test)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'umount "$work/out" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "soak: $minutes min, seed $seed, a stop every ~$restart s, in $work ($(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores)" >&2
/usr/bin/python3 "$script_dir/soak.py" --medley "$medley" --minutes "$minutes" --seed "$seed" --restart-every "$restart" \
  $full --photos "$data/photos/photos" --audio "$data/realworld-audio-subset/audio" --work "$work"
