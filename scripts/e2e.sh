#!/usr/bin/env bash
# End-to-end check of the real binary in a real terminal (make e2e): run the
# built-in demo in a detached tmux session at 120x40, read the screen with
# capture-pane, press keys, and check what an operator would see.
# Exits non-zero on the first failure, printing the screen it saw.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
BIN=${BIN:-bin/aipwatch}
SESSION="aipwatch-e2e-$$"
OUT=$(mktemp -d)
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$OUT"' EXIT

command -v tmux >/dev/null || { echo "e2e: tmux is required" >&2; exit 1; }

echo "e2e: building $BIN"
$GO build -o "$BIN" .

screen() { tmux capture-pane -p -t "$SESSION"; }

fail() {
	echo "e2e: FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2 || cat "$OUT/screen" >&2 || true
	echo "------------------" >&2
	exit 1
}

# wait_for TEXT [SECONDS]: until the screen shows TEXT.
wait_for() {
	local text=$1 secs=${2:-20} i
	for ((i = 0; i < secs * 10; i++)); do
		if screen | grep -qF -- "$text"; then
			return 0
		fi
		sleep 0.1
	done
	fail "waited ${secs}s for \"$text\""
}

# absent TEXT: the screen does not show TEXT.
absent() {
	if screen | grep -qF -- "$1"; then
		fail "the screen shows \"$1\""
	fi
}

run() {
	tmux new-session -d -s "$SESSION" -x 120 -y 40 \
		"TERM=xterm-256color $BIN $*; echo \"EXIT=\$?\"; sleep 600"
}

echo "e2e: chat-tools demo"
run --demo=chat-tools
wait_for "aipwatch · act_" 10
wait_for "FOLLOWING" 10
wait_for "terminal" 10 # the tools pane
wait_for "VERIFIED" 30
wait_for "Here's what I found:"
wait_for "• cmd/aipwatch/ holds the entry point" # markdown once finished
wait_for "finish_reason stop"
wait_for "2 tool effects to confirm"
wait_for "read_file README.md"
[ "$(screen | grep -c '✓ completed')" -eq 2 ] || fail "want two completed tool rows"

tmux send-keys -t "$SESSION" t
sleep 0.5
absent "t hides"
absent "✓ completed"
tmux send-keys -t "$SESSION" t
wait_for "✓ completed" 5

tmux send-keys -t "$SESSION" '?'
wait_for "page down" 5
wait_for "resume with:" 5
tmux send-keys -t "$SESSION" '?'
sleep 0.3
absent "page down"

screen >"$OUT/screen"
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
wait_for "verdict: verified"
absent "FOLLOWING" # the alt screen is gone
tmux kill-session -t "$SESSION"

echo "e2e: responses-tools demo, search and export"
# In $OUT, so that e writes its file there.
tmux new-session -d -s "$SESSION" -x 120 -y 40 -c "$OUT" \
	"TERM=xterm-256color $PWD/$BIN --demo=responses-tools; echo \"EXIT=\$?\"; sleep 600"
wait_for "VERIFIED" 30
wait_for "/ search" 5
tmux send-keys -t "$SESSION" /
wait_for "enter find" 5
tmux send-keys -t "$SESSION" -l "TEST"
wait_for "/TEST  5 matches" 5
tmux send-keys -t "$SESSION" Enter
wait_for "search “TEST” 1/5" 5
tmux send-keys -t "$SESSION" n
wait_for "search “TEST” 2/5" 5
tmux send-keys -t "$SESSION" N N
wait_for "search “TEST” 5/5" 5 # wraps around
tmux send-keys -t "$SESSION" Escape
sleep 0.3
absent "search “"
absent "n/N"
tmux send-keys -t "$SESSION" e
wait_for "exported to aipwatch-act_sim_responses_tools_01-" 5
md=$(ls "$OUT"/aipwatch-act_sim_responses_tools_01-*.md 2>/dev/null | head -1)
[ -n "$md" ] || fail "no export file in $OUT"
[ "$(stat -c %a "$md")" = 600 ] || fail "export mode $(stat -c %a "$md"), want 600"
grep -q "Fix the flaky test" "$md" || fail "the export lacks the transcript"
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"

echo "e2e: long demo, cancel with c then y"
run --demo=long
wait_for "Paragraph 1." 15
tmux send-keys -t "$SESSION" c
wait_for "cooperative stop" 5
tmux send-keys -t "$SESSION" y
wait_for "CANCELLED" 20
tmux send-keys -t "$SESSION" q
wait_for "EXIT=7" 10
wait_for "verdict: cancelled"
tmux kill-session -t "$SESSION"

echo "e2e: long demo, detach with q"
run --demo=long
wait_for "Paragraph 1." 15
tmux send-keys -t "$SESSION" q
wait_for "EXIT=8" 10
wait_for "resume with: aipwatch"
absent "cancel requested"
tmux kill-session -t "$SESSION"

echo "e2e: the console: live list, follow one action, back, another"
run --demo=console
wait_for "aipwatch · console" 10
wait_for "global event log: live" 10
wait_for "act_sim_console_done_responses" 10
wait_for "(sync)" 10          # a synchronous stream, known only from the global log
wait_for "EXPIRED" 10         # the stuck worker's lease
tmux send-keys -t "$SESSION" / d o n e _ r e s p Enter
wait_for "1 actions" 5
tmux send-keys -t "$SESSION" Enter
wait_for "aipwatch · act_sim_console_done_responses" 10
wait_for "VERIFIED" 15
tmux send-keys -t "$SESSION" Escape
wait_for "aipwatch · console" 5
wait_for "act_sim_console_done_responses" 5
tmux send-keys -t "$SESSION" Escape   # clears the filter (a lone esc: not alt+3)
sleep 0.3
tmux send-keys -t "$SESSION" 3
wait_for "filter settled" 5
absent "act_sim_console_sync_long"
tmux send-keys -t "$SESSION" / d e a d Enter Enter
wait_for "aipwatch · act_sim_console_dead_lettered" 10
wait_for "FAILED" 15
tmux send-keys -t "$SESSION" Escape
wait_for "aipwatch · console" 5
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"

echo "e2e: ok"
