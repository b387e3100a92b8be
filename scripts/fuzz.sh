#!/usr/bin/env bash
# Fuzzes the sync-page decoder, the document renderer and the index redo-log reader with libFuzzer.
# Usage: scripts/fuzz.sh [seconds]   (default 600; the corpus lives in .build/fuzz/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
seconds="${1:-600}"
out=.build/fuzz
mkdir -p "$out/corpus"
# Seed corpus: every recorded page of the sample space.
cp sample-space/sync/*.json "$out/corpus/"
printf 'contentful-mirror index redo 1\nW index/items/001.json 3\n{}\nD index/links/abc.json\n' \
  >"$out/corpus/index-redo-seed"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
  -module-name ContentfulMirror \
  -I Sources/CSystem -I Sources/CArchive -I Sources/CCurl -larchive -lcurl \
  $(find Sources/ContentfulMirror -name '*.swift') scripts/fuzz/FuzzEntry.swift \
  -o "$out/fuzz-sync-page"
"$out/fuzz-sync-page" "$out/corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -print_final_stats=1
