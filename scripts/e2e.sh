#!/usr/bin/env bash
# End-to-end check of the real binary in a real terminal (make e2e): run the
# built-in demo in a detached tmux session at 120x40, read the screen with
# capture-pane, press keys, and check what an operator would see. The HTML
# report is opened in a real browser (headless Chromium): a screenshot of
# it, and no message on the browser's console.
# Exits non-zero on the first failure, printing the screen it saw.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
BIN=${BIN:-bin/aipwatch}
SESSION="aipwatch-e2e-$$"
OUT=$(mktemp -d)
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$OUT"' EXIT

command -v tmux >/dev/null || { echo "e2e: tmux is required" >&2; exit 1; }
command -v openssl >/dev/null || { echo "e2e: openssl is required (the private CA of the --cacert run)" >&2; exit 1; }
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "e2e: chromium is required (the HTML report in a browser: apt-get install chromium)" >&2; exit 1; }

# A tmux server of its own (other tmux users on the machine neither see nor
# disturb it), kept up by an idle session: without one, killing a run's
# session stops the server, and the next run can race its exit ("server
# exited unexpectedly").
tmux() { command tmux -L "$SESSION" "$@"; }
tmux new-session -d -s "$SESSION-keep" -x 80 -y 24 "sleep 3600"
trap 'tmux kill-server 2>/dev/null || true; rm -rf "$OUT"' EXIT

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

# gone TEXT [SECONDS]: until the screen no longer shows TEXT (after a key
# that hides it: the next frame may not be drawn yet).
gone() {
	local text=$1 secs=${2:-5} i
	for ((i = 0; i < secs * 10; i++)); do
		if ! screen | grep -qF -- "$text"; then
			return 0
		fi
		sleep 0.1
	done
	fail "waited ${secs}s for \"$text\" to go"
}

# absent TEXT: the screen does not show TEXT (now: for a screen already
# drawn, after a wait_for of what it shows).
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
# Chat tool calls inline, where they started, and the pane as the summary.
wait_for "⟶ 💻 terminal ls -la · ✓ completed"
wait_for "⟶ 📖 read_file README.md · ✓ completed"
[ "$(screen | grep -c '✓ completed  ')" -eq 2 ] || fail "want two completed rows in the tools pane"
screen | grep -n "I'll take a look at the project layout first." | grep -qv "The tree is small" ||
	fail "the text before and after the first tool call reads as one line"

tmux send-keys -t "$SESSION" t
gone "t hides"
gone "✓ completed  " # the pane's rows (the inline lines stay)
tmux send-keys -t "$SESSION" t
wait_for "✓ completed  " 5

tmux send-keys -t "$SESSION" '?'
wait_for "page down" 5
absent "resume with:" # settled (and a demo): nothing to resume
absent "detach"
tmux send-keys -t "$SESSION" '?'
gone "page down"

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
gone "search “"
gone "n/N"
tmux send-keys -t "$SESSION" e
wait_for "export as:" 5
tmux send-keys -t "$SESSION" m
wait_for "exported to aipwatch-act_sim_responses_tools_01-" 5
md=$(ls "$OUT"/aipwatch-act_sim_responses_tools_01-*.md 2>/dev/null | head -1)
[ -n "$md" ] || fail "no export file in $OUT"
[ "$(stat -c %a "$md")" = 600 ] || fail "export mode $(stat -c %a "$md"), want 600"
grep -q "Fix the flaky test" "$md" || fail "the export lacks the transcript"
grep -q "^## Timeline" "$md" || fail "the export lacks the timeline"

# The timeline (v): the tools as lettered bars, the verdict at the end.
tmux send-keys -t "$SESSION" v
wait_for "whole turn" 5
wait_for "C completed" 5
wait_for "VERIFIED" 5
screen | grep -q "read_file .*├.*C" || fail "no lettered bar for read_file"
tmux send-keys -t "$SESSION" +
wait_for "×2 ·" 5
tmux send-keys -t "$SESSION" v
gone "whole turn"

# The HTML report (e, h), opened in headless Chromium.
tmux send-keys -t "$SESSION" e
wait_for "export as:" 5
tmux send-keys -t "$SESSION" h
wait_for ".html" 5
html=$(ls "$OUT"/aipwatch-act_sim_responses_tools_01-*.html 2>/dev/null | head -1)
[ -n "$html" ] || fail "no HTML report in $OUT"
[ "$(stat -c %a "$html")" = 600 ] || fail "report mode $(stat -c %a "$html"), want 600"
grep -q "<svg" "$html" || fail "the report lacks its timeline"
if grep -qiE '<(script|iframe|img|object|embed|link|base)|<[a-z][^>]*[[:space:]](on[a-z]+|href|src)=' "$html"; then
	fail "the report has a script, a link, a load or an event handler"
fi
echo "e2e: the HTML report in $CHROMIUM"
profile=$(mktemp -d)
shot="$OUT/report.png"
# Headless, with nothing of its own on the network; every console message
# (CSP violations too) goes to stderr as a CONSOLE line.
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync --disable-extensions \
	--user-data-dir="$profile" --enable-logging=stderr --v=0 \
	--screenshot="$shot" --window-size=1200,1800 "file://$html" >"$OUT/chromium.out" 2>"$OUT/chromium.err" ||
	{ cat "$OUT/chromium.err" >&2; rm -rf "$profile"; fail "chromium failed on the report"; }
rm -rf "$profile"
[ -s "$shot" ] || fail "chromium took no screenshot"
size=$(stat -c %s "$shot")
[ "$size" -gt 20000 ] || fail "the screenshot is $size bytes: an empty page?"
# The PNG's size, from its IHDR: the window's.
dims=$(od -An -tu1 -j16 -N8 "$shot" | awk '{print (($1*256+$2)*256+$3)*256+$4 "x" (($5*256+$6)*256+$7)*256+$8}')
[ "$dims" = 1200x1800 ] || fail "the screenshot is $dims, want 1200x1800"
if grep -F ":CONSOLE" "$OUT/chromium.err" >&2; then
	fail "the browser's console reported the messages above"
fi
echo "e2e: report screenshot $dims, $size bytes, a quiet console"
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"

echo "e2e: long demo, cancel with c then the ID's last characters"
run --demo=long
wait_for "Paragraph 1." 15
tmux send-keys -t "$SESSION" c
wait_for "cooperative stop" 5
wait_for "type the ID's last 4 characters, g_01, then enter: [····]" 5
# Keys pressed by habit send nothing: y (the old confirmation), enter.
tmux send-keys -t "$SESSION" y Enter
wait_for "(does not match)" 5
absent "cancel requested"
tmux send-keys -t "$SESSION" BSpace
tmux send-keys -t "$SESSION" -l "g_01"
wait_for "[g_01]" 5
tmux send-keys -t "$SESSION" Enter
wait_for "CANCELLED" 20
tmux send-keys -t "$SESSION" q
wait_for "EXIT=7" 10
wait_for "verdict: cancelled"
tmux kill-session -t "$SESSION"

echo "e2e: late-cancel demo, the cancel sent at once lands after the turn"
run --demo=late-cancel
wait_for "cancel requested" 15 # sent once attached, still on the wire
wait_for "nothing else to do ✅" 20
wait_for "cancel came too late: the action had already completed" 20
wait_for "nothing was stopped"
wait_for "VERIFIED"
absent "CANCELLED"
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
wait_for "cancel: cancel came too late: the action had already completed" # the closing lines
wait_for "verdict: verified"
tmux kill-session -t "$SESSION"

echo "e2e: long demo, detach with q"
run --demo=long
wait_for "Paragraph 1." 15
tmux send-keys -t "$SESSION" q
wait_for "EXIT=8" 10
wait_for "its built-in simulator stopped with it" # a demo: nothing to resume
wait_for "run the demo again with: $BIN --demo=long"
absent "resume with:"
absent "cancel requested"
tmux kill-session -t "$SESSION"

echo "e2e: the console: live list, follow one action, back, another"
run --demo=console
wait_for "aipwatch · console" 10
wait_for "global event log: live" 10
wait_for "act_sim_console_done_responses" 10
wait_for "(sync)" 10          # a synchronous stream, known only from the global log
wait_for "EXPIRED" 10         # the stuck worker's lease
wait_for "chunks/s" 5         # the pulse (design §13)
wait_for "not verified" 15    # once rows are judged
tmux send-keys -t "$SESSION" p
sleep 0.3
absent "chunks/s"             # p folds it away
tmux send-keys -t "$SESSION" p
wait_for "chunks/s" 5
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

echo "e2e: chat-error demo, why it failed (TUI, then plain)"
run --demo=chat-error
wait_for "FAILED" 30
wait_for "error: upstream model 500" # the status bar
tmux send-keys -t "$SESSION" q
wait_for "EXIT=4" 10
wait_for "error: upstream model 500" # the closing lines
wait_for "verdict: failed"
tmux kill-session -t "$SESSION"
out=$($BIN --demo=chat-error --output plain 2>&1) && code=0 || code=$?
[ "$code" = 4 ] || { echo "$out"; fail "chat-error plain: exit $code, want 4"; }
printf '%s\n' "$out" | tail -2 | head -1 | grep -qx "error: upstream model 500" ||
	{ echo "$out"; fail "plain lacks the error line before the verdict"; }
out=$($BIN --demo=responses-failed --output jsonl 2>/dev/null) || true
printf '%s\n' "$out" | tail -1 | grep -qF '"detail":"upstream provider returned HTTP 502 (Bad Gateway)"' ||
	{ echo "$out" | tail -1; fail "jsonl verdict lacks the detail"; }

echo "e2e: responses-tools at 80x24, G reaches the end once settled"
tmux new-session -d -s "$SESSION" -x 80 -y 24 \
	"TERM=xterm-256color $BIN --demo=responses-tools; echo \"EXIT=\$?\"; sleep 600"
wait_for "VERIFIED" 30
tmux send-keys -t "$SESSION" g
wait_for "── scrolled · G goes to the end" 5
tmux send-keys -t "$SESSION" G
wait_for "── end ─" 5
wait_for '"exit_code": 0' 5 # the last tool's output, the transcript's last lines
screen | grep -q "── end ─.* [0-9]*–\([0-9]*\)/\1 ──" || fail "G did not reach the last line"
tmux send-keys -t "$SESSION" g
wait_for "── scrolled" 5
for _ in $(seq 1 30); do tmux send-keys -t "$SESSION" j; done
wait_for "── end ─" 5 # scrolling back to the end resumes
# The timeline at 80 columns: the verdict at its end, not cut.
tmux send-keys -t "$SESSION" v
wait_for "whole turn" 5
wait_for "VERIFIED" 5
screen | grep -q " verdict .*VERIFIED [0-9.]*s ■$" || fail "the timeline's verdict is not at its end"
wait_for "C completed" 5 # the legend: tmux cuts nothing that fits
tmux send-keys -t "$SESSION" v
gone "whole turn"
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"

echo "e2e: stdin redirected (xargs gives /dev/null): the keys still come from the terminal"
run --demo=chat-tools "</dev/null"
wait_for "VERIFIED" 30
absent "EXIT="
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"

echo "e2e: a start-up error is one line on stderr with a hint, no full screen"
run --url http://127.0.0.1:1 act_e2e_nowhere
wait_for "EXIT=1" 15
wait_for "aipwatch: error: status:"
wait_for "hint: is aipd running at http://127.0.0.1:1? check --url or \$AIP_URL"
absent "FOLLOWING"
absent "c cancel"
tmux kill-session -t "$SESSION"
# The same with stderr to a file: the error and the hint are there, not on
# the terminal (stdout stays a terminal: the TUI's path).
run --url http://127.0.0.1:1 act_e2e_nowhere "2>$OUT/startup.err"
wait_for "EXIT=1" 15
absent "aipwatch: error:"
grep -qF "aipwatch: error: status:" "$OUT/startup.err" || fail "the start-up error is not on stderr"
grep -qF "hint: is aipd running at http://127.0.0.1:1?" "$OUT/startup.err" || fail "the hint is not on stderr"
tmux kill-session -t "$SESSION"

echo "e2e: review of a finished action times its tools from aipd's event times"
$GO build -o "$OUT/aipdsim" ./cmd/aipdsim
"$OUT/aipdsim" --listen 127.0.0.1:0 --scenario chat-tools --speed 4 >"$OUT/sim.out" 2>&1 &
SIMPID=$!
trap 'kill $SIMPID 2>/dev/null || true; tmux kill-server 2>/dev/null || true; rm -rf "$OUT"' EXIT
for _ in $(seq 1 100); do grep -q '^action:' "$OUT/sim.out" && break; sleep 0.1; done
SIMURL=$(sed -n 's/^url: //p' "$OUT/sim.out")
SIMACT=$(sed -n 's/^action: //p' "$OUT/sim.out")
$BIN --url "$SIMURL" --output plain "$SIMACT" >/dev/null 2>&1 || fail "the live run of $SIMACT failed"
run --url "$SIMURL" "$SIMACT" # now a review
wait_for "REVIEW" 15
wait_for "VERIFIED" 15
screen | grep -E "terminal +ls -la +✓ completed +0\.[1-9]s|terminal +ls -la +✓ completed +[1-9]" >/dev/null ||
	fail "the review shows the terminal tool without its recorded duration"
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"
kill $SIMPID 2>/dev/null || true
wait $SIMPID 2>/dev/null || true

echo "e2e: the resume command of a --cacert --redact run works as printed"
# A private CA, and the simulator over https with a certificate it signed.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=aipwatch e2e CA" \
	-keyout "$OUT/ca.key" -out "$OUT/ca.pem" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$OUT/srv.key" -out "$OUT/srv.csr" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' >"$OUT/san.ext"
openssl x509 -req -in "$OUT/srv.csr" -CA "$OUT/ca.pem" -CAkey "$OUT/ca.key" -CAcreateserial -days 1 \
	-extfile "$OUT/san.ext" -out "$OUT/srv.pem" >/dev/null 2>&1
"$OUT/aipdsim" --listen 127.0.0.1:0 --scenario chat-tools --speed 0.5 \
	--tls-cert "$OUT/srv.pem" --tls-key "$OUT/srv.key" >"$OUT/tls.out" 2>&1 &
SIMPID=$!
for _ in $(seq 1 100); do grep -q '^action:' "$OUT/tls.out" && break; sleep 0.1; done
TLSURL=$(sed -n 's/^url: //p' "$OUT/tls.out")
TLSACT=$(sed -n 's/^action: //p' "$OUT/tls.out")
tmux new-session -d -s "$SESSION" -x 120 -y 40 -c "$OUT" \
	"TERM=xterm-256color $PWD/$BIN --url $TLSURL --cacert ca.pem --redact $TLSACT; echo \"EXIT=\$?\"; sleep 600"
wait_for "FOLLOWING" 15
wait_for "‹redacted›" 15
tmux send-keys -t "$SESSION" q
wait_for "EXIT=8" 10
resume=$(tmux capture-pane -p -J -t "$SESSION" | sed -n 's/^resume with: //p' | head -1)
[ -n "$resume" ] || fail "no resume command printed"
case "$resume" in
"$PWD/$BIN --url $TLSURL --cacert $OUT/ca.pem --redact "*"--cursor "*" $TLSACT") ;;
*) fail "resume command lacks what the run needs: $resume" ;;
esac
tmux kill-session -t "$SESSION"
# Run it exactly as printed, from another directory: same private CA, still masked.
tmux new-session -d -s "$SESSION" -x 120 -y 40 -c / \
	"TERM=xterm-256color $resume; echo \"EXIT=\$?\"; sleep 600"
wait_for "VERIFIED" 30
wait_for "‹redacted›" 5
absent "take a look" # the prompt-free, masked transcript
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"
kill $SIMPID 2>/dev/null || true
wait $SIMPID 2>/dev/null || true

echo "e2e: aipwatch serve: the console over SSH (OpenSSH's client), a watcher's c refused, an operator's cancel audited"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || { echo "e2e: the OpenSSH client is required (apt-get install openssh-client)" >&2; exit 1; }
SERVEPID=
"$OUT/aipdsim" --listen 127.0.0.1:0 --fleet console >"$OUT/fleet.out" 2>&1 &
FLEETPID=$!
trap 'kill $FLEETPID $SERVEPID 2>/dev/null || true; tmux kill-server 2>/dev/null || true; rm -rf "$OUT"' EXIT
for _ in $(seq 1 100); do grep -q '^url:' "$OUT/fleet.out" && break; sleep 0.1; done
FLEETURL=$(sed -n 's/^url: //p' "$OUT/fleet.out")
[ -n "$FLEETURL" ] || fail "the console fleet never started: $(cat "$OUT/fleet.out")"
mkdir -m 700 "$OUT/serve"
ssh-keygen -q -t ed25519 -N '' -C 'wanda@e2e' -f "$OUT/serve/watch"
ssh-keygen -q -t ed25519 -N '' -C 'olga@e2e' -f "$OUT/serve/oper"
cp "$OUT/serve/watch.pub" "$OUT/serve/watchers" && cp "$OUT/serve/oper.pub" "$OUT/serve/operators"
chmod 600 "$OUT/serve/watchers" "$OUT/serve/operators"
XDG_STATE_HOME="$OUT/serve/state" $BIN serve --url "$FLEETURL" --listen 127.0.0.1:0 \
	--authorized-keys "$OUT/serve/watchers" --operator-keys "$OUT/serve/operators" \
	--audit-log "$OUT/serve/audit.jsonl" >"$OUT/serve.out" 2>&1 &
SERVEPID=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$OUT/serve.out" && break; sleep 0.1; done
SERVEPORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$OUT/serve.out")
[ -n "$SERVEPORT" ] || fail "serve never listened: $(cat "$OUT/serve.out")"
grep -q 'host key made now SHA256:' "$OUT/serve.out" || fail "serve printed no host key fingerprint: $(cat "$OUT/serve.out")"
[ "$(stat -c %a "$OUT/serve/state/aipwatch/ssh_host_ed25519_key")" = 600 ] || fail "the host key is not 0600"
SSHOPTS="-p $SERVEPORT -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o BatchMode=yes -o LogLevel=ERROR"
# The watcher's console: drawn, and its c sends nothing.
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
	"TERM=xterm-256color ssh -t $SSHOPTS -i $OUT/serve/watch 127.0.0.1; echo \"EXIT=\$?\"; sleep 600"
wait_for "aipwatch · console" 20
wait_for "console_async_long" 20
tmux send-keys -t "$SESSION" c
wait_for "no cancel: your key may watch only" 10
tmux send-keys -t "$SESSION" q
wait_for "EXIT=0" 10
tmux kill-session -t "$SESSION"
# No terminal: one line, and closed.
out=$(ssh -T $SSHOPTS -i "$OUT/serve/watch" 127.0.0.1 2>&1 </dev/null || true)
case "$out" in *"no terminal"*) ;; *) fail "a session without a terminal: $out" ;; esac
out=$(ssh -tt $SSHOPTS -i "$OUT/serve/watch" 127.0.0.1 id 2>&1 </dev/null || true)
case "$out" in *"runs no commands"*) ;; *) fail "a command: $out" ;; esac
# The operator's live view of one action: c, the ID's end, enter.
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
	"TERM=xterm-256color ssh -t $SSHOPTS -i $OUT/serve/oper 127.0.0.1 act_sim_console_async_long; echo \"EXIT=\$?\"; sleep 600"
wait_for "act_sim_console_async_long" 20
wait_for "detach" 20
tmux send-keys -t "$SESSION" c
wait_for "Cancel action" 10
tmux send-keys -t "$SESSION" -l "long"
tmux send-keys -t "$SESSION" Enter
for _ in $(seq 1 200); do grep -q '"cancel_answer"' "$OUT/serve/audit.jsonl" 2>/dev/null && break; sleep 0.1; done
grep -q '"event":"cancel".*"name":"olga@e2e"' "$OUT/serve/audit.jsonl" || fail "no audit line of the cancel: $(cat "$OUT/serve/audit.jsonl" 2>&1)"
grep -q '"event":"cancel_answer".*"accepted":true' "$OUT/serve/audit.jsonl" || fail "no audit line of the daemon's answer: $(cat "$OUT/serve/audit.jsonl")"
# SIGTERM: the session is told, the server stops.
kill -TERM $SERVEPID
wait_for "the server is shutting down" 15
wait $SERVEPID || fail "serve exited non-zero after SIGTERM: $(cat "$OUT/serve.out")"
grep -q 'olga@e2e' "$OUT/serve.out" || fail "the session log names nobody: $(cat "$OUT/serve.out")"
tmux kill-session -t "$SESSION"
kill $FLEETPID 2>/dev/null || true
wait $FLEETPID 2>/dev/null || true

echo "e2e: ok"
