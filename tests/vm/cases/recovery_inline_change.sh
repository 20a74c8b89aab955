#!/bin/bash
# A reconnect to a target that now takes less in-capsule data (IOCCSZ):
# the test target grants 8 KiB, restarts granting none (--inline-bytes 0:
# its receive buffers hold the command alone, so a capsule with data fails
# the receive, and the queue). The initiator must read IOCCSZ again and
# send the next small writes by keyed SGL: fio randwrite with crc32c verify
# before and after the restart, 0 errors, one reconnect, and the target's
# count of in-capsule writes above 0 before and 0 after. rblk.ko, then the
# bypass initiator's ublk server where the kernel has ublk (6.12; Debian's
# 6.1 is built without it, and bypass_ublk checks the refusal there).
# vm-timeout: 480
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

in_capsule() { sed -n 's/^in_capsule \([0-9]*\)$/\1/p' "$1"; }

fio_verify() {
	vm_fio "$2" --name=inline --filename="$1" --ioengine=io_uring --direct=1 --rw=randwrite \
		--bs=4k --iodepth=8 --size=4M --verify=crc32c --do_verify=1 --verify_fatal=1
}

# restart DOWN UP: the target stopped (its log kept in /tmp/target1.log)
# until the initiator says DOWN (a command), then started again with
# --inline-bytes 0 until it says UP.
restart() {
	tgt_stop
	cp "$TGT_LOG" /tmp/target1.log
	vm_wait_for 30 $1
	tgt_start none --inline-bytes 0
	vm_wait_for 60 $2
}

# counts SIDE: the in-capsule writes the target saw before and after.
counts() {
	tgt_stop
	local before after
	before=$(in_capsule /tmp/target1.log) after=$(in_capsule "$TGT_LOG")
	echo "RESULT: inline change, $1: in-capsule writes before the restart $before, after $after"
	[ "${before:-0}" -gt 0 ] || vm_fail "$1: no write went in the capsule before the restart"
	vm_assert_eq 0 "$after" "$1: in-capsule writes to a target that takes none"
}

# --- rblk.ko --------------------------------------------------------------------
tgt_start none
out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$TGT_NQN" -k 5 -c 1 -l 300 2>&1) ||
	vm_fail "rblkctl connect failed: $out"
fio_verify /dev/rblk0n1 /tmp/k1.json
restart "vm__rblk_in_state rblk0 connecting" "vm__rblk_in_state rblk0 live"
fio_verify /dev/rblk0n1 /tmp/k2.json
vm_assert_eq 1 "$(vm_rblk_attr rblk0 reconnects)" "rblk0's reconnects"
vm_assert_eq 0 "$(vm_rblk_attr rblk0 errors)" "rblk0's errors"
counts rblk.ko
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect rblk0 failed"

# --- the bypass initiator (ublk) -----------------------------------------------------
case $(uname -r) in
6.1.*) exit 0 ;;
esac
vm_modprobe ublk_drv
tgt_start none
out=$(timeout 120 "$RBLKCTL" connect --path bypass -a 10.99.0.1 -n "$TGT_NQN" -k 5 -c 1 -l 300 2>&1) ||
	vm_fail "rblkctl connect --path bypass failed: $out"
vm_assert_eq $'bypass0\n/dev/ublkb0' "$out" "rblkctl connect --path bypass"
fio_verify /dev/ublkb0 /tmp/b1.json
restart "vm_bypass_state_is reconnecting" "vm_bypass_state_is live"
fio_verify /dev/ublkb0 /tmp/b2.json
counts bypass
"$RBLKCTL" disconnect bypass0 > /dev/null || vm_fail "disconnect bypass0 failed"
vm_wait_for 30 test ! -e /dev/ublkb0
