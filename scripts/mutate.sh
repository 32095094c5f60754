#!/usr/bin/env bash
# make mutate: mutation testing of model/, safe/ and stream/ with gremlins
# (github.com/go-gremlins/gremlins), one package at a time.
#
# gremlins is installed from the Go module proxy into a cache directory on
# first use (never into the repository). Each package's tests run in -short
# mode (the simulator flows skip), with a timeout of a few times a clean run.
# The score lines and the surviving mutants go to $MUTATE_OUT (default
# /tmp/aipwatch-mutate); docs/mutation.md records the last run.
#
#   MUTATE_PKGS="model safe stream"  packages (directories) to mutate
#   MUTATE_WORKERS=2                 mutants tested at once
#   MUTATE_TIMEOUT=3                 gremlins --timeout-coefficient
#   GREMLINS_VERSION=v0.6.0
set -euo pipefail
cd "$(dirname "$0")/.."

version=${GREMLINS_VERSION:-v0.6.0}
pkgs=${MUTATE_PKGS:-model safe stream}
workers=${MUTATE_WORKERS:-2}
timeout=${MUTATE_TIMEOUT:-3}
out=${MUTATE_OUT:-/tmp/aipwatch-mutate}

bindir="${XDG_CACHE_HOME:-$HOME/.cache}/aipwatch/gremlins-$version"
gremlins="$bindir/gremlins"
if [ ! -x "$gremlins" ]; then
	echo "installing gremlins $version into $bindir"
	GOBIN="$bindir" go install "github.com/go-gremlins/gremlins/cmd/gremlins@$version"
fi

mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
for p in $pkgs; do
	echo "== $p ($(date -u +%H:%M:%S) UTC)"
	start=$(date +%s)
	GOFLAGS=-short "$gremlins" unleash --workers "$workers" --test-cpu 1 \
		--timeout-coefficient "$timeout" -o "$out/$p.json" "./$p" >"$out/$p.log" 2>&1 || true
	secs=$(($(date +%s) - start))
	killed=$(sed -n 's/^Killed: \([0-9]*\), Lived: \([0-9]*\), Not covered: \([0-9]*\)$/\1/p' "$out/$p.log")
	lived=$(sed -n 's/^Killed: \([0-9]*\), Lived: \([0-9]*\), Not covered: \([0-9]*\)$/\2/p' "$out/$p.log")
	uncovered=$(sed -n 's/^Killed: \([0-9]*\), Lived: \([0-9]*\), Not covered: \([0-9]*\)$/\3/p' "$out/$p.log")
	timedout=$(sed -n 's/^Timed out: \([0-9]*\), .*/\1/p' "$out/$p.log")
	if [ -z "$killed" ]; then
		echo "$p: gremlins gave no score; see $out/$p.log" | tee -a "$summary"
		continue
	fi
	# Efficacy as gremlins counts it (killed over killed + lived), and a
	# stricter score that also counts mutants no test reaches as survivors.
	# A timed-out mutant is a detected one (the tests did not pass).
	awk -v p="$p" -v k="$killed" -v l="$lived" -v u="$uncovered" -v t="${timedout:-0}" -v s="$secs" 'BEGIN {
		printf "%s: killed %d, timed out %d, lived %d, not covered %d; efficacy %.1f%%, with not covered %.1f%% (%d s)\n",
			p, k, t, l, u, 100*(k+t)/(k+t+l), 100*(k+t)/(k+t+l+u), s }' | tee -a "$summary"
	grep -E '^ *(LIVED|NOT COVERED) ' "$out/$p.log" | sed "s|^ *|  $p/|" >>"$summary" || true
done
echo "summary: $summary"
