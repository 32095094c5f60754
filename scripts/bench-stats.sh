#!/usr/bin/env bash
# The fleet's figures on a production-sized daemon (design §7, §13): the
# simulator's --fleet=production (100,000 settled actions, 10,000,000
# events, two live actions), each command once against a fresh simulator:
# `stats`, `stats --since 1h`, `stats --since 24h`, `ls --verdict`,
# `ls --verdict=failed`: wall time, max RSS (/usr/bin/time -v), the list
# and global-log requests the simulator counts (/sim/stats), the rows
# judged and those not judged (the judge's not_judged, named on stderr).
# Then the console for FLEET_SECONDS (default 60) in tmux, 160x40, with
# and without --notify-on failed: RSS at the end, CPU over the last 20 s.
# The client talks to the simulator through a counting proxy (built here
# from the Go source below, standard library only): every request, the
# action reads (status, log, result) and the actions read, which
# /sim/stats does not count. An action read is one review.
#
# Prints "fleet/<measure> <value>" lines. Needs tmux, curl, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_RUN=${FLEET_SECONDS:-60}
BIN=${AIPWATCH_BIN:-}
sock=aipwatch-bench-stats-$$
tmp=$(mktemp -d)
sim=""
proxy=""
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$sim" ] && kill "$sim" 2>/dev/null || true
  [ -n "$proxy" ] && kill "$proxy" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$BIN" ]; then go build -o "$tmp/aipwatch" . && BIN=$tmp/aipwatch; fi
go build -o "$tmp/aipdsim" ./cmd/aipdsim
mkdir "$tmp/proxy"
cat >"$tmp/proxy/main.go" <<'GO'
// A reverse proxy that counts the requests it passes (GET /proxy/stats).
package main

import (
	"encoding/json"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
)

func main() {
	u, _ := url.Parse(os.Args[2])
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	var mu sync.Mutex
	var all, actionReads int
	ids := map[string]bool{}
	http.HandleFunc("/proxy/stats", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]int{"requests": all, "action_reads": actionReads, "actions_read": len(ids)})
	})
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		all++
		if rest, ok := strings.CutPrefix(r.URL.Path, "/aip/v1/actions/"); ok {
			id, _, _ := strings.Cut(rest, "/")
			actionReads++
			ids[id] = true
		}
		mu.Unlock()
		rp.ServeHTTP(w, r)
	})
	_ = http.ListenAndServe(os.Args[1], nil)
}
GO
(cd "$tmp/proxy" && go build -o "$tmp/countproxy" main.go)
port=18900
# shellcheck source=scripts/fleet-lib.sh
. scripts/fleet-lib.sh

# start_sim: a fresh simulator behind a fresh counting proxy; url is the proxy's.
start_sim() {
  start_fleet_sim
  [ -n "$proxy" ] && { kill "$proxy" 2>/dev/null || true; wait "$proxy" 2>/dev/null || true; }
  "$tmp/countproxy" "127.0.0.1:$((port + 50))" "$url" &
  proxy=$!
  url="http://127.0.0.1:$((port + 50))"
  for _ in $(seq 100); do curl -sf "$url/proxy/stats" >/dev/null && break; sleep 0.05; done
}

# cmd NAME ARGS...: one command, jsonl, against a fresh simulator.
cmd() {
  local name=$1 judged notjudged
  shift
  start_sim
  /usr/bin/time -v -o "$tmp/t" "$BIN" "$@" --url "$url" --output jsonl >"$tmp/out" 2>"$tmp/err" || true
  curl -s "$url/proxy/stats" >"$tmp/p" # before /sim/stats, which goes through the proxy
  echo "fleet/$name/wall-s $(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp/t")"
  echo "fleet/$name/rss-mb $(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$tmp/t")"
  echo "fleet/$name/list-requests $(stat list_requests)"
  echo "fleet/$name/log-requests $(stat event_requests)"
  echo "fleet/$name/requests $(jq .requests "$tmp/p")"
  echo "fleet/$name/action-reads $(jq .action_reads "$tmp/p")"
  echo "fleet/$name/reviews $(jq .actions_read "$tmp/p")"
  # judged: stats' actions with a verdict; ls' rows printed with one
  # (--verdict=failed prints only the failed of the rows it reviewed).
  if [ "${name%%-*}" = stats ]; then
    judged=$(jq -s '[.[] | select(.type == "stats") | .actions - .verdicts.unknown] | add // 0' "$tmp/out")
  else
    judged=$(jq -s '[.[] | select(.verdict != null and .verdict != "" and .verdict != "not_judged" and .verdict != "unknown")] | length' "$tmp/out")
  fi
  notjudged=$(sed -n 's/.*: \([0-9]*\) rows not judged.*/\1/p' "$tmp/err")
  echo "fleet/$name/rows-out $(wc -l <"$tmp/out")"
  echo "fleet/$name/judged $judged"
  echo "fleet/$name/not-judged-in-bound ${notjudged:-0}"
  grep -v 'rows not judged' "$tmp/err" | sed "s|^|fleet/$name/stderr |" || true
}

# console NAME ARGS...: the console for SECONDS_RUN against a fresh simulator.
console() {
  local name=$1 pid t0 c40="" rss el
  shift
  start_sim
  tmux -L "$sock" new-session -d -s "$name" -x 160 -y 40 "exec $BIN --url $url $*"
  pid=$(tmux -L "$sock" list-panes -t "$name" -F '#{pane_pid}')
  t0=$(now)
  while :; do
    el=$(since "$t0")
    rss=$(rss_mb "$pid")
    if [ -z "$c40" ] && awk -v e="$el" -v s="$SECONDS_RUN" 'BEGIN { exit !(e >= s - 20) }'; then c40=$(cpu "$pid"); fi
    awk -v e="$el" -v s="$SECONDS_RUN" 'BEGIN { exit !(e >= s) }' && break
    sleep 0.2
  done
  local c60
  c60=$(cpu "$pid")
  tmux -L "$sock" kill-session -t "$name" 2>/dev/null || true
  curl -s "$url/proxy/stats" >"$tmp/p"
  echo "fleet/$name/rss-mb $rss"
  awk -v a="$c40" -v b="$c60" 'BEGIN { printf "fleet/'"$name"'/cpu-last-20s-pct %.1f\n", (b - a) * 100 / 20 }'
  echo "fleet/$name/list-requests $(stat list_requests)"
  echo "fleet/$name/requests $(jq .requests "$tmp/p")"
  echo "fleet/$name/reviews $(jq .actions_read "$tmp/p")"
}

echo "fleet/load-start $(cut -d' ' -f1-3 /proc/loadavg)"
cmd stats stats
cmd stats-1h stats --since 1h
cmd stats-24h stats --since 24h
cmd ls-verdict ls --verdict
cmd ls-verdict-failed ls --verdict=failed
console console
console console-notify --notify-on failed
echo "fleet/load-end $(cut -d' ' -f1-3 /proc/loadavg)"
