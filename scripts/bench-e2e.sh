#!/usr/bin/env bash
# The figure the rule for cleverness uses (docs/performance.md): wall and
# CPU time (user+sys) from start to verdict of `aipwatch --output jsonl`
# on a finished Chat action of N chunks (the simulator's firehose,
# --finished), against curl reading the same bytes in one process: the
# status, every page of the log (walked once beforehand) and the result.
# For each size in E2E_SIZES (default 100000, the figure, and 50000, the
# guard), the two clients take turns for E2E_RUNS rounds (default 5)
# against one simulator, and each is the median of its runs.
# Prints "e2e/N/name value unit" lines for the make bench table. Needs curl.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
sim=
cleanup() { [ -n "$sim" ] && kill "$sim" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/aipwatch" . && go build -o "$tmp/aipdsim" ./cmd/aipdsim
port=18700
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# timed CMD: "wall cpu" of CMD (and its children).
timed() {
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" bash -c "$1" >/dev/null 2>"$tmp/err" || cat "$tmp/err" >&2
  awk '{print $1, $2 + $3}' "$tmp/t"
}
for n in ${E2E_SIZES:-100000 50000}; do
  port=$((port + 1))
  "$tmp/aipdsim" --listen 127.0.0.1:$port --scenario firehose --firehose-n "$n" --finished >"$tmp/sim.out" 2>&1 &
  sim=$!
  for _ in $(seq 100); do grep -q '^url:' "$tmp/sim.out" 2>/dev/null && break; sleep 0.05; done
  act="http://127.0.0.1:$port/aip/v1/actions/act_sim_firehose_01"
  # The URLs aipwatch reads: the status, the pages from the beginning
  # (each page's cursor names the next; the last repeats it), the result.
  { echo "url = \"$act\""; } >"$tmp/curl.cfg"
  cursor=
  for _ in $(seq 100000); do
    page="$act/events?include_chunks=true&limit=1000${cursor:+&cursor=$cursor}"
    echo "url = \"$page\"" >>"$tmp/curl.cfg"
    next=$(curl -s "$page" | grep -o '"cursor":"[^"]*"' | tail -1 | cut -d'"' -f4)
    [ -z "$next" ] || [ "$next" = "$cursor" ] && break
    cursor=$next
  done
  echo "url = \"$act/result\"" >>"$tmp/curl.cfg"
  bytes=$(curl -s -K "$tmp/curl.cfg" | wc -c)
  : >"$tmp/aw" >"$tmp/curl"
  for _ in $(seq "${E2E_RUNS:-5}"); do
    timed "\"$tmp/aipwatch\" --url http://127.0.0.1:$port --output jsonl act_sim_firehose_01" >>"$tmp/aw"
    timed "curl -s -K \"$tmp/curl.cfg\"" >>"$tmp/curl"
  done
  kill "$sim"; wait "$sim" 2>/dev/null || true; sim=
  aw_w=$(cut -d' ' -f1 "$tmp/aw" | median); aw_c=$(cut -d' ' -f2 "$tmp/aw" | median)
  cu_w=$(cut -d' ' -f1 "$tmp/curl" | median); cu_c=$(cut -d' ' -f2 "$tmp/curl" | median)
  awk -v n="$n" -v aw="$aw_w" -v ac="$aw_c" -v cw="$cu_w" -v cc="$cu_c" -v b="$bytes" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
    printf "e2e/%s/load %s\n", n, l
    printf "e2e/%s/aipwatch-wall %.2f s\n", n, aw
    printf "e2e/%s/aipwatch-cpu %.2f s\n", n, ac
    printf "e2e/%s/curl-wall %.2f s\n", n, cw
    printf "e2e/%s/curl-cpu %.2f s\n", n, cc
    printf "e2e/%s/x-curl-wall %.2f x\n", n, (cw > 0 ? aw / cw : 0)
    printf "e2e/%s/mb %.1f MB\n", n, b / 1e6
  }'
done
