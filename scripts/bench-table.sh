#!/usr/bin/env bash
# make bench: the Go benchmarks and the end-to-end script, as one table of
# the figures and targets in docs/performance.md. Ratios are against
# references measured in the same run (the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp); trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'IngestRatio' -benchtime 3s ./stream/ | tee -a "$out" >&2
go test -run '^$' -bench 'Frame|Resize|Latency' -benchtime 2000x -timeout 30m ./ui/ | tee -a "$out" >&2
go test -run '^$' -bench 'TerminalBytes' -benchtime 1000x -timeout 10m ./ui/ | tee -a "$out" >&2
go test -run '^$' -bench 'FirehoseMemory' -benchtime 1x -timeout 20m ./ui/ | tee -a "$out" >&2
# The split view: four panes at 1,000 deltas/s each, beside one pane at 4,000/s,
# then the two in turns (4vs1: four panes' CPU over one pane's).
go test -run '^$' -bench 'SplitStream' -benchtime 20x -timeout 10m ./ui/split/ | tee -a "$out" >&2
# Hostile orders (100,000 chunks; 20,000 Responses items), the View with
# 20,000 items, memory a chunk, the streamed result.
go test -run '^$' -bench 'HostileJSONL' -benchtime 3x -timeout 30m ./output/ | tee -a "$out" >&2
go test -run '^$' -bench 'HostileTUI' -benchtime 2x -timeout 30m ./ui/ | tee -a "$out" >&2
go test -run '^$' -bench 'FrameItems' -benchtime 2000x -timeout 30m ./ui/ | tee -a "$out" >&2
go test -run '^$' -bench 'ChunkMemory' -benchtime 1x -timeout 30m ./model/ | tee -a "$out" >&2
go test -run '^$' -bench 'ResultReply' -benchtime 3s ./stream/ | tee -a "$out" >&2
bash scripts/bench-e2e.sh | tee -a "$out" >&2
# The console and ls on a production-sized daemon, beside the naive reading.
bash scripts/bench-fleet.sh | tee -a "$out" >&2
# aipwatch serve: 1, 5 and 20 SSH sessions of the console and of a live view (about 4 min).
go test -run '^$' -bench 'Serve' -benchtime 1x -timeout 30m ./serve/ | tee -a "$out" >&2
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out" >&2
awk '
function metric(line, unit,   i, n, f) { n = split(line, f, /[ \t]+/); for (i = 2; i <= n; i++) if (f[i] == unit) return f[i-1]; return "" }
/^BenchmarkIngestRatio/ { ing = metric($0, "x-ref"); fr = metric($0, "frames/s"); ref = metric($0, "ref-frames/s") }
/^BenchmarkFrame\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); fp[p[2] " " p[3]] = metric($0, "p99-ms"); fc[p[2] " " p[3]] = metric($0, "p99-cpu-ms"); fa[p[2] " " p[3]] = metric($0, "view-allocs") }
/^BenchmarkResize/ { rs = metric($0, "p99-ms"); rsc = metric($0, "p99-cpu-ms"); rs50 = metric($0, "p50-ms") }
/^BenchmarkTerminalBytes/ { tb = metric($0, "bytes/delta") }
/^BenchmarkFirehoseMemory\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2]); mh[p[2]] = metric($0, "heap-MB"); mr[p[2]] = metric($0, "raw-MB"); mx[p[2]] = metric($0, "x-limit") }
/^BenchmarkLatency/ { lat = metric($0, "delta-p99-ms") }
/^BenchmarkSplitStream\/4vs1/ { sx = metric($0, "x-1pane"); sx4 = metric($0, "cpu4-ms/s"); sx1 = metric($0, "cpu1-ms/s") }
/^BenchmarkSplitStream\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2]); sd[p[2]] = metric($0, "delta-p99-ms"); sf[p[2]] = metric($0, "frame-p99-ms"); sfc[p[2]] = metric($0, "frame-p99-cpu-ms"); sc[p[2]] = metric($0, "cpu-ms/s"); sh[p[2]] = metric($0, "heap-MB") }
/^e2e\// { split($1, p, "/"); e2e[p[2] " " p[3]] = $2; if (p[3] == "load") eload[p[2]] = $2 " " $3 " " $4 }
/^BenchmarkHostile(JSONL|TUI)\// { split($1, p, "/"); sub(/-[0-9]+$/, "", p[2]); k = (($1 ~ /TUI/) ? "TUI " : "jsonl ") p[2]; hx[k] = metric($0, "x-normal"); hh[k] = metric($0, "hostile-ms"); hn[k] = metric($0, "normal-ms") }
/^BenchmarkFrameItems/ { fi = metric($0, "p99-ms"); fic = metric($0, "p99-cpu-ms") }
/^BenchmarkChunkMemory/ { cm = metric($0, "heap-MB"); cr = metric($0, "raw-MB"); cb = metric($0, "B/chunk-beyond-raw") }
/^BenchmarkResultReply\/stream/ { rrs = metric($0, "MB/s") }
/^BenchmarkResultReply\/encoding-json-any/ { rrj = metric($0, "MB/s") }
/^BenchmarkServe\// { split($1, p, "/"); sub(/^sessions=/, "", p[3]); sub(/-[0-9]+$/, "", p[3]); k = p[2] " " p[3]; svl[k] = metric($0, "list-req/min"); svf[k] = metric($0, "action-follows"); svr[k] = metric($0, "RSS-MB/session"); svp[k] = metric($0, "frame-p99-ms") }
/^fleet\// { v = $2; for (i = 3; i <= NF; i++) v = v " " $i; fl[$1] = v }
END {
  printf "\n%-46s %-22s %s\n", "measure", "result", "target"
  printf "%-46s %-22s %s\n", "ingest vs encoding/json into any", sprintf("%.2fx (%d vs %d frames/s)", ing, fr, ref), ">= 2x"
  printf "%-46s %-22s %s\n", "rule: to verdict, finished 100,000, jsonl", sprintf("%s s wall, %s s CPU", e2e["100000 aipwatch-wall"], e2e["100000 aipwatch-cpu"]), "(the figure; load " eload["100000"] ")"
  printf "%-46s %-22s %s\n", "rule: curl reading the same bytes (100,000)", sprintf("%s s wall, %s s CPU, %s MB", e2e["100000 curl-wall"], e2e["100000 curl-cpu"], e2e["100000 mb"]), "(reference)"
  printf "%-46s %-22s %s\n", "guard: to verdict, finished 50,000, vs curl", sprintf("%sx (%s vs %s s wall)", e2e["50000 x-curl-wall"], e2e["50000 aipwatch-wall"], e2e["50000 curl-wall"]), "<= 2x"
  printf "%-46s %-22s %s\n", "result skip (streamed) vs encoding/json any", sprintf("%.1fx (%.0f vs %.0f MB/s)", rrs / rrj, rrs, rrj), "(no target)"
  split("descending conflicting responses-items", H, " ")
  for (i = 1; i <= 3; i++) for (m = 0; m < 2; m++) {
    k = (m ? "TUI " : "jsonl ") H[i]
    printf "%-46s %-22s %s\n", "hostile " k " vs normal order", sprintf("%.2fx (%d vs %d ms)", hx[k], hh[k], hn[k]), "<= 2x"
  }
  printf "%-46s %-22s %s\n", "View p99 120x40, 20,000 items (wall; CPU)", sprintf("%.3f; %.3f ms", fi, fic), "< 1 ms"
  printf "%-46s %-22s %s\n", "heap, 1,000,000 one-token chunks", sprintf("%.0f MB (raw %.1f MB)", cm, cr), "<= 350 MB"
  printf "%-46s %-22s %s\n", "bytes a chunk beyond the raw cap", sprintf("%.0f", cb), "(raw capped at 64 MiB)"
  n = split("120x40 200x60", S, " ")
  for (i = 1; i <= n; i++) {
    m = split("10KB 1MB 10MB 50MB", T, " ")
    for (j = 1; j <= m; j++) { k = S[i] " " T[j]; printf "%-46s %-22s %s\n", "View p99 " k " (wall; thread CPU)", sprintf("%.3f; %.3f ms", fp[k], fc[k]), "< 1 ms" }
    if (fp[S[i] " 10KB"] > 0) printf "%-46s %-22s %s\n", "View p99 50MB / 10KB at " S[i] " (wall; CPU)", sprintf("%.2fx; %.2fx", fp[S[i] " 50MB"] / fp[S[i] " 10KB"], fc[S[i] " 50MB"] / fc[S[i] " 10KB"]), "<= 1.5x"
  }
  printf "%-46s %-22s %s\n", "allocations per View (10KB; 50MB, 120x40)", fa["120x40 10KB"] "; " fa["120x40 50MB"], "(fewer: less GC)"
  printf "%-46s %-22s %s\n", "resize of 10 MB p99 (wall; thread CPU)", sprintf("%.1f; %.1f ms", rs, rsc), "< 50 ms"
  printf "%-46s %-22s %s\n", "resize of 10 MB p50", sprintf("%.1f ms", rs50), ""
  printf "%-46s %-22s %s\n", "delta on screen at 1,000/s (p99)", lat " ms", "<= 50 ms"
  printf "%-46s %-22s %s\n", "bytes to the terminal per delta (follow)", sprintf("%.1f", tb), "<= 64"
  printf "%-46s %-22s %s\n", "split 4x1,000/s 240x60: delta on screen p99", sprintf("%s ms (1 pane at 4,000/s: %s)", sd["4panes"], sd["1pane"]), "<= 50 ms"
  printf "%-46s %-22s %s\n", "split 4x1,000/s 240x60: frame p99 (wall; CPU)", sprintf("%s; %s ms (1 pane: %s; %s)", sf["4panes"], sfc["4panes"], sf["1pane"], sfc["1pane"]), "<= 8 ms"
  printf "%-46s %-22s %s\n", "split: CPU a second of stream; heap (4; 1)", sprintf("%s; %s ms/s, %s; %s MB", sc["4panes"], sc["1pane"], sh["4panes"], sh["1pane"]), "(the figure)"
  printf "%-46s %-22s %s\n", "split: CPU 4 panes / 1 pane, in turns", sprintf("%.2fx (%s vs %s ms/s)", sx, sx4, sx1), "<= 1.5x"
  split("new naive", C, " ")
  for (i = 1; i <= 2; i++) {
    c = C[i]; q = "fleet/" c "/"; lb = (fl[q "history-bytes"] > 0) ? 100 * fl[q "log-bytes"] / fl[q "history-bytes"] : 0
    printf "%-46s %-22s %s\n", "fleet: console " c ": live actions on screen", fl[q "live-shown-s"] (fl[q "live-shown-s"] == "never" ? " (in the run)" : " s"), "<= 2 s (new)"
    printf "%-46s %-22s %s\n", "fleet: console " c ": RSS at the end (ran s)", fl[q "rss-mb"] " MB (" fl[q "ran-s"] ")", "<= 100 MB at 60 s (new)"
    printf "%-46s %-22s %s\n", "fleet: console " c ": list requests a poll (3 s)", fl[q "list-requests-per-poll"], "<= 5 (new)"
    printf "%-46s %-22s %s\n", "fleet: console " c ": global log read / history", sprintf("%.3f%% (%.1f of %.0f MB)", lb, fl[q "log-bytes"] / 1e6, fl[q "history-bytes"] / 1e6), "<= 1% in the first minute (new)"
    printf "%-46s %-22s %s\n", "fleet: console " c ": CPU over the last 20 s", fl[q "cpu-last-20s-pct"] "% of a core", "<= 2% (new)"
    printf "%-46s %-22s %s\n", "fleet: ls " c ": default (s; list requests; MB)", fl[q "ls-s"] "; " fl[q "ls-requests"] "; " fl[q "ls-rss-mb"], "<= 1 s, <= 5 requests (new)"
    printf "%-46s %-22s %s\n", "fleet: ls " c " --all: first row; all (s); rows; MB", fl[q "all-first-row-s"] "; " fl[q "all-s"] "; " fl[q "all-rows"] "; " fl[q "all-rss-mb"], "first row <= 1 s, MB flat (new)"
  }
  if (svl["console 1"] > 0) {
    printf "%-46s %-22s %s\n", "serve: list requests/min, 20 vs 1 session", sprintf("%.2fx (%.0f vs %.0f)", svl["console 20"] / svl["console 1"], svl["console 20"], svl["console 1"]), "<= 1.5x"
    printf "%-46s %-22s %s\n", "serve: follows of one action, 20 live views", svf["live 20"], "1"
    printf "%-46s %-22s %s\n", "serve: RSS a session (console 20; live 20)", sprintf("%s; %s MB", svr["console 20"], svr["live 20"]), "(the figure)"
    printf "%-46s %-22s %s\n", "serve: frame p99 after a key (console 1; 20)", sprintf("%s; %s ms", svp["console 1"], svp["console 20"]), "(the figure)"
  }
  split("model tui model-cap16MiB", M, " ")
  for (i = 1; i <= 3; i++) printf "%-46s %-22s %s\n", "firehose heap vs 3x raw + 20 MB (" M[i] ")", sprintf("%.2fx (%.0f MB, raw %.1f MB)", mx[M[i]], mh[M[i]], mr[M[i]]), "<= 1x"
}' "$out"
