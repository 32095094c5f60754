#!/usr/bin/env bash
# Every fuzz target of the module for FUZZTIME each, one after the other
# (make fuzz: 1m each; make fuzz-ci: 15s each, after make test in CI).
# The targets are found, not listed: the packages whose tests declare a
# `func Fuzz…`, then each package's own list (go test -list), so a target
# added or removed needs no change here. A crasher lands in the package's
# testdata/fuzz/FuzzX/ and plain `go test` replays it from then on: keep
# it, fix what it found. Every target runs even after one fails; the
# script fails at the end, naming them.
set -uo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-1m}
# Minimising every new input for the default 60 s stalls these targets
# (stream/faults/README.md), hence a bound in runs.
FUZZMIN=${FUZZMIN:-20x}

pkgs=$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
if [ -z "$pkgs" ]; then
  echo "fuzz: no fuzz target found" >&2
  exit 1
fi
failed=()
count=0
for dir in $pkgs; do
  pkg="./${dir#./}"
  targets=$($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz') || {
    echo "fuzz: cannot list the targets of $pkg" >&2
    failed+=("$pkg")
    continue
  }
  for target in $targets; do
    count=$((count + 1))
    echo "fuzz: $pkg $target for $FUZZTIME"
    if ! $GO test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMIN"; then
      failed+=("$pkg $target")
    fi
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} of $count target(s) failed (crashers, if any, are in the package's testdata/fuzz/):" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: $count target(s), nothing found"
