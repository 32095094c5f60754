#!/usr/bin/env bash
# make mutate: mutation testing of model/, safe/ and stream/ with gremlins
# (github.com/go-gremlins/gremlins), one package at a time. The command
# packages run the same way, a package (and a few files) at a time:
#
#   MUTATE_PKGS="journal submit" make mutate
#   MUTATE_PKGS=output MUTATE_ONLY=list make mutate       (ls's table and jsonl)
#   MUTATE_PKGS=cli MUTATE_ONLY='resume|hint|ls' make mutate
#
# cli's tests take about 30 s a run (each mutant is a build and a run), so
# cli goes a few files at a time; docs/mutation.md has the times.
#
# gremlins is installed from the Go module proxy into a cache directory on
# first use (never into the repository). Each package's tests run in -short
# mode (the simulator flows skip) and with -count=1: gremlins times its
# coverage run to set each mutant's timeout, and a cached run (0.2 s) made
# every mutant "time out". The score lines and the surviving mutants go to
# $MUTATE_OUT (default /tmp/aipwatch-mutate); docs/mutation.md records the
# last run.
#
#   MUTATE_PKGS="model safe stream"  packages (directories) to mutate
#   MUTATE_ONLY='run|settle'         mutate only the files whose base name
#                                    (without .go) matches this extended regexp,
#                                    e.g. to run stream/ a few files at a time
#   MUTATE_FULL=1                    mutate every file, not the default scope
#   MUTATE_WORKERS=2                 mutants tested at once
#   MUTATE_TIMEOUT=10                gremlins --timeout-coefficient: a mutant may
#                                    take 10 times the package's clean test run
#                                    (its build included) before it counts as
#                                    timed out (detected: the tests did not pass)
#   MUTATE_UNCOVERED=1               then run gremlins' "not covered" mutants by hand
#                                    (scripts/mutate_uncovered.py): gremlins' coverage
#                                    map misses every case condition of an
#                                    expression-less switch
#   GREMLINS_VERSION=v0.6.0
#
# The default scope is every file of the three packages but
# model/fastjson.go and model/fastdecode.go, the one-pass decoders (held by
# FuzzFastDecode and TestFastDecodersAgreeWithEncodingJSON against
# encoding/json, whose agreement is their test); their agreement test,
# which holds only them, is skipped. Stream's HTTP client and run loop are
# in scope, with their timing tests.
#
# Time on 2 shared cores at load 7-20, two workers: about 20 minutes per
# 400 mutants (safe/, 251, took 12 min; stream's client and run loop, 370,
# 19 min), so a whole run (about 1,460 mutants) is about 1.5 hours, plus
# 10-70 s for each mutant run by hand (docs/mutation.md).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${GREMLINS_VERSION:-v0.6.0}
pkgs=${MUTATE_PKGS:-model safe stream}
workers=${MUTATE_WORKERS:-2}
timeout=${MUTATE_TIMEOUT:-10}
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
	flags="-short -count=1"
	if [ -z "${MUTATE_FULL:-}" ] && [ "$p" = model ]; then
		exclude=(-E '(^|/)fastjson\.go$' -E '(^|/)fastdecode\.go$')
		flags="$flags -skip=^TestFastDecodersAgreeWithEncodingJSON$"
	fi
	if [ -n "${MUTATE_ONLY:-}" ]; then
		for f in "$p"/*.go; do
			b=$(basename "$f" .go)
			case $b in *_test) continue ;; esac
			if ! [[ $b =~ ^(${MUTATE_ONLY})$ ]]; then
				exclude+=(-E "(^|/)$b\.go\$")
			fi
		done
	fi
	mkdir -p "$(dirname "$out/$p")" # ui/console: its log goes to $out/ui/console.log
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
	if [ -n "${MUTATE_UNCOVERED:-}" ] && [ "${uncovered:-0}" -gt 0 ]; then
		# gremlins' "not covered" includes every case condition of an
		# expression-less switch: run those mutants by hand.
		echo "== $p: $uncovered not-covered mutants by hand ($(date -u +%H:%M:%S) UTC)"
		GOFLAGS="$flags" python3 scripts/mutate_uncovered.py "$out/$p.log" "$p" >"$out/$p.uncovered" 2>&1 || true
		awk -v p="$p" '{ n[$1]++ } END {
			printf "%s, not covered by hand: killed %d, timed out %d, lived %d, not compiling %d, skipped %d\n",
				p, n["KILLED"], n["TIMEDOUT"], n["LIVED"], n["NOBUILD"], n["SKIPPED"] }' "$out/$p.uncovered" | tee -a "$summary"
		grep -E '^(LIVED|SKIPPED) ' "$out/$p.uncovered" | sed 's|^|  |' >>"$summary" || true
	fi
done
echo "summary: $summary"
