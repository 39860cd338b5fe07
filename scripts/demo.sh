#!/usr/bin/env bash
# Sets everything up (Debian packages, release build) and runs the example sepia pipeline over
# the bundled fixtures. The toned photos land in out/sepia/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== medley run pipelines/sepia-photos.yaml" >&2
.build/release/medley run pipelines/sepia-photos.yaml "$@"
echo "== outputs:" >&2
find out/sepia -type f -not -path '*/.medley/*' | sort >&2
