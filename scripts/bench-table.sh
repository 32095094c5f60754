#!/usr/bin/env bash
# make bench: the Go benchmarks and the end-to-end script, as one table of
# the issue's targets. Ratios are against references measured in the same
# run (the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp); trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'IngestRatio' -benchtime 3s ./stream/ | tee -a "$out" >&2
go test -run '^$' -bench 'Frame|Resize|Latency' -benchtime 200x -timeout 30m ./ui/ | tee -a "$out" >&2
bash scripts/bench-e2e.sh | tee -a "$out" >&2
awk '
function metric(line, unit,   i, n, f) { n = split(line, f, /[ \t]+/); for (i = 2; i <= n; i++) if (f[i] == unit) return f[i-1]; return "" }
/^BenchmarkIngestRatio/ { ing = metric($0, "x-ref"); fr = metric($0, "frames/s"); ref = metric($0, "ref-frames/s") }
/^BenchmarkFrame\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); fp[p[2] " " p[3]] = metric($0, "p99-ms") }
/^BenchmarkResize/ { rs = metric($0, "p99-ms") }
/^BenchmarkLatency/ { lat = metric($0, "delta-p99-ms") }
/^e2e\// { e2e[$1] = $2 }
END {
  printf "\n%-46s %-22s %s\n", "measure", "result", "target"
  printf "%-46s %-22s %s\n", "1 ingest vs encoding/json into any", sprintf("%.2fx (%d vs %d frames/s)", ing, fr, ref), ">= 2x"
  printf "%-46s %-22s %s\n", "2 e2e CPU vs bare curl", e2e["e2e/aipwatch-x-curl"] "x", "<= 2x"
  printf "%-46s %-22s %s\n", "2 e2e: curl|sed|jq vs bare curl", e2e["e2e/jq-pipeline-x-curl"] "x", "(reference)"
  printf "%-46s %-22s %s\n", "2 e2e vs curl reading follow + result", e2e["e2e/aipwatch-x-curl+result"] "x", "(floor with the same bytes)"
  n = split("120x40 200x60", S, " ")
  for (i = 1; i <= n; i++) {
    m = split("10KB 1MB 10MB 50MB", T, " ")
    for (j = 1; j <= m; j++) printf "%-46s %-22s %s\n", "3 View p99 " S[i] " " T[j], fp[S[i] " " T[j]] " ms", "< 1 ms"
    if (fp[S[i] " 10KB"] > 0) printf "%-46s %-22s %s\n", "3 View p99 50MB / 10KB at " S[i], sprintf("%.2fx", fp[S[i] " 50MB"] / fp[S[i] " 10KB"]), "<= 1.5x"
  }
  printf "%-46s %-22s %s\n", "3 resize of the 10 MB transcript (p99)", rs " ms", "< 50 ms"
  printf "%-46s %-22s %s\n", "4 delta on screen at 1,000/s (p99)", lat " ms", "<= 50 ms"
}' "$out"
