#!/bin/bash
# rblkctl discover and connect-all against malformed discovery logs
# (tests/target/rblk_test_target --misbehave disc-*, one mode at a time):
# a normal log first (one entry, listed and connected), then a log shorter
# than its numrec (a warning per zero entry, the real one listed and
# connected), numrec 0xffffffff (a one-line error naming numrec),
# traddr/trsvcid/subnqn without pad or terminator (refused or the entry
# skipped, none of it printed), a genctr that moves on every read (a
# one-line error naming the generation counter), a referral back to the
# same discovery controller (connect-all ends, the subsystem connected
# once) and an entry of unknown trtype/adrfam/subtype before a good one
# (a warning, the good one listed and connected). Nothing may hang or
# print bytes that are not text; after discover no controller is left
# (discovery controllers included), after each mode the module unloads.
# The log's checks are librblk's: it runs on the newest kernel only
# (discovery_nvmet runs the kernel's discovery controller on both).
# vm-timeout: 600
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
DISC_NQN=nqn.2014-08.org.nvmexpress.discovery

list_count() {
	"$RBLKCTL" list --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["controllers"]))'
}

# The subsystem NQN of every controller there is, one a line.
ctrl_nqns() {
	local c
	for c in $(vm_rblk_ctrls); do cat "/sys/class/rblk/$c/subnqn"; done
}

# Text only, and nothing of disc-unterminated's filler.
no_garbage() {
	if LC_ALL=C grep -q '[^[:print:][:space:]]' <<< "$2"; then
		vm_fail "$1: non-text bytes in the output: $(od -c <<< "$2" | sed -n 1,20p)"
	fi
	case $2 in *XXXXXXXX*) vm_fail "$1: an unterminated field printed: $2" ;; esac
}

one_line() { vm_assert_eq 1 "$(printf '%s\n' "$2" | wc -l)" "$1: lines of the error: $2"; }

# OUT, RC: what rblkctl discover said; then no controller may be left.
disc() {
	RC=0
	OUT=$(timeout 120 "$RBLKCTL" discover -t rdma -a 10.99.0.1 -s 4420 2>&1) || RC=$?
	vm_assert_ne 124 "$RC" "$1: rblkctl discover hung"
	no_garbage "$1: discover" "$OUT"
	vm_wait_for 20 vm_rblk_none
	vm_assert_eq 0 "$(list_count)" "$1: controllers in rblkctl list --json after discover"
	echo "RESULT: $1: discover rc $RC: $(head -c 300 <<< "$OUT" | tr '\n' '|')"
}

# OUT, RC: what rblkctl connect-all said.
conn_all() {
	RC=0
	OUT=$(timeout 120 "$RBLKCTL" connect-all -t rdma -a 10.99.0.1 -s 4420 2>&1) || RC=$?
	vm_assert_ne 124 "$RC" "$1: rblkctl connect-all hung"
	no_garbage "$1: connect-all" "$OUT"
	echo "RESULT: $1: connect-all rc $RC, controllers of: $(ctrl_nqns | tr '\n' ' '): $(head -c 300 <<< "$OUT" | tr '\n' '|')"
}

listed() { vm_assert_match "subnqn: *$TGT_NQN\$" "$OUT" "$1: the subsystem's entry listed"; }

# --- positive control: the log is served -------------------------------------
# Also under a unique discovery NQN: discover names it (and flags the
# controller as one); a plain connect to it is refused with the reason.
uniq=nqn.2024-01.io.rblk:unique-discovery
tgt_start none --discovery-nqn "$uniq"
OUT=$(timeout 120 "$RBLKCTL" discover -t rdma -a 10.99.0.1 -n "$uniq" 2>&1) ||
	vm_fail "discover -n $uniq failed: $OUT"
listed "unique NQN"
rc=0
out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$uniq" 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of a plain connect to $uniq"
vm_assert_contains "$out" "NQN names a discovery controller" "plain connect to $uniq"
vm_wait_for 20 vm_rblk_none
disc none
vm_assert_eq 0 "$RC" "none: exit code of discover"
listed none
vm_assert_match "traddr: *10\.99\.0\.1\$" "$OUT" "none: traddr"
vm_assert_match "trsvcid: *4420\$" "$OUT" "none: trsvcid"
conn_all none
vm_assert_eq 0 "$RC" "none: exit code of connect-all"
vm_assert_eq "$TGT_NQN" "$(ctrl_nqns)" "none: controllers after connect-all"
tgt_clean_slate none

# --- entries broken, the log usable: warnings, the good entry stays ------------
tgt_start disc-truncated
disc disc-truncated
vm_assert_eq 0 "$RC" "disc-truncated: exit code of discover"
for n in 1 2 3; do vm_assert_contains "$OUT" "entry $n:" "disc-truncated: warning for zero entry $n"; done
listed disc-truncated
conn_all disc-truncated
vm_assert_eq 0 "$RC" "disc-truncated: exit code of connect-all"
vm_assert_eq "$TGT_NQN" "$(ctrl_nqns)" "disc-truncated: controllers after connect-all"
tgt_clean_slate disc-truncated

tgt_start disc-bad-values
disc disc-bad-values
vm_assert_eq 0 "$RC" "disc-bad-values: exit code of discover"
vm_assert_contains "$OUT" "entry 0:" "disc-bad-values: warning for the bad entry"
listed disc-bad-values
if grep -q "subnqn: *$TGT_NQN:bad-values" <<< "$OUT"; then
	vm_fail "disc-bad-values: the bad entry listed: $OUT"
fi
conn_all disc-bad-values
vm_assert_eq 0 "$RC" "disc-bad-values: exit code of connect-all"
vm_assert_eq "$TGT_NQN" "$(ctrl_nqns)" "disc-bad-values: controllers after connect-all"
tgt_clean_slate disc-bad-values

# The only entry unterminated: refused (one line) or skipped with a warning.
tgt_start disc-unterminated
disc disc-unterminated
if [ "$RC" -eq 0 ]; then
	vm_assert_contains "$OUT" "entry 0:" "disc-unterminated: warning for the entry"
else
	one_line disc-unterminated "$OUT"
fi
conn_all disc-unterminated
vm_assert_eq "" "$(ctrl_nqns)" "disc-unterminated: controllers after connect-all"
tgt_clean_slate disc-unterminated

# --- the log itself unusable: one line, non-zero, nothing connected ------------
for spec in "disc-numrec-huge:numrec" "disc-genctr-churn:generation counter|genctr"; do
	mode=${spec%%:*} msg=${spec#*:}
	tgt_start "$mode"
	for cmd in disc conn_all; do
		"$cmd" "$mode"
		vm_assert_ne 0 "$RC" "$mode: exit code of $cmd"
		one_line "$mode: $cmd" "$OUT"
		vm_assert_match "$msg" "$OUT" "$mode: $cmd's error"
		vm_assert_eq "" "$(ctrl_nqns)" "$mode: controllers after $cmd"
	done
	[ "$(tgt_hits "$mode")" -ge 1 ] || vm_fail "$mode: the log was never read"
	tgt_clean_slate "$mode"
done

# --- a referral to itself: connect-all ends, one connect of the subsystem ------
tgt_start disc-referral-loop
disc disc-referral-loop
vm_assert_eq 0 "$RC" "disc-referral-loop: exit code of discover"
listed disc-referral-loop
vm_assert_match "subnqn: *$DISC_NQN\$" "$OUT" "disc-referral-loop: the referral listed"
conn_all disc-referral-loop
vm_assert_eq 0 "$RC" "disc-referral-loop: exit code of connect-all"
vm_assert_match 'loop|visited|referral' "$OUT" "disc-referral-loop: connect-all's warning"
vm_assert_eq "$TGT_NQN" "$(ctrl_nqns)" "disc-referral-loop: controllers after connect-all"
n=$(grep -cE '^connect: qid 0 cntlid [0-9]+ depth [0-9]+ sqsize [0-9]+$' "$TGT_LOG" || true)
vm_assert_eq 1 "$n" "disc-referral-loop: admin queue connects to the subsystem"
tgt_clean_slate disc-referral-loop

vm_rblk_unload
