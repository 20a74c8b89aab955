#!/bin/bash
# rblk against a target that breaks the protocol on purpose, bring-up
# side (tests/target/rblk_test_target --misbehave MODE): absurd Identify
# data (NN 0xfffffffe with an endless active list: the scan is bounded;
# MDTS 255: clamped, I/O verified; LBA data size 2^40 or 2^3, FLBAS beyond
# NLBAF: the namespace is refused, no disk; an active namespace list read
# answered with success and no data: nothing left in rblk's buffer passes
# for namespace ids), a reject or a disconnect
# during Connect of the admin or the first I/O queue (connect fails with
# its message within seconds, not at the 10 s Connect timeout), and on
# every reconnect (attempts follow reconnect_delay). After each mode no
# controller or disk is left and the module unloads.
# vm-timeout: 480
# A boot of its own: it drives the IB CM through hang-ups on every
# reconnect, and after other cases in the same boot (ib_cm stays loaded)
# 6.12's CM once wedged a cm_id in TIMEWAIT (cm_destroy_id_wait_timeout)
# and the reconnects timed out.
# vm-group: target_connect
# The checks of a target's Connect and Identify are the module's own
# protocol code, the same on both kernels (datapath_connect covers 6.1's
# connect): newest kernel only, for the suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
head -c 1M /dev/urandom > /tmp/big

# --- an active namespace list answered without data ---------------------------
# Success with nothing transferred leaves rblk's buffer as it was. The
# first read: the allocation's old contents, which Debian's kernels zero
# (init_on_alloc=1), so only a kernel without it could read heap here.
# A continuation read (the target lists a full first page, NN 0xfffffffe):
# the buffer still holds the first page, whose ids then came back as
# "bogus namespace id 1" on every kernel; an empty page ends the list.
no_bogus() {
	if vm_dmesg_has 'rblk0: bogus namespace id'; then
		vm_fail "$1: $(dmesg | grep -m1 'rblk0: bogus namespace id')"
	fi
}
tgt_start nsid-list-no-data --after 1 --count 1
out=$(tgt_connect_ok nsid-list-no-data-next)
vm_assert_eq 1 "$(tgt_hits nsid-list-no-data)" "nsid-list-no-data-next: reads without data"
no_bogus nsid-list-no-data-next
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "nsid-list-no-data-next: the first page's one real namespace"
if vm_dmesg_has 'rblk0: more than 1024 namespaces'; then
	vm_fail "nsid-list-no-data-next: the empty page did not end the list"
fi
echo "RESULT: nsid-list-no-data-next: second active-list page without data: list ended after 1024 ids, no bogus id, 1 disk"
tgt_clean_slate nsid-list-no-data-next

tgt_start nsid-list-no-data
out=$(tgt_connect_ok nsid-list-no-data)
vm_assert_eq 1 "$(tgt_hits nsid-list-no-data)" "nsid-list-no-data: reads without data"
no_bogus nsid-list-no-data
vm_assert_eq rblk0 "$out" "nsid-list-no-data: a controller and no disk"
vm_assert_eq "" "$(vm_rblk_disks)" "nsid-list-no-data: disks"
echo "RESULT: nsid-list-no-data: active list without data: no namespace, no bogus id, controller without disk"
tgt_clean_slate nsid-list-no-data

# --- absurd Identify data ------------------------------------------------------
tgt_start absurd-nn
t0=$(vm_now_ms)
out=$(tgt_connect_ok absurd-nn)
t=$(tgt_s_since "$t0")
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "absurd-nn: only the real namespace"
vm_dmesg_has 'rblk0: more than 1024 namespaces' || vm_fail "absurd-nn: scan not bounded"
echo "RESULT: absurd-nn: NN 0xfffffffe, endless active list: scan stopped after 1024 ids, connect ${t} s, 1 disk"
tgt_clean_slate absurd-nn

tgt_start absurd-mdts
out=$(tgt_connect_ok absurd-mdts)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "absurd-mdts: rblkctl connect output"
kb=$(cat /sys/block/rblk0n1/queue/max_hw_sectors_kb)
[ "$kb" -ge 4 ] && [ "$kb" -le 1024 ] || vm_fail "absurd-mdts: max_hw_sectors_kb $kb"
vm_put /tmp/big /dev/rblk0n1 0
vm_assert_eq "$(sha256sum < /tmp/big | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n1 0 $((1 << 20)))" \
	"absurd-mdts: 1 MiB read back"
echo "RESULT: absurd-mdts: MDTS 255 clamped to max_hw_sectors_kb $kb, 1 MiB verified"
tgt_clean_slate absurd-mdts

for spec in "absurd-lbaf:unsupported LBA data size 2^40" "tiny-lbaf:unsupported LBA data size 2^3" \
	"bad-flbas:LBA format 5 out of range"; do
	mode=${spec%%:*} msg=${spec#*:}
	tgt_start "$mode"
	out=$(tgt_connect_ok "$mode")
	vm_assert_eq rblk0 "$out" "$mode: a controller and no disk"
	vm_assert_eq "" "$(vm_rblk_disks)" "$mode: disks"
	vm_dmesg_has -F "rblk0: nsid 1: $msg" || vm_fail "$mode: no '$msg' in the kernel log"
	echo "RESULT: $mode: namespace refused ($msg), controller without disk"
	tgt_clean_slate "$mode"
done

# --- Connect refused or cut ------------------------------------------------------
# Both end at once, not at the 10 s Connect timeout (the hang-up took
# 10.7-13.0 s before): a reject is a CM event, and a hang-up ends the
# Connect waiting on that queue. What proves it is the message (only the
# hang-up path says "closed the connection") and, at the end, no "timed
# out" line in the kernel log; the wall-clock bound only catches a hang,
# since rblkctl alone took seconds to start on a loaded 2-core host (8.2 s
# for a reject was measured there).
fast=20
tgt_start reject-connect
tgt_connect_fails reject-connect "target rejected the RDMA connection: no resources" $fast
tgt_clean_slate reject-connect
tgt_start reject-connect --after 1
tgt_connect_fails reject-connect-ioq "target rejected the RDMA connection: no resources" $fast
vm_assert_eq 1 "$(tgt_hits reject-connect)" "reject-connect-ioq: rejects"
tgt_clean_slate reject-connect-ioq

tgt_start disconnect-in-connect
tgt_connect_fails disconnect-in-connect "target closed the connection during Connect" $fast
vm_assert_eq 1 "$(tgt_hits disconnect-in-connect)" "disconnect-in-connect: hang-ups"
vm_dmesg_has 'qid 0: target closed the connection during Connect' ||
	vm_fail "disconnect-in-connect: no kernel log line for the admin queue"
tgt_clean_slate disconnect-in-connect
tgt_start disconnect-in-connect --after 1
tgt_connect_fails disconnect-in-connect-ioq "target closed the connection during Connect" $fast
vm_dmesg_has 'qid 1: target closed the connection during Connect' ||
	vm_fail "disconnect-in-connect-ioq: no kernel log line for the I/O queue"
tgt_clean_slate disconnect-in-connect-ioq

# --- Hang-up on every reconnect --------------------------------------------------
# The target goes away under a live controller and comes back hanging up
# on each Connect: every reconnect attempt ends at once, so they follow
# reconnect_delay (1 s); at the 10 s Connect timeout three took > 30 s.
TGT_COPTS=(-k 2 -c 1 -l 120)
admin_hangups() { dmesg | grep -c 'rblk0: qid 0: target closed the connection during Connect' || true; }
tgt_start none
tgt_connect_ok reconnect-hangup > /dev/null
base=$(admin_hangups)
tgt_stop
tgt_start disconnect-in-connect
t0=$(vm_now_ms)
three_more() { [ "$(admin_hangups)" -ge $((base + 3)) ]; }
vm_wait_for 60 three_more
t=$(tgt_s_since "$t0")
vm_assert_eq connecting "$(cat /sys/class/rblk/rblk0/state)" "reconnect-hangup: state"
gap=$(dmesg | grep 'rblk0: reconnect failed: target closed the connection during Connect (-104)' | tail -n 3 | sed 's/^\[ *\([0-9.]*\)\].*/\1/' |
	awk 'NR == 1 { a = $1 } END { printf "%.2f", ($1 - a) / 2 }')
echo "RESULT: reconnect-hangup: 3 reconnects ended by the target's hang-up within $t s of its restart, one every $gap s (reconnect_delay 1 s)"
awk -v t="$t" 'BEGIN { exit !(t < 20) }' ||
	vm_fail "reconnect-hangup: 3 attempts took $t s: not ended by the hang-up"
tgt_clean_slate reconnect-hangup
TGT_COPTS=(-k 2 -c 1 -l 4)

if vm_dmesg_has 'rblk0: qid [0-9]*: command .* timed out'; then
	vm_fail "disconnect-in-connect: a Connect ended by its timeout, not the hang-up"
fi

vm_rblk_unload
