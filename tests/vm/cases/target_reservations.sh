#!/bin/bash
# The test target's reservations (rblk_test_target --reservations, issue
# 33), driven with nvme-cli through rblk's NVMe ioctls from two hosts in
# one VM: two controllers to the same subsystem with their own host NQN
# and Host ID, each with its disk. Identify shows ONCS bit 5 and RESCAP;
# A registers and reserves Write Exclusive - Registrants Only: B,
# unregistered, reads but its writes get Reservation Conflict; B
# registers and writes; A preempts and aborts B's key: B's writes
# conflict again, B gets a Reservation Log Page Available event, on which
# rblk reads its log page 80h (Registration Preempted; nvme-cli then finds
# the page empty); release; a clear sends B a Reservation Preempted
# notice; the extended report (generation, type,
# registrants, keys, Host IDs) matches at each step, the 24-byte one is
# refused (128-bit Host IDs). With --resv-state a registration and
# reservation made with PTPL 1 outlive a restart of the target (its power
# loss), and PTPL 0 lets them go; --misbehave resv-regctl-huge serves
# REGCTL FFFFh. What rblk itself does with reservations (pr_ops, SG_IO,
# notices to userspace) is target_resv_fencing.sh's; here its kernel log
# line shows what the target's page held.
# vm-timeout: 480
# The target's rules are the same on both kernels, and nvme-cli only
# passes the commands through: newest kernel only, for the suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

tgt_start none --reservations
tgt_connect_hosts
A=/dev/rblk0n1 B=/dev/rblk1n1

oncs=$(nvme id-ctrl /dev/rblk0 -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["oncs"])')
vm_assert_eq 32 "$((oncs & 32))" "ONCS bit 5 (reservations)"
rescap=$(nvme id-ns "$A" -n 1 -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rescap"])')
vm_assert_eq 254 "$rescap" "RESCAP: six types and IEK_13, no PTPL without --resv-state"

# report DEV: "gen rtype regctl ptpls; hostid-suffix key rcsts; ..." from
# the extended Reservation Report (64-byte header and entries).
report() {
	nvme resv-report "$1" -n 1 -e -d 127 -b > /tmp/report || vm_fail "resv-report on $1 failed"
	python3 - /tmp/report <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
gen, rtype, regctl, ptpls = struct.unpack_from("<IBH", d, 0) + (d[9],)
out = [f"{gen} {rtype} {regctl} {ptpls}"]
for i in range(regctl):
    e = d[64 + 64 * i: 128 + 64 * i]
    cntlid, rcsts = struct.unpack_from("<HB", e, 0)
    key, = struct.unpack_from("<Q", e, 8)
    out.append(f"{e[16:32].hex()[-2:]} {key:#x} {rcsts} {cntlid:#x}")
print("; ".join(out))
PY
}
# may_write DEV: a 4 KiB write at 1 MiB, as the block device does it.
may_write() { head -c 4096 /dev/urandom | dd of="$1" bs=4k seek=256 oflag=direct conv=notrunc status=none 2> /dev/null; }
may_read() { dd if="$1" of=/dev/null bs=4k skip=256 count=1 iflag=direct status=none 2> /dev/null; }
# passthru_write DEV: nvme-cli's Write through SUBMIT_IO; prints its status line.
passthru_write() {
	head -c 512 /dev/zero > /tmp/blk
	nvme write "$1" -s 2048 -c 0 -z 512 -d /tmp/blk 2>&1 || true
}

vm_assert_eq "0 0 0 0" "$(report "$A")" "report before anything"
nvme resv-register "$A" -n 1 -k 0xa -r 0 > /dev/null || vm_fail "A: register"
nvme resv-acquire "$A" -n 1 -c 0xa -t 3 -a 0 > /dev/null || vm_fail "A: acquire WE-RO"
vm_assert_eq "1 3 1 0; 0a 0xa 1 0xffff" "$(report "$B")" "report after A registers and reserves"
may_write "$A" || vm_fail "A (holder) cannot write"
may_read "$B" || vm_fail "B (not registered) cannot read under WE-RO"
may_write "$B" && vm_fail "B (not registered) could write under WE-RO"
vm_assert_contains "$(passthru_write "$B" | tr '[:upper:]_' '[:lower:] ')" "reservation conflict" "B's passthrough write"
grep -q '^resv: cntlid 1 acquire .* status 0 type 3' "$TGT_LOG" || vm_fail "the target logged no acquire"
echo "RESULT: WE-RO by A: B reads, B's writes conflict"

nvme resv-register "$B" -n 1 -k 0xb -r 0 > /dev/null || vm_fail "B: register"
may_write "$B" || vm_fail "B (registered) cannot write under WE-RO"
vm_assert_eq "2 3 2 0; 0a 0xa 1 0xffff; 0b 0xb 0 0xffff" "$(report "$A")" "report after B registers"
nvme resv-acquire "$B" -n 1 -c 0xb -t 3 -a 0 > /dev/null 2>&1 && vm_fail "B acquired a reservation A holds"

nvme resv-acquire "$A" -n 1 -c 0xa -p 0xb -t 3 -a 2 > /dev/null || vm_fail "A: preempt and abort B"
may_write "$B" && vm_fail "B could write after being preempted"
vm_assert_eq "3 3 1 0; 0a 0xa 1 0xffff" "$(report "$A")" "report after the preempt"
# log80 CTRL: count, type, pages left and nsid of CTRL's log page 80h.
log80() {
	nvme get-log "/dev/$1" -i 0x80 -l 64 -b > /tmp/log80 || vm_fail "$1: get-log 80h"
	python3 -c 'import struct; d=open("/tmp/log80","rb").read(); c,=struct.unpack_from("<Q",d,0); n,=struct.unpack_from("<I",d,12); print(c,d[8],d[9],n)'
}
# rblk read B's page on the event (Registration Preempted, nsid 1) and
# consumed it: the target serves an empty page after it.
vm_wait_for 20 vm_dmesg_has 'rblk1: reservation notice for nsid 1 (rblk1n1): registration-preempted'
vm_dmesg_has 'rblk0: reservation notice' && vm_fail "A got a reservation notice"
vm_assert_eq "0 0 0 0" "$(log80 rblk1)" "B's log page 80h once rblk read it: empty"
echo "RESULT: preempt and abort: B's writes conflict, B notified (event; rblk read log page 80h)"

nvme resv-release "$A" -n 1 -c 0xa -t 1 -a 0 > /dev/null 2>&1 && vm_fail "release with the wrong type succeeded"
nvme resv-release "$A" -n 1 -c 0xa -t 3 -a 0 > /dev/null || vm_fail "A: release"
vm_assert_eq "3 0 1 0; 0a 0xa 0 0xffff" "$(report "$A")" "report after the release"
may_write "$B" || vm_fail "B cannot write without a reservation"
nvme resv-register "$B" -n 1 -k 0xb2 -r 0 > /dev/null || vm_fail "B: register again"
nvme resv-release "$A" -n 1 -c 0xa -a 1 > /dev/null || vm_fail "A: clear"
vm_assert_eq "5 0 0 0" "$(report "$B")" "report after the clear"
vm_wait_for 20 vm_dmesg_has 'rblk1: reservation notice for nsid 1 (rblk1n1): reservation-preempted'
vm_assert_eq "0 0 0 0" "$(log80 rblk1)" "B's log page 80h after the clear, once rblk read it"
vm_dmesg_has -E 'notices lost|notice.*ignored' && vm_fail "rblk found the target's pages wrong: $(dmesg | grep -E 'notices lost|ignored')"
nvme resv-report "$A" -n 1 -d 127 -b > /dev/null 2>&1 && vm_fail "the 24-byte report was served for 128-bit Host IDs"
echo "RESULT: release, clear (B notified), the 24-byte report refused"

# --- PTPL: a restart of the target is the power loss ---------------------------
# restart ARGS...: the target again; both controllers reconnect.
restart() {
	tgt_stop
	tgt_start "$@"
	vm_wait_for 60 grep -q '^live$' /sys/class/rblk/rblk0/state
	vm_wait_for 60 grep -q '^live$' /sys/class/rblk/rblk1/state
}
state=/tmp/resv.state
rm -f "$state"
restart none --reservations --resv-state "$state"
rescap=$(nvme id-ns "$A" -n 1 -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rescap"])')
vm_assert_eq 255 "$rescap" "RESCAP with --resv-state: PTPL too"
nvme resv-register "$A" -n 1 -k 0xc -r 0 -p 3 > /dev/null || vm_fail "A: register, PTPL 1"
nvme resv-acquire "$A" -n 1 -c 0xc -t 1 -a 0 > /dev/null || vm_fail "A: acquire WE"
vm_assert_eq "1 1 1 1; 0a 0xc 1 0xffff" "$(report "$A")" "report with PTPL 1"
[ -s "$state" ] || vm_fail "no reservation state kept in $state"
restart none --reservations --resv-state "$state"
grep -q '^resv: state from' "$TGT_LOG" || vm_fail "the target did not take the kept state"
vm_assert_eq "1 1 1 1; 0a 0xc 1 0xffff" "$(report "$B")" "report after the target's restart"
may_write "$B" && vm_fail "B could write after the restart under A's WE"
may_write "$A" || vm_fail "A cannot write after the restart"
nvme resv-register "$A" -n 1 -c 0xc -r 1 -p 2 > /dev/null || vm_fail "A: unregister, PTPL 0"
[ -e "$state" ] && vm_fail "state kept in $state with PTPL 0"
restart none --reservations --resv-state "$state"
vm_assert_eq "0 0 0 0" "$(report "$A")" "report after a restart with PTPL 0"
echo "RESULT: PTPL 1: registration and reservation outlive a restart of the target; PTPL 0: gone"

# --- resv-regctl-huge: the report lies about REGCTL --------------------------
restart resv-regctl-huge --reservations
nvme resv-register "$A" -n 1 -k 0xd -r 0 > /dev/null || vm_fail "A: register (resv-regctl-huge)"
nvme resv-report "$B" -n 1 -e -d 31 -b > /tmp/report || vm_fail "resv-report (resv-regctl-huge)"
vm_assert_eq "65535 13 128" "$(python3 -c 'import struct; d=open("/tmp/report","rb").read(); print(struct.unpack_from("<H",d,5)[0], struct.unpack_from("<Q",d,72)[0], len(d))')" \
	"resv-regctl-huge: REGCTL, the one real key (0xd), bytes"
vm_assert_eq 1 "$(tgt_hits resv-regctl-huge)" "resv-regctl-huge: misbehaviours"
echo "RESULT: resv-regctl-huge: REGCTL 65535 over one registrant in 128 bytes"

tgt_clean_slate reservations
