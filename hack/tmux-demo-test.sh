#!/usr/bin/env bash
# tmux-demo-test.sh BINARY drives the real chunkview binary in a terminal: it starts
# `BINARY --demo` in a detached 120x40 tmux session, types keys, and checks what the
# screen shows at each step (the release list with a demo release and a broken row,
# the store and fill of every release and the forecast of one near 1 MiB,
# a history, a chunk layout marking a missing chunk, a diff with a masked secret,
# from the failing release to its crashing Pod's log and a hook's masked log,
# :ctx switching to the demo-staging context and back, a clean quit; then at 80x24 read-only, the footer and hints; the OLMv1 demo
# refusing to roll back an extension's release; then Ctrl-C at a CLI
# confirmation prompt). Each check polls the pane until the text shows or a timeout
# passes, so it neither sleeps blindly nor depends on the machine's speed.
#
# On failure it prints what was expected and the captured screen, and exits 1. The
# tmux server it starts is private to this run (its own socket) and is always
# killed on exit.
#
# Environment: TMUX_TEST_TIMEOUT, seconds to wait for each screen (default 15).
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: $0 BINARY" >&2
	exit 2
fi
bin=$1
if [[ ! -x $bin ]]; then
	echo "$0: $bin is not an executable; build it first (make build)" >&2
	exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
if ! command -v tmux >/dev/null 2>&1; then
	echo "$0: tmux is not installed; install it to run the terminal test" >&2
	exit 1
fi

timeout=${TMUX_TEST_TIMEOUT:-15}
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/chunkview-tmux.XXXXXX")
# The demo keeps its snapshot in this run's directory, never the user's cache:
# the first start seeds, the later ones read it back, as a user's would.
export CHUNKVIEW_DEMO_CACHE=$tmpdir/demo-cache
socket=$tmpdir/tmux.sock
session=demo
step="starting"

tm() { tmux -S "$socket" -f /dev/null "$@"; }
cleanup() {
	tm kill-server >/dev/null 2>&1 || true
	rm -rf "$tmpdir"
}
trap cleanup EXIT

screen() { tm capture-pane -p -t "$session" 2>/dev/null || true; }

fail() {
	echo "FAIL [$step]: $*" >&2
	echo "----- screen (120x40) -----" >&2
	screen >&2
	echo "---------------------------" >&2
	exit 1
}

pane_dead() { [[ $(tm display-message -p -t "$session" '#{pane_dead}' 2>/dev/null) == 1 ]]; }

# passed prints the step that just passed, with the time since the start.
npassed=0
passed() {
	npassed=$((npassed + 1))
	printf '  ok  %-28s %3ds\n' "$step" "$SECONDS"
}

# shows TEXT...: true when the screen holds every TEXT.
shows() {
	local s
	s=$(screen)
	for want in "$@"; do
		grep -qF -- "$want" <<<"$s" || return 1
	done
}

# wait_for TEXT...: waits until the screen holds every TEXT.
wait_for() {
	local deadline=$((SECONDS + timeout))
	until shows "$@"; do
		if pane_dead; then
			fail "chunkview exited (status $(tm display-message -p -t "$session" '#{pane_dead_status}')) before showing: $(printf '"%s" ' "$@")"
		fi
		if ((SECONDS >= deadline)); then
			fail "the screen did not show: $(printf '"%s" ' "$@")within ${timeout}s"
		fi
		sleep 0.1
	done
}

# wait_re REGEX: waits until a line of the screen matches the extended REGEX.
wait_re() {
	local deadline=$((SECONDS + timeout))
	until grep -qE -- "$1" <<<"$(screen)"; do
		pane_dead && fail "chunkview exited before showing a line matching /$1/"
		((SECONDS < deadline)) || fail "no line matched /$1/ within ${timeout}s"
		sleep 0.1
	done
}

# lacks TEXT: fails if the screen holds TEXT.
lacks() {
	if shows "$1"; then
		fail "the screen should not show \"$1\""
	fi
}

keys() { tm send-keys -t "$session" "$@"; }
typed() { tm send-keys -t "$session" -l "$1"; }

# open_session NAME COLSxROWS ARGS...: a session of its own running chunkview
# with ARGS, at that size, the demo operator off unless CHUNKVIEW_DEMO_OPERATOR
# is passed in the environment of the call; its exit status goes to
# $tmpdir/status.
open_session() {
	session=$1
	local cols=${2%x*} rows=${2#*x}
	shift 2
	rm -f "$tmpdir/status"
	tm new-session -d -s "$session" -e CHUNKVIEW_DEMO_OPERATOR="${CHUNKVIEW_DEMO_OPERATOR:-off}" -x "$cols" -y "$rows" -e TERM=xterm-256color \
		"$(printf '%q ' "$bin" "$@"; printf '; echo $? > %q' "$tmpdir/status")"
}

# wait_exit WHY: waits until chunkview has exited and its status is recorded,
# failing with WHY when it does not.
wait_exit() {
	local deadline=$((SECONDS + timeout))
	until [[ -s $tmpdir/status ]]; do
		((SECONDS < deadline)) || fail "$1"
		sleep 0.1
	done
}


step="start the demo"
# remain-on-exit keeps the pane (and its exit status) after chunkview ends; it is
# set before the session starts, so even an immediate exit is caught.
started=$(date +%s%N)
tm start-server \; set-option -g remain-on-exit on \; \
	new-session -d -s "$session" -e CHUNKVIEW_DEMO_OPERATOR=off -x 120 -y 40 -e TERM=xterm-256color -e COLORTERM=truecolor \
	"$(printf '%q --demo; echo $? > %q' "$bin" "$tmpdir/status")"
# The first rows: the time from starting the session until a release row shows,
# polled every 10 ms, is reported (not judged: it depends on how busy the
# machine is). The demo seeds most samples after the view is up.
deadline=$((SECONDS + timeout))
until grep -qE 'podinfo +[0-9]+ ' <<<"$(screen)"; do
	pane_dead && fail "chunkview exited before showing its first rows"
	((SECONDS < deadline)) || fail "no release row within ${timeout}s"
	sleep 0.01
done
first_rows_ms=$((($(date +%s%N) - started) / 1000000))
wait_for "chunkview" "Releases (all namespaces)" "DEMO"

passed
echo "      demo first rows after ${first_rows_ms} ms"
step="release list"
wait_for "podinfo" "payments-api" "ledger"
wait_for "✗ BROKEN"
wait_for "pending-upgrade"

passed
step="every store, with its fill"
# Helm's own Secrets and ConfigMaps releases sit beside the chunked ones, each row
# naming its store and how full its latest revision is.
# The demo writes the large samples after the view is up: loki-stack's row comes,
# then moves on to its fifth revision.
wait_for "STORE" "FILL" "redis" "ingress-ngi" "loki-stack"
shows "secret" "cfgmap" "chunked" || fail "the STORE column lacks a store"
wait_re 'loki-stack +5 .* secret .* 90%'


passed
step="forecast of a release near 1 MiB"
keys /
typed loki-stack
keys Enter
wait_for "filter: loki-stack"
keys Enter
wait_for "› loki-stack (secret)" "will not fit at this rate" "does not help"
keys c
wait_for "record of revision 5" "Helm's Secrets driver" "1.0 MiB per Secret (90%)"
keys Escape
wait_for "will not fit"
keys Escape
wait_for "filter: loki-stack"
keys Escape
wait_for "9 releases"

passed
step="history of a broken release"
keys /
typed ledger
keys Enter
wait_for "filter: ledger"
keys Enter
wait_for "Releases (all namespaces) › ledger" "Size per revision" "REV STATUS"
wait_for "cannot be read"

passed
step="chunk layout"
keys c
wait_for "chunks of revision 3" "How a release is stored"
wait_for "✗ missing"
wait_for "does not exist"

passed
step="back to the list"
keys Escape
wait_for "Size per revision"
keys Escape
wait_for "filter: ledger"
keys Escape
wait_for "9 releases"

passed
step="diff with a masked secret"
keys /
typed payments-api
keys Enter
wait_for "filter: payments-api"
keys Enter
wait_for "Releases (all namespaces) › payments-api" "Size per revision"
# Revision 3 rotated the database password: compare it with revision 2.
keys Up Up
wait_for "Revision 3, "
keys d
wait_for "payments-api: revision 2 → 3" "secrets masked"
deadline=$((SECONDS + timeout))
until shows "<masked:"; do
	((SECONDS < deadline)) || fail "no masked value in the diff"
	keys n
	sleep 0.2
done
lacks "r0tated-2q4W!zT8"

passed
step="help overlay"
keys '?'
wait_for "Keys: diff 2→3" "next change"
keys Escape
wait_for "› payments-api › diff 2→3" "n/N jump"
lacks "Keys: diff"

passed
step="failing release to its Pod's log"
# From the list: web-frontend's resources view puts the cursor on its stuck
# Deployment; enter lists its Pods, l the crashing container's log. Then
# payments-api's failed migration hook: l shows its log, the database
# password it quotes masked.
keys Escape
wait_for "› payments-api" "Size per revision"
keys Escape
wait_for "filter: payments-api"
keys Escape
wait_for "9 releases"
keys /
typed web-frontend
keys Enter
wait_for "filter: web-frontend"
keys s
wait_for "web-frontend · revision" "▶ Deployment" "InProgress" "enter Pods"
keys Enter
wait_for "Deployment web-frontend: 5 Pods, 2 failing" "CrashLoopBackOff" "BackOff"
keys l
wait_for "pod/web-frontend-" 'unknown directive "brotli"' "masked (v: reveal)"
keys Escape
wait_for "Deployment web-frontend: 5 Pods"
keys Escape
wait_for "▶ Deployment"
keys Escape
wait_for "filter: web-frontend"
keys Escape
wait_for "9 releases"
keys /
typed payments-api
keys Enter
wait_for "filter: payments-api"
keys s
wait_for "payments-api · revision 4" "Job/payments-api-migrate"
keys Down Down Down Down Down Down Down
wait_for "▶ Job/payments-api-migrate"
keys l
wait_for "pod/payments-api-migrate-" "migrate: connecting to postgres://<masked:" "database is dirty"
lacks "r0tated-2q4W!zT8"
keys Escape
wait_for "▶ Job/payments-api-migrate"
keys Escape
wait_for "filter: payments-api"
keys Escape
wait_for "9 releases"

passed
step="switch context with :ctx"
# The header names the context and namespace; :ctx picks another context and the
# view starts over on it, without a restart; :ctx NAME switches straight back.
wait_for "ctx demo · ns all"
keys :
typed ctx
keys Enter
wait_for "Switch to context" "demo-staging" "demo (current)"
typed staging
keys Enter
wait_for "ctx demo-staging · ns all" "Switched to context demo-staging" "4 releases"
lacks "ledger"
keys :
typed "ctx demo"
keys Enter
wait_for "ctx demo · ns all" "Switched to context demo" "9 releases" "ledger"

passed
step="quit"
keys q
deadline=$((SECONDS + timeout))
until pane_dead; do
	((SECONDS < deadline)) || fail "chunkview did not exit after q"
	sleep 0.1
done
# The shell around chunkview records its exit status in a file: tmux's own
# pane_dead_status is not always filled in when the pane's terminal closes first.
wait_exit "chunkview's exit status was not recorded"
status=$(<"$tmpdir/status")
[[ $status == 0 ]] || fail "chunkview exited with status $status"

passed
step="80 columns, read-only"
# A second session, at 80x24 with --read-only: the footer keeps ? and q, and no
# hint offers R, X or F.
open_session narrow 80x24 --demo --read-only
wait_for "READ-ONLY" "payments-api" "? help" "q quit" "ctx demo · ns all"
keys /
typed payments-api
keys Enter
wait_for "filter: payments-api"
wait_for "◔ payments-api has been pending-upgrade" "read-only: fixing it is off"
lacks "F to fix"
keys Enter
wait_for "› payments-api" "read-only: fixing it is off" "? help" "q quit" "esc back"
lacks "F: "
lacks "R rolls back"
keys Home
wait_for "Revision 1, "
lacks "R: roll back"
keys '?'
wait_for "Keys: payments-api" "esc back"
lacks "roll back here"
lacks "fix stuck"

passed
step="? then q closes the help"
# q closes the help, as in less and k9s; a second q quits.
keys q
deadline=$((SECONDS + timeout))
while shows "Keys: payments-api"; do
	pane_dead && fail "q in the help quit chunkview instead of closing the help"
	((SECONDS < deadline)) || fail "q did not close the help"
	sleep 0.1
done
wait_for "› payments-api" "Revision 1, "
keys q
wait_exit "chunkview did not exit after q at 80 columns"

passed
step="Ctrl-C at a CLI prompt"
# A confirmation waits on the terminal; Ctrl-C cancels it with exit 130 and
# nothing changes (the next line typed does not become the answer).
open_session prompt 120x40 --demo rollback podinfo 2
# The prompt names the context and namespace the rollback changes after the
# question ("... revision 2 on context demo, namespace demo? [y/N]:").
wait_for "Proceed to roll podinfo back to revision 2" "[y/N]:"
keys C-c
wait_exit "chunkview still waits for an answer after Ctrl-C"
status=$(<"$tmpdir/status")
[[ $status == 130 ]] || fail "Ctrl-C at the prompt exited with status $status, want 130"
wait_for "cancelled: nothing was changed"
lacks "Rolled podinfo back"

passed
step="ledger: roll back past an unreadable revision"
# ledger's latest revision (3) cannot be read: R on revision 2 shows the one plan
# (delete the unreadable record, then roll back to 2) before ctrl+r, and the release
# ends deployed.
open_session ledger 120x40 --demo
wait_for "ledger" "● LIVE"
keys /
typed ledger
keys Enter
wait_for "filter: ledger"
keys Enter
wait_for "Releases (all namespaces) › ledger" "BROKEN" "Revision 3 cannot be read"
keys Up
wait_for "Revision 2, "
keys R
wait_for "Revision 3 cannot be read: delete its record, then roll ledger back to revision 2" "ctrl+r: roll back to 2"
keys C-r
wait_for "✓ Replaced the unreadable revision 3 of ledger"
keys Escape
wait_re '^ *▶? +3 ✓ deployed +ledger-3\.3\.0'
lacks "BROKEN"
keys q

passed
step="OLMv1: an extension's rollback is refused"
# In the OLMv1 demo, cert-manager's records are owned by an active
# ClusterExtension: R on revision 2 plans nothing and says who would undo the
# rollback and the ways out, with no key that applies; the history is unchanged.
open_session olmv1 120x40 --demo --profile olmv1
wait_for "cert-manager" "argocd-operator" "● LIVE"
keys /
typed cert-manager
keys Enter
wait_for "filter: cert-manager"
keys Enter
wait_for "Releases (all namespaces) › cert-manager" "Owner ClusterExtension/cert-manager"
keys Up
wait_for "Revision 2, "
keys R
wait_for "roll back to 2" "the release's controller would undo this" "ClusterExtension/cert-manager" "--ignore-controller"
lacks "ctrl+r: roll back"
keys Escape
wait_re '^ *▶? +3 ✓ deployed +cert-manager-1\.15\.3'
keys q
wait_exit "chunkview did not exit after q in the OLMv1 demo"

passed
step="an offline cluster"
# A kubeconfig whose server refuses every connection: the header says OFFLINE
# (never LIVE), the list says the cluster cannot be reached and how to retry,
# and q quits.
cat >"$tmpdir/offline-kubeconfig" <<'KC'
apiVersion: v1
kind: Config
clusters:
- name: gone
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: gone
  context: {cluster: gone, user: u, namespace: default}
current-context: gone
users:
- name: u
  user: {token: t}
KC
open_session offline 100x24 --kubeconfig "$tmpdir/offline-kubeconfig"
wait_for "ctx gone" "OFFLINE" "Cluster unreachable" "Press r to retry"
lacks "● LIVE"
keys q
wait_exit "chunkview did not exit after q while offline"

passed
step="live: the demo operator"
# A session of its own with the simulated operator every 2 s (the others turn it
# off, since they expect podinfo's revisions as seeded): a new podinfo revision
# shows in the list, and then deployed, without a key press.
CHUNKVIEW_DEMO_OPERATOR=2s open_session live 120x40 --demo
wait_for "● LIVE" "podinfo"
grep -E 'podinfo +4 ' <<<"$(screen)" >/dev/null || fail "podinfo does not start at revision 4"
deadline=$((SECONDS + timeout))
until grep -E 'podinfo +[5-9] ' <<<"$(screen)" >/dev/null; do
	((SECONDS < deadline)) || fail "no new podinfo revision appeared within ${timeout}s"
	sleep 0.1
done
deadline=$((SECONDS + timeout))
until grep -E 'podinfo +[5-9] +✓ deployed' <<<"$(screen)" >/dev/null; do
	((SECONDS < deadline)) || fail "the new podinfo revision did not turn deployed within ${timeout}s"
	sleep 0.1
done
keys w
wait_for "Live view off"
lacks "● LIVE"
keys q

passed
echo "ok: chunkview --demo passed the terminal walk-through"
echo "tmux: $npassed passed, 0 failed"
