#!/usr/bin/env bash
# contentful-mirror against the peer (the official Contentful Python SDK, ../shared/bench/
# peer_contentful_py.py), both syncing the same CDA simulator (../shared/bench/cda_sim.py) into
# fresh directories, back to back, each timed with GNU time. Needs ../shared (not in a clone).
# Usage: scripts/bench-peer.sh [entries (default 20000)]
# Env: STATE=dir (reuse a generated simulator state), PEER_VENV=dir (default /tmp/venv-peer),
#      WORK=dir (default a new temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
bench="../shared/bench"
[ -f "$bench/cda_sim.py" ] || { echo "bench-peer.sh: ../shared/bench is not here" >&2; exit 1; }
entries="${1:-20000}"
work="${WORK:-$(mktemp -d /tmp/contentful-mirror-peer-XXXXXX)}"
state="${STATE:-$work/state}"
venv="${PEER_VENV:-/tmp/venv-peer}"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import contentful" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "contentful==2.5.0"
fi
if [ ! -f "$state/space.json" ]; then
  python3 "$bench/cda_sim.py" generate --out "$state" --entries "$entries" \
    --assets $((entries / 5)) --locales 4 --seed 1
fi
swift build -c release --product contentful-mirror >/dev/null
python3 "$bench/cda_sim.py" serve --state "$state" --port 0 --port-file "$work/port" --gzip \
  >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.2; done
port="$(cat "$work/port")"
space="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spaceId"])' "$state/space.json")"
token="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("accessToken","sim-token"))' "$state/space.json")"

measure() {  # label, command...
  local label="$1"; shift
  sync
  /usr/bin/time -f "$label %e s wall, %U s user, %S s sys, %M KB peak RSS" "$@" >/dev/null 2>"$work/$label.time" || {
    cat "$work/$label.time" >&2; exit 1; }
  tail -1 "$work/$label.time"
}
echo "simulator: $entries entries, $((entries / 5)) assets, 4 locales, gzip, port $port"
CONTENTFUL_ACCESS_TOKEN="$token" measure contentful-mirror \
  .build/release/contentful-mirror sync "$work/ours" --space "$space" \
  --host "http://127.0.0.1:$port" --quiet
measure python-sdk-peer "$venv/bin/python" "$bench/peer_contentful_py.py" --space "$space" \
  --token "$token" --host "127.0.0.1:$port" --out "$work/peer"
echo "documents: ours $(find "$work/ours/entries" "$work/ours/assets" -name '*.json' | wc -l)," \
  "peer $(find "$work/peer/entries" "$work/peer/assets" -name '*.json' | wc -l)"
