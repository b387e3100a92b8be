#!/usr/bin/env bash
# Runs the whole test suite (the README's test command; CI runs exactly this).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
