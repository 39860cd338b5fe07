#!/usr/bin/env bash
# Sets everything up (Debian packages) and runs the whole test suite: unit tests of every
# module and end-to-end tests that run the medley binary over fixtures and check the results
# with independent tools (ImageMagick, exiftool, vips).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-build
export PATH="/opt/swift/usr/bin:$PATH"
# --build-tests builds every product, so the end-to-end tests find .build/debug/medley.
swift build --build-tests 2>&1 | grep -v "prohibited flag(s): -pthread" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# The suites are XCTest; Swift Testing would only add a "0 tests" line after them.
swift test --skip-build --disable-swift-testing "$@" 2>&1 | grep -v "prohibited flag(s): -pthread" | tee "$log" || status=$?
# One plain closing line for CI: "N passed, N failed" (XCTest's own totals, skipped tests apart).
summary=$(grep -E "Executed [0-9]+ tests?, with" "$log" | tail -1 || true)
if [ -n "$summary" ]; then
  total=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
  failed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")
  skipped=$(grep -oE "with [0-9]+ tests? skipped" <<<"$summary" | grep -oE "[0-9]+" || echo 0)
  echo "$((total - failed - skipped)) passed, $failed failed, $skipped skipped"
fi
exit "$status"
