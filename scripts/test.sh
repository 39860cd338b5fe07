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
swift test --skip-build "$@" 2>&1 | grep -v "prohibited flag(s): -pthread"
exit "${PIPESTATUS[0]}"
