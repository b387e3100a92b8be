#!/usr/bin/env bash
# The quick start's main job: build contentful-mirror, sync the bundled sample space into a
# fresh directory (initial sync over three pages), sync again to apply the recorded delta,
# print the mirror's status, and export it as a reproducible archive.
# Usage: scripts/sample.sh [mirror-dir]   (default: ./sample-mirror; archive: <mirror-dir>.tar.zst)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh

out="${1:-sample-mirror}"
if [ -e "$out" ]; then
  if grep -qs '"host": "recorded:sample-space"' "$out/manifest.json"; then
    rm -rf "$out"  # a mirror an earlier run of this script made: start the demonstration afresh
  else
    echo "sample.sh: $out exists and is not a sample mirror; pass another directory" >&2
    exit 1
  fi
fi

swift build -c release --product contentful-mirror
bin=".build/release/contentful-mirror"

echo "== initial sync of the sample space"
"$bin" sync "$out" --source sample-space
echo "== second sync: applies the recorded delta (updates, a new entry, an unpublish, a deleted asset)"
"$bin" sync "$out"
echo "== status"
"$bin" status "$out"
echo "== export"
"$bin" export "$out" -o "$out.tar.zst"
sha256sum "$out.tar.zst"
echo
echo "The mirror is in $out/ (documents under entries/ and assets/, manifest.json, index/);"
echo "the archive $out.tar.zst restores with: $bin restore $out.tar.zst <new-dir>"
