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
#   MUTATE_FULL=1                    mutate every file, not the default scope
#   MUTATE_WORKERS=2                 mutants tested at once
#   MUTATE_TIMEOUT=60                gremlins --timeout-coefficient (a mutant gets 60 times
#                                    the clean run: it is built anew, on a shared machine)
#   GREMLINS_VERSION=v0.6.0
#
# The default scope leaves out, to fit a run in about an hour on 2 cores:
#   model/fastjson.go, model/fastdecode.go  the one-pass decoders, held by
#       FuzzFastDecode against encoding/json rather than by unit tests;
#   stream/client.go, daemon.go, run.go, sse.go, settle.go, cursorfree.go  the HTTP
#       client and the run loop, whose tests are the slow timing and network
#       ones (8 s a run even in -short mode).
# and, in that scope, skips the slow tests that hold only the files left
# out (the fast decoders' agreement test; the stream size limits, the idle
# watchdog and keep-alive timings). Skipping can only lose kills: a score
# in the default scope is, if anything, low.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${GREMLINS_VERSION:-v0.6.0}
pkgs=${MUTATE_PKGS:-model safe stream}
workers=${MUTATE_WORKERS:-2}
timeout=${MUTATE_TIMEOUT:-60}
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
	exclude=()
	flags=-short
	if [ -z "${MUTATE_FULL:-}" ]; then
		case $p in
		model)
			exclude=(-E 'fastjson\.go$' -E 'fastdecode\.go$')
			flags="-short -skip=^TestFastDecodersAgreeWithEncodingJSON$"
			;;
		stream)
			exclude=(-E 'client\.go$' -E 'daemon\.go$' -E 'run\.go$' -E 'sse\.go$' -E 'settle\.go$' -E 'cursorfree\.go$')
			flags="-short -skip=^(TestLimit|TestRunIdleWatchdog|TestRunKeepalives)"
			;;
		esac
	fi
	echo "== $p ($(date -u +%H:%M:%S) UTC) ${exclude[*]} $flags"
	start=$(date +%s)
	GOFLAGS="$flags" "$gremlins" unleash --workers "$workers" --test-cpu 1 \
		--timeout-coefficient "$timeout" "${exclude[@]}" -o "$out/$p.json" "./$p" >"$out/$p.log" 2>&1 || true
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
