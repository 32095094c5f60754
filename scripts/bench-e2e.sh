#!/usr/bin/env bash
# End-to-end CPU of following the simulator's 100,000-chunk firehose over
# loopback, as ratios against curl reading the follow stream (alone, and
# with the result) and the curl | sed | jq pipeline, each client against a
# fresh simulator in the same run, the median of E2E_RUNS runs each (the
# clients take turns).
# Prints "name value unit" lines for the make bench table. Needs curl; installs jq with apt-get when
# it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${FIREHOSE_N:-100000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v jq >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq jq >/dev/null; }
go build -o "$tmp/aipwatch" . && go build -o "$tmp/aipdsim" ./cmd/aipdsim
port=18700
# once CMD: user+sys seconds of CMD (and its children) against a fresh simulator.
once() {
  port=$((port + 1))
  "$tmp/aipdsim" --listen 127.0.0.1:$port --scenario firehose --firehose-n "$N" >"$tmp/sim.out" 2>&1 &
  local sim=$!
  for _ in $(seq 50); do grep -q '^url:' "$tmp/sim.out" 2>/dev/null && break; sleep 0.02; done
  local url="http://127.0.0.1:$port"
  local follow="$url/aip/v1/actions/act_sim_firehose_01/events?include_chunks=true&follow=true&limit=1000"
  URL=$url FOLLOW=$follow /usr/bin/time -f "%U %S" -o "$tmp/t" bash -c "$1" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; }
  kill $sim; wait $sim 2>/dev/null || true
  # The follow's bytes, when the client is curl (-w below): the follow ends
  # at the terminal frame, so how much of the log it carried depends on how
  # fast the client read while the simulator wrote.
  if [ -n "${2:-}" ]; then awk '/^follow-bytes /{print $2}' "$tmp/err" >>"$2"; fi
  awk '{print $1 + $2}' "$tmp/t"
}
# The four clients take turns, one run each a round, E2E_RUNS (default 5)
# rounds: the box's speed drifts over a minute, and taking turns spreads
# each client's runs over the same minutes. Each is the median of its runs:
# a single run of curl is a few ticks of the CPU clock and moves with the load.
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: >"$tmp/curl" >"$tmp/jq" >"$tmp/aw" >"$tmp/floor" >"$tmp/curl.bytes" >"$tmp/jq.bytes" >"$tmp/floor.bytes"
for _ in $(seq "${E2E_RUNS:-5}"); do
  once 'curl -sN -w "%{stderr}follow-bytes %{size_download}\n" "$FOLLOW" >/dev/null' "$tmp/curl.bytes" >>"$tmp/curl"
  once 'curl -sN -w "%{stderr}follow-bytes %{size_download}\n" "$FOLLOW" | sed -un "s/^data: //p" | jq -c . >/dev/null' "$tmp/jq.bytes" >>"$tmp/jq"
  once "\"$tmp/aipwatch\" --url \"\$URL\" --output jsonl act_sim_firehose_01 >/dev/null" >>"$tmp/aw"
  # A floor that reads what aipwatch must read: the follow stream and the
  # result (every provider frame, twice), with curl.
  once 'curl -sN -w "%{stderr}follow-bytes %{size_download}\n" "$FOLLOW" >/dev/null; curl -s "$URL/aip/v1/actions/act_sim_firehose_01/result" >/dev/null' "$tmp/floor.bytes" >>"$tmp/floor"
done
curl_s=$(median <"$tmp/curl")
jq_s=$(median <"$tmp/jq")
aw_s=$(median <"$tmp/aw")
floor_s=$(median <"$tmp/floor")
mb() { median <"$1" | awk 'NF {printf "%.1f", $1 / 1e6; n++} END {if (!n) printf "?"}'; }
curl_b=$(mb "$tmp/curl.bytes"); jq_b=$(mb "$tmp/jq.bytes"); floor_b=$(mb "$tmp/floor.bytes")
awk -v c="$curl_s" -v j="$jq_s" -v a="$aw_s" -v f="$floor_s" -v cb="$curl_b" -v jb="$jq_b" -v fb="$floor_b" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "e2e/load %s\n", l
  printf "e2e/curl-cpu %.3f s\n", c
  printf "e2e/curl+result-cpu %.3f s\n", f
  printf "e2e/jq-cpu %.3f s\n", j
  printf "e2e/aipwatch-cpu %.3f s\n", a
  printf "e2e/aipwatch-x-curl %.1f x\n", a / c
  printf "e2e/jq-pipeline-x-curl %.1f x\n", j / c
  printf "e2e/aipwatch-x-curl+result %.2f x\n", a / f
  printf "e2e/aipwatch-x-jq %.2f x\n", a / j
  printf "e2e/follow-mb curl %s jq %s curl+result %s MB\n", cb, jb, fb
}'
