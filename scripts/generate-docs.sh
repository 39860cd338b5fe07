#!/usr/bin/env bash
# Rewrites the reference files made from the declarations in the code: docs/filters.md (the filter
# catalogue), docs/cli.md and docs/medley.1 (the command table). Run it after changing a filter's
# attributes or a command's options; GeneratedDocsTests fails while a committed file differs.
# Usage: scripts/generate-docs.sh   (builds the debug medley binary if needed, then runs `medley docs`)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
swift build --product medley >&2
"$(swift build --show-bin-path)/medley" docs --root .
