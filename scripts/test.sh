#!/usr/bin/env bash
# Sets everything up (Debian packages, test data), builds, and runs the tests: unit tests of every
# module and end-to-end tests that run the medley binary over fixtures and check the results with
# independent tools (ImageMagick, exiftool, vips, ffmpeg, sox, mutagen).
#
# Usage: scripts/test.sh [--fast] [--jobs N] [--no-setup] [CLASS ...]
#   (default)   the full tier: every test class (what CI's .ci/run runs)
#   --fast      the fast tier only (Tests/tiers/fast.txt): the developers' loop, a few minutes
#   --jobs N    test processes at once (default: one more than the cores; MEDLEY_TEST_JOBS too)
#   --no-setup  skip scripts/setup.sh (packages and test data already there)
#   CLASS ...   only these classes (Module.Class, or Class alone), whatever their tier
# Environment: MEDLEY_TEST_JOBS (as --jobs), MEDLEY_SCRATCH_PATH (a build folder other than
# .build), MEDLEY_TEST_CLASS_LIMIT (seconds after which a class counts as hung; 1800),
# MEDLEY_TEST_DATA (the test data cache scripts/test-data.sh fills).
#
# The tiers are class lists checked into Tests/tiers/ (fast.txt, slow.txt: one class a line with
# the seconds it took, which orders the queue longest first); TestTierTests checks that every test
# class is in exactly one of them. Each class runs in a process of its own (classes are
# independent: every test works in a folder of its own), under a time limit that only a hung
# class reaches. Per-test times go to .build/test-times.tsv and the 20 slowest are printed; the
# closing line counts tests, not assertions: "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."

FAST=0
SETUP=1
JOBS=${MEDLEY_TEST_JOBS:-$(( $(nproc) + 1 ))}
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) FAST=1 ;;
    --no-setup) SETUP=0 ;;
    --jobs) JOBS=${2:?--jobs N}; shift ;;
    --jobs=*) JOBS=${1#--jobs=} ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "test.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) ONLY+=("$1") ;;
  esac
  shift
done
# A class that runs longer than this has hung (the slowest takes a few minutes).
CLASS_LIMIT=${MEDLEY_TEST_CLASS_LIMIT:-1800}

[ $SETUP -eq 1 ] && scripts/setup.sh --test --no-build
export PATH="/opt/swift/usr/bin:$PATH"
export MEDLEY_TEST_DATA=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
# --build-tests builds every product, so the end-to-end tests find the medley beside the bundle.
# MEDLEY_SCRATCH_PATH: another build folder than .build (a second checkout's tests, say).
BUILD_ARGS=()
[ -n "${MEDLEY_SCRATCH_PATH:-}" ] && BUILD_ARGS+=(--scratch-path "$MEDLEY_SCRATCH_PATH")
swift build "${BUILD_ARGS[@]}" --build-tests 2>&1 | grep -v "prohibited flag(s): -pthread" >&2
BUNDLE=$(swift build "${BUILD_ARGS[@]}" --show-bin-path 2>/dev/null)/MedleyPackageTests.xctest
[ -x "$BUNDLE" ] || { echo "test.sh: no test bundle at $BUNDLE" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every test the bundle holds, as Module.Class/test, and the classes.
"$BUNDLE" --list-tests 2>/dev/null | grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/' > "$work/tests.txt"
cut -d/ -f1 "$work/tests.txt" | sort -u > "$work/classes.txt"

# The queue: class and expected seconds, longest first.
tier_lines() { grep -hvE '^\s*(#|$)' "$@" | awk '{ print $1, ($2 == "" ? 0 : $2) }'; }
if [ ${#ONLY[@]} -gt 0 ]; then
  for name in "${ONLY[@]}"; do
    match=$(grep -E "^([A-Za-z0-9_]+\.)?${name}$|\.${name}$" "$work/classes.txt" || true)
    [ -n "$match" ] || { echo "test.sh: no test class $name" >&2; exit 2; }
    echo "$match"
  done | sort -u | awk '{ print $1, 0 }' > "$work/queue.txt"
elif [ $FAST -eq 1 ]; then
  tier_lines Tests/tiers/fast.txt > "$work/queue.txt"
else
  tier_lines Tests/tiers/fast.txt Tests/tiers/slow.txt > "$work/queue.txt"
  # A class in no tier still runs in the full tier (TestTierTests fails on it).
  comm -23 "$work/classes.txt" <(cut -d' ' -f1 "$work/queue.txt" | sort -u) | while read -r missing; do
    echo "test.sh: $missing is in no tier (Tests/tiers/*.txt); running it anyway" >&2
    echo "$missing 0"
  done >> "$work/queue.txt"
fi
# A listed class the bundle lacks is an error, not a silent skip.
unknown=$(comm -13 "$work/classes.txt" <(cut -d' ' -f1 "$work/queue.txt" | sort -u))
if [ -n "$unknown" ]; then
  echo "test.sh: in a tier list but not in the test bundle: $unknown" >&2
  exit 2
fi
sort -k2,2gr "$work/queue.txt" | cut -d' ' -f1 > "$work/order.txt"
total_classes=$(wc -l < "$work/order.txt")
echo "test.sh: $total_classes classes, $JOBS at a time" >&2

mkdir -p "$work/logs"
started=$(date +%s)
# One class: its own process, its log, its exit status, its wall time. Failure lines are shown as
# soon as the class ends.
run_class() {
  local class=$1 log="$work/logs/$1.log" begin end status
  begin=$(date +%s.%N)
  status=0
  timeout --kill-after=30 "$CLASS_LIMIT" "$BUNDLE" "$class" > "$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  echo "$status" > "$work/logs/$class.rc"
  local passed failed
  passed=$(grep -cE "Test Case '[^']*' passed \(" "$log" || true)
  failed=$(grep -cE "Test Case '[^']*' failed \(" "$log" || true)
  local line
  line=$(printf '%s: %s passed, %s failed (%.1f s)' "$class" "$passed" "$failed" "$(awk -v a="$begin" -v b="$end" 'BEGIN { print b - a }')")
  [ "$status" -eq 124 ] || [ "$status" -eq 137 ] && line="$line — TIMED OUT after ${CLASS_LIMIT} s"
  [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && [ "$status" -ne 124 ] && line="$line — exit status $status"
  echo "$line" >&2
  if [ "$status" -ne 0 ]; then
    grep -E ": error: |Fatal error|fatalError|Crash|Illegal instruction|Segmentation" "$log" | head -40 | sed 's/^/    /' >&2 || true
  fi
}
export -f run_class
export work BUNDLE CLASS_LIMIT
xargs -a "$work/order.txt" -P "$JOBS" -I{} bash -c 'run_class "$@"' _ {} || true
elapsed=$(( $(date +%s) - started ))

# Every test of the classes run: passed, failed, skipped, or never reported (its process died
# or hung): that one counts as failed.
results="$work/results.tsv"
: > "$results"
while read -r class; do
  log="$work/logs/$class.log"
  module=${class%%.*}
  # XCTest names a case 'Class.test'; the list names it Module.Class/test.
  # (not anchored at the line's start: a child's output without a newline may stand before it)
  sed -nE "s/^.*Test Case '([^']+)' (passed|failed|skipped) \(([0-9.]+) seconds\)$/\1\t\2\t\3/p" "$log" \
    | awk -F'\t' -v module="$module" '{ print module "." $1 "\t" $2 "\t" $3 }' >> "$results"
done < "$work/order.txt"
expected="$work/expected.txt"
grep -Ff <(sed 's|$|/|' "$work/order.txt") "$work/tests.txt" | sed 's|/|.|' | sort -u > "$expected"
cut -f1 "$results" | sort -u > "$work/reported.txt"
comm -23 "$expected" "$work/reported.txt" > "$work/unreported.txt"

passed=$(awk -F'\t' '$2 == "passed"' "$results" | cut -f1 | sort -u | wc -l)
failed=$(awk -F'\t' '$2 == "failed"' "$results" | cut -f1 | sort -u | wc -l)
skipped=$(awk -F'\t' '$2 == "skipped"' "$results" | cut -f1 | sort -u | wc -l)
unreported=$(wc -l < "$work/unreported.txt")

mkdir -p .build
{ printf 'test\tstatus\tseconds\n'; sort -t$'\t' -k3,3gr "$results"; } > .build/test-times.tsv
awk -F'\t' '{ split($1, p, "."); sum[p[1] "." p[2]] += $3 } END { for (c in sum) printf "%s\t%.1f\n", c, sum[c] }' "$results" \
  | sort -t$'\t' -k2,2gr > .build/test-class-times.tsv
echo >&2
echo "The 20 slowest tests (all in .build/test-times.tsv; per class in .build/test-class-times.tsv):" >&2
# (from the file: head closing a pipe early would fail the script under pipefail)
awk -F'\t' 'NR > 1 && NR <= 21 { printf "  %8.1f s  %s\n", $3, $1 }' .build/test-times.tsv >&2
if [ "$failed" -gt 0 ] || [ "$unreported" -gt 0 ]; then
  echo >&2
  echo "Failed:" >&2
  awk -F'\t' '$2 == "failed" { print "  " $1 }' "$results" | sort -u >&2
  sed 's/^/  (no result: its process died or hung) /' "$work/unreported.txt" >&2
  # The failing classes' logs, kept for reading.
  mkdir -p .build/test-logs
  rm -f .build/test-logs/*.log
  for class in $( (awk -F'\t' '$2 == "failed" { print $1 }' "$results"; cat "$work/unreported.txt") | cut -d. -f1,2 | sort -u); do
    cp "$work/logs/$class.log" .build/test-logs/ 2>/dev/null || true
  done
  echo "  (their classes' whole logs: .build/test-logs/)" >&2
fi
echo "test.sh: $elapsed s of tests, $JOBS at a time" >&2
echo "$passed passed, $((failed + unreported)) failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$unreported" -eq 0 ]
