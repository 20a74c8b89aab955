#!/bin/bash
# The kernel-bypass initiator (rblkctl read/write --path bypass) against a
# target that breaks the protocol on purpose (tests/target/rblk_test_target
# --misbehave MODE), one mode at a time: a normal run first (in-capsule
# and keyed writes read back), then completions with unknown or stale
# command ids and double completions (the queue is failed, the controller
# reconnects, the command is sent again and the data read back is what
# was written), an error status with DNR (one line at once, never retried),
# silence (keep-alive fails, the reconnect gives up after ctrl_loss_tmo,
# or the I/O fails after fast_io_fail_tmo: one line, bounded time), a
# rejected Connect and a hang-up during Connect on the admin queue and on
# an I/O queue (one line at once, in the module's words), and absurd
# Identify data (one line naming the field; an absurd MDTS is
# capped, not trusted; of an endless active list connect --path bypass
# serves the one real namespace). The target must never
# crash, rblkctl never hang. With the module's own cases of the test
# target, in the protocol group.
# Userspace only (the module is not involved): newest kernel only.
# vm-group: protocol
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
# Keep-alive 2 s, reconnect every 1 s, give up after 4 s.
BP_BASE=(--path bypass -a 10.99.0.1 -n "$TGT_NQN" -k 2 -c 1 -v)
BP_OPTS=("${BP_BASE[@]}" -l 4)
sum() { sha256sum "$1" | cut -d' ' -f1; }

# bp MODE read|write ARGS...: must succeed within 60 s; prints its -v lines.
bp() {
	local mode=$1 out
	shift
	out=$(timeout 60 "$RBLKCTL" "$1" "${BP_OPTS[@]}" "${@:2}" 2>&1 > /dev/null) ||
		vm_fail "$mode: rblkctl $* failed: $out"
	echo "$out"
}

# bp_fails MODE MESSAGE MAX_S read|write ARGS...: one line, non-zero, in time.
bp_fails() {
	local mode=$1 msg=$2 max=$3 out rc=0 t0 t
	shift 3
	t0=$(vm_now_ms)
	out=$(timeout 120 "$RBLKCTL" "$1" "${BP_OPTS[@]}" "${@:2}" 2>&1 > /dev/null) || rc=$?
	t=$(tgt_s_since "$t0")
	vm_assert_ne 0 "$rc" "$mode: exit code of rblkctl $1"
	vm_assert_ne 124 "$rc" "$mode: rblkctl $1 hung"
	# -v's first line (the controller) comes when the connect succeeded.
	out=$(grep -v '^rblkctl: bypass: ' <<< "$out")
	vm_assert_match "^rblkctl: $msg" "$out" "$mode: rblkctl $1"
	vm_assert_eq 1 "$(wc -l <<< "$out")" "$mode: lines of the error"
	awk -v t="$t" -v m="$max" 'BEGIN { exit !(t < m) }' || vm_fail "$mode: took $t s, more than $max s"
	echo "RESULT: $mode: failed in $t s: $out"
}

bp_stop() {
	tgt_stop
	vm_dmesg_clean
}

# --- positive control: the target is real -----------------------------------------
tgt_start none
head -c $((1 << 20)) /dev/urandom > /tmp/big
head -c 4096 /dev/urandom > /tmp/small
bp none write --offset $((1 << 20)) --data /tmp/big > /dev/null
bp none write --offset $((3 << 20)) --data /tmp/small > /dev/null
bp none read --offset $((1 << 20)) --length $((1 << 20)) --data /tmp/big.r > /dev/null
bp none read --offset $((3 << 20)) --length 4096 --data /tmp/small.r > /dev/null
vm_assert_eq "$(sum /tmp/big)" "$(sum /tmp/big.r)" "none: 1 MiB read back"
vm_assert_eq "$(sum /tmp/small)" "$(sum /tmp/small.r)" "none: 4 KiB read back"
echo "RESULT: none: 1 MiB + 4 KiB written and read back"
bp_stop

# --- bad completions: the queue fails, reconnect, the command again ------------------
# A write at the trap: its response is the bad one (for double-completion
# the second one, caught while the flush that follows is in flight).
for mode in unknown-cid stale-cid double-completion; do
	tgt_start "$mode" --count 1
	head -c 4096 /dev/urandom > /tmp/trap
	t0=$(vm_now_ms)
	out=$(bp "$mode" write --offset "$TGT_TRAP_OFF" --data /tmp/trap)
	t=$(tgt_s_since "$t0")
	vm_assert_match '; 1 reconnect\(s\)$' "$out" "$mode: reconnects"
	vm_assert_eq 1 "$(tgt_hits "$mode")" "$mode: misbehaviours"
	bp "$mode" read --offset "$TGT_TRAP_OFF" --length 4096 --data /tmp/trap.r > /dev/null
	vm_assert_eq "$(sum /tmp/trap)" "$(sum /tmp/trap.r)" "$mode: the data written, read back"
	echo "RESULT: $mode: reconnected, write ok in $t s, read back"
	bp_stop
done

# --- DNR: fails at once, never retried --------------------------------------------------
tgt_start dnr-status
bp_fails dnr-status "read failed: .*\(do not retry\)$" 30 read --offset "$TGT_TRAP_OFF" --length 4096 --data /tmp/x
vm_assert_eq 1 "$(tgt_hits dnr-status)" "dnr-status: commands answered with DNR (a retry would add one)"
bp_stop

# --- silence: keep-alive fails, reconnecting gives up -------------------------------------
# (each reconnect attempt's commands end by the deadline: a silent target
# holds nothing past ctrl_loss_tmo, nor past fast_io_fail_tmo)
tgt_start silence
bp_fails silence "read failed: controller lost: no reconnect within ctrl_loss_tmo \(4 s\)" 30 \
	read --offset "$TGT_TRAP_OFF" --length 4096 --data /tmp/x
bp_stop
tgt_start silence
BP_OPTS=("${BP_BASE[@]}" -l 60 -F 2)
bp_fails "silence, fast_io_fail_tmo 2" "read failed: I/O failed after fast_io_fail_tmo: " 30 \
	read --offset "$TGT_TRAP_OFF" --length 4096 --data /tmp/x
BP_OPTS=("${BP_BASE[@]}" -l 4)
bp_stop

# --- Connect refused or hung up on: one line at once ----------------------------------------
# A reject is a CM event; a hang-up (the target accepts the RDMA connection
# and disconnects before answering Connect) is the queue's CM channel's
# DISCONNECTED, which ends the Connect at once, in the module's words, not
# at the admin timeout. The bound only catches a wait for a timeout.
tgt_start reject-connect
bp_fails reject-connect "target rejected the RDMA connection: no resources$" 20 \
	read --length 4096 --data /tmp/x
bp_stop
for q in 0 1; do
	tgt_start disconnect-in-connect --after "$q"
	bp_fails "disconnect-in-connect qid $q" "qid $q: target closed the connection during Connect$" 20 \
		read --length 4096 --data /tmp/x
	vm_assert_eq 1 "$(tgt_hits disconnect-in-connect)" "disconnect-in-connect qid $q: hang-ups"
	bp_stop
done

# --- absurd Identify data ------------------------------------------------------------------
tgt_start absurd-lbaf
bp_fails absurd-lbaf "Identify Namespace: namespace 1: unsupported LBA data size 2\^40$" 30 \
	read --length 4096 --data /tmp/x
bp_stop
tgt_start bad-flbas
bp_fails bad-flbas "Identify Namespace: namespace 1: LBA format 5 out of range \(NLBAF 0\)$" 30 \
	read --length 4096 --data /tmp/x
bp_stop
# NN 0xfffffffe and an active list of 1024 ids, one of them real:
# connect --path bypass serves that one, as the module does (the others
# Identify as inactive).
tgt_start absurd-nn
vm_modprobe ublk_drv
out=$(timeout 120 "$RBLKCTL" connect --path bypass -a 10.99.0.1 -n "$TGT_NQN" -k 2 -c 1 -l 4 2>&1) ||
	vm_fail "absurd-nn: rblkctl connect --path bypass failed: $out"
name=${out%%$'\n'*}
dev=${out#*$'\n'}
vm_assert_match '^bypass[0-9]+$' "$name" "absurd-nn: connect's first line"
vm_assert_match '^/dev/ublkb[0-9]+$' "$dev" "absurd-nn: one device, the real namespace"
vm_assert_eq 1 "$("$RBLKCTL" list --json | python3 -c 'import json, sys
print(",".join(str(n["nsid"]) for n in json.load(sys.stdin)["bypass"][0]["namespaces"]))')" \
	"absurd-nn: the namespaces served"
vm_assert_eq 512 "$(blockdev --getss "$dev")" "absurd-nn: the device's block size"
"$RBLKCTL" disconnect "$name" > /dev/null || vm_fail "absurd-nn: rblkctl disconnect $name failed"
vm_assert_not_exists "$dev"
echo "RESULT: absurd-nn: served nsid 1 alone as $dev"
bp_stop
tgt_start absurd-mdts
out=$(bp absurd-mdts read --offset $((1 << 20)) --length $((2 << 20)) --data /tmp/x)
vm_assert_match ' 1048576 bytes per command;' "$out" "absurd-mdts: the transfer limit, capped"
echo "RESULT: absurd-mdts: capped at 1 MiB per command"
bp_stop
