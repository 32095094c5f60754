# shellcheck shell=bash
# What the fleet benchmarks share (scripts/bench-fleet.sh,
# scripts/bench-stats.sh), sourced by them: a production-sized simulator
# started afresh, its counters, the clock and a process's CPU and RSS.
# The caller sets tmp (with the simulator built at $tmp/aipdsim), port
# and sim ("" before the first).

tck=$(getconf CLK_TCK)

# start_fleet_sim ARGS...: stops the previous simulator and starts a fresh
# --fleet=production one with ARGS on the next port; sets sim and url.
start_fleet_sim() {
  [ -n "$sim" ] && { kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; }
  port=$((port + 1))
  "$tmp/aipdsim" --fleet=production "$@" --listen "127.0.0.1:$port" >"$tmp/sim.out" 2>&1 &
  sim=$!
  for _ in $(seq 100); do grep -q '^url:' "$tmp/sim.out" 2>/dev/null && break; sleep 0.05; done
  url="http://127.0.0.1:$port"
}
stat() { curl -s "$url/sim/stats" | jq -r ".$1"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
cpu() { awk -v t="$tck" '{ print ($14 + $15) / t }' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss_mb() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo 0; }
