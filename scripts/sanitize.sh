#!/usr/bin/env bash
# Runs test classes under sanitizers, with the C shims, Medley's Swift and the `medley` binary the
# end-to-end tests start all built with them (docs/fuzzing.md, "Sanitizers"):
#   address  AddressSanitizer (with its leak checker), and UndefinedBehaviorSanitizer on the C shims, in .build/asan:
#            the unit tests of every module with C underneath and the C-shim-heavy end-to-end classes
#   thread   ThreadSanitizer, in .build/tsan: the scheduler, watch, album-pass and crash-safety classes
# Every report, from the test process or any `medley` it starts, goes to a file under
# .build/sanitize/<kind>/ (log_path) and fails the run, whatever the tests themselves say.
# Usage: scripts/sanitize.sh address|thread [CLASS ...]   (CLASS as scripts/test.sh takes it: Module.Class or Class)
# (All in one block, read whole before it runs: editing the script cannot break a run.)
{
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
kind=${1:-}; shift || true
case "$kind" in
  address)
    # Swift's driver takes no -sanitize=undefined on Linux: the C targets get clang's UBSan in trap mode
    # (no runtime to link: undefined behaviour in a shim stops the process with SIGILL, a failed test).
    flags=(--sanitize=address -Xcc -fsanitize=undefined -Xcc -fsanitize-trap=undefined); build=.build/asan
    default=(MedleyKernelsTests MedleySystemTests MedleyTagsTests MedleyMediaTests MedleyCoreTests
             MedleyEndToEndTests.SepiaRunTests MedleyEndToEndTests.CutRunTests MedleyEndToEndTests.SegmentRunTests
             MedleyEndToEndTests.MoviePicturesRunTests MedleyEndToEndTests.RawRunTests) ;;
  thread)
    flags=(--sanitize=thread); build=.build/tsan
    default=(MedleyMediaTests.EncoderThreadTests MedleyEndToEndTests.AlbumPassTests MedleyEndToEndTests.CrashSafetyTests
             MedleyEndToEndTests.WatchTests MedleyCoreTests.WatchArrivalsTests MedleyEndToEndTests.ShardingTests) ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
[ $# -gt 0 ] && classes=("$@") || classes=("${default[@]}")
reports="$PWD/.build/sanitize/$kind"
rm -rf "$reports"; mkdir -p "$reports"
supp="$PWD/scripts/sanitizers"
# GSlice's magazines hand memory from one object to the next without malloc/free, which the
# sanitizers cannot follow (ThreadSanitizer reports the reuse as a race): plain malloc for glib here.
export G_SLICE=always-malloc
common="log_path=$reports/report:exitcode=97:print_stacktrace=1"
export ASAN_OPTIONS="$common:detect_leaks=1:allocator_may_return_null=1:handle_abort=1:suppressions=$supp/asan.supp"
export LSAN_OPTIONS="$common:suppressions=$supp/leaks.supp"
export TSAN_OPTIONS="$common:halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"

echo "sanitize.sh: building $build (${flags[*]})" >&2
nice -n 10 swift build --build-tests "${flags[@]}" --build-path "$build" 2>&1 | grep -E "error:|Compiling|Build" | tail -3 >&2
filter=$(printf '%s\n' "${classes[@]}" | awk '{ if (index($0, ".")) print "^" $0 "/"; else print "(^|\\.)" $0 "(\\.|/)" }' | paste -sd'|')
start=$(date +%s)
set +e
swift test --skip-build "${flags[@]}" --build-path "$build" --filter "$filter" > "$reports/tests.log" 2>&1
status=$?
set -e
passed=$(grep -cE "Test Case .* passed" "$reports/tests.log" || true)
failed=$(grep -cE "Test Case .* failed" "$reports/tests.log" || true)
skipped=$(grep -cE "Test Case .* skipped" "$reports/tests.log" || true)
# A report file may hold only the list of suppressions used (LeakSanitizer writes it at every exit);
# a clean ThreadSanitizer run writes none at all.
mapfile -t found_files < <(grep -lE "==ERROR: |WARNING: ThreadSanitizer" "$reports"/report* 2>/dev/null || true)
found=${#found_files[@]}
used=$({ cat "$reports"/report* 2>/dev/null || true; } | awk '/Suppressions used/ { on = 1; next } on && /^ +[0-9]/ { n[$NF] += $1 } /^---/ { on = 0 } END { for (k in n) printf " %s×%s", n[k], k }')
[ -n "$used" ] && echo "sanitize.sh: suppressions used:$used" >&2
echo "sanitize.sh $kind: $passed passed, $failed failed, $skipped skipped in $(( $(date +%s) - start )) s; $found sanitizer report(s) in $reports" >&2
for file in "${found_files[@]:0:5}"; do echo "== $file" >&2; head -40 "$file" >&2; done
[ "$status" -eq 0 ] && [ "$found" -eq 0 ]
exit
}
