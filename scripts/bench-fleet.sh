#!/usr/bin/env bash
# The console and `ls` on a production-sized daemon (design §7): the
# simulator with FLEET_ACTIONS settled actions (100,000), FLEET_EVENTS
# history events in its global log (10,000,000) and two live actions (a
# synchronous stream, an async worker), against the naive reading (the
# client at NAIVE_REF, which read the whole list every poll and replayed
# the global log from its start), measured in the same run, each against a
# fresh simulator.
#
# Console (in tmux, 160x40, for FLEET_SECONDS, default 60): seconds until
# both live actions are on screen, RSS at the end, list requests a poll
# (3 s) between 20 s and the end, global-log bytes read by the end against
# the history's, CPU over the last 20 s. The naive console is stopped when
# its RSS passes NAIVE_RSS_CAP_MB (default 2500: the machine is shared).
# ls: the default's wall time, max RSS and list requests; `ls --all`'s
# first row, wall time and max RSS (the naive ls read every row, then
# printed).
#
# Prints "fleet/<client>/<measure> <value>" lines for the make bench table.
# Needs tmux, curl, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONS=${FLEET_ACTIONS:-100000}
EVENTS=${FLEET_EVENTS:-10000000}
SECONDS_RUN=${FLEET_SECONDS:-60}
NAIVE_REF=${NAIVE_REF:-fafd381}
CAP_MB=${NAIVE_RSS_CAP_MB:-2500}
LIVE_SYNC=act_sim_live_sync_stream
LIVE_ASYNC=act_sim_live_async_worker
sock=aipwatch-bench-fleet-$$
tmp=$(mktemp -d)
sim=""
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$sim" ] && kill "$sim" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/new" . && go build -o "$tmp/aipdsim" ./cmd/aipdsim
mkdir "$tmp/naive-src"
git archive "$NAIVE_REF" | tar -x -C "$tmp/naive-src"
(cd "$tmp/naive-src" && go build -o "$tmp/naive" .)
port=18800
# shellcheck source=scripts/fleet-lib.sh
. scripts/fleet-lib.sh
start_sim() { start_fleet_sim --history-actions "$ACTIONS" --history-events "$EVENTS"; }

# console CLIENT: the console's measures against a fresh simulator.
console() {
  local c=$1 bin=$tmp/$1
  start_sim
  tmux -L "$sock" new-session -d -s "$c" -x 160 -y 40 "exec $bin --url $url"
  local pid t0 live="" l20="" c20="" t20="" c40="" stopped="" rss=0 el
  pid=$(tmux -L "$sock" list-panes -t "$c" -F '#{pane_pid}')
  t0=$(now)
  while :; do
    el=$(since "$t0")
    if [ -z "$live" ]; then
      screen=$(tmux -L "$sock" capture-pane -p -t "$c" 2>/dev/null || true)
      if grep -q "$LIVE_SYNC" <<<"$screen" && grep -q "$LIVE_ASYNC" <<<"$screen"; then live=$el; fi
    fi
    rss=$(rss_mb "$pid")
    if [ "$rss" -gt "$CAP_MB" ]; then stopped=$el; break; fi
    if [ -z "$l20" ] && awk -v e="$el" 'BEGIN { exit !(e >= 20) }'; then l20=$(stat list_requests); c20=$(cpu "$pid"); t20=$el; fi
    if [ -z "$c40" ] && awk -v e="$el" -v s="$SECONDS_RUN" 'BEGIN { exit !(e >= s - 20) }'; then c40=$(cpu "$pid"); fi
    awk -v e="$el" -v s="$SECONDS_RUN" 'BEGIN { exit !(e >= s) }' && break
    sleep 0.2
  done
  local l=$(stat list_requests) bytes=$(stat event_bytes) c60=$(cpu "$pid") tend=$el
  tmux -L "$sock" kill-session -t "$c" 2>/dev/null || true
  echo "fleet/$c/live-shown-s ${live:-never}"
  echo "fleet/$c/rss-mb $rss"
  echo "fleet/$c/ran-s $tend${stopped:+ (stopped: RSS over $CAP_MB MB)}"
  if [ -n "$l20" ]; then
    awk -v a="$l20" -v b="$l" -v t0="$t20" -v t1="$tend" 'BEGIN { printf "fleet/'"$c"'/list-requests-per-poll %.1f\n", (b - a) * 3 / (t1 - t0) }'
  else
    echo "fleet/$c/list-requests-per-poll n/a"
  fi
  echo "fleet/$c/list-requests $l"
  echo "fleet/$c/log-bytes $bytes"
  echo "fleet/$c/history-bytes $history"
  awk -v a="${c40:-$c20}" -v b="$c60" -v s="$SECONDS_RUN" 'BEGIN { printf "fleet/'"$c"'/cpu-last-20s-pct %.1f\n", (b - a) * 100 / 20 }'
}

# lsrun CLIENT: the default ls and the whole list, against one simulator.
lsrun() {
  local c=$1 bin=$tmp/$1 l0 l1 t0
  start_sim
  l0=$(stat list_requests)
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" ls --url "$url" >/dev/null
  l1=$(stat list_requests)
  echo "fleet/$c/ls-s $(cut -d' ' -f1 "$tmp/t")"
  echo "fleet/$c/ls-rss-mb $(awk '{ printf "%.0f", $2 / 1024 }' "$tmp/t")"
  echo "fleet/$c/ls-requests $((l1 - l0))"
  local all=(ls --all)
  [ "$c" = naive ] && all=(ls) # the naive ls read every row, then printed
  t0=$(now)
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" "${all[@]}" --url "$url" --output jsonl |
    { read -r _; since "$t0" >"$tmp/first"; wc -l >"$tmp/rows"; }
  echo "fleet/$c/all-first-row-s $(cat "$tmp/first")"
  echo "fleet/$c/all-s $(cut -d' ' -f1 "$tmp/t")"
  echo "fleet/$c/all-rows $(($(cat "$tmp/rows") + 1))"
  echo "fleet/$c/all-rss-mb $(awk '{ printf "%.0f", $2 / 1024 }' "$tmp/t")"
}

start_sim
history=$(curl -s "$url/sim/stats?history=true" | jq -r .history_bytes)
lsrun new
lsrun naive
console new
console naive
echo "fleet/load $(cut -d' ' -f1-3 /proc/loadavg)"
