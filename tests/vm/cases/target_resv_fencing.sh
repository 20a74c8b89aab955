#!/bin/bash
# rblk's own persistent reservations (issue 33) against the test target's
# reservation-capable namespace (rblk_test_target --reservations), two
# hosts in one VM (two controllers, own host NQN and Host ID, own disk):
#  1. SCSI through SG_IO with sg_persist, as SCSI cluster fencing does:
#     REPORT CAPABILITIES from RESCAP; A registers and reserves Write
#     Exclusive - Registrants Only; B, unregistered, reads (dd, SCSI READ)
#     but its writes fail (dd: EBADE; SCSI WRITE: RESERVATION CONFLICT
#     status); B registers (REGISTER AND IGNORE EXISTING KEY, unregistered
#     then registered: Register, then Replace) and writes; A preempts and
#     aborts B: B's writes conflict again; READ FULL STATUS names A's Host
#     ID in an SRP TransportID; release; B registers again, A reserves and
#     releases; clear. READ KEYS and READ RESERVATION match the target's
#     extended Reservation Report (nvme resv-report) at every step.
#     Notices: B's controller (rblk1), and it alone, reads the target's
#     Reservation Notification log on its event and raises each notice as
#     `rblkctl monitor --json` and udev see it: registration-preempted (the
#     preempt and abort), reservation-released (A's release while B was
#     registered), reservation-preempted (the clear); the kernel logs each
#     and nothing ignored or lost. The notices' mask (Set Features 82h)
#     goes out once per namespace and association: none per rescan, one
#     again after a reset.
#  2. The same through the block layer's PR ioctls (tests/tools/rblk_pr):
#     pr_ops on rblk's disks.
#  3. With an NGUID the target reports a multi-controller subsystem: the
#     disks are multipath heads (one path each), and SG_IO and pr_ops go
#     down their path.
#  4. --misbehave resv-regctl-huge: a report that claims 65535 registrants
#     in the bytes of one: READ KEYS and READ FULL STATUS give the one.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

PR=$RBLK_BUILD_DIR/tests/tools/rblk_pr
vm_require "$PR"
command -v sg_persist > /dev/null || vm_fail "sg_persist (sg3-utils) missing"

A=/dev/rblk0n1 B=/dev/rblk1n1
tgt_start none --reservations
tgt_connect_hosts
vm_assert_not_exists /sys/block/rblk0c0n1

# views DEV...: one line per view, "gen=G keys=K1,K2 resv=TYPE/KEY": first
# the target's, from its extended Reservation Report through rblk's NVMe
# ioctl on the first DEV; then each DEV's through SG_IO, from sg_persist's
# READ KEYS and READ RESERVATION. TYPE in SCSI's code (0: none), KEY the
# holder's (0 for the all-registrants types). One python3 for all: each
# start costs more than a second under TCG.
views() {
	local dev args=()
	nvme resv-report "$1" -n 1 -e -d 1023 -b > /tmp/report || vm_fail "resv-report on $1 failed"
	for dev in "$@"; do
		args+=("$(sg_persist -n -k "$dev" 2>&1)") || vm_fail "sg_persist -k $dev: ${args[-1]}"
		args+=("$(sg_persist -n -r "$dev" 2>&1)") || vm_fail "sg_persist -r $dev: ${args[-1]}"
	done
	python3 - /tmp/report "${args[@]}" <<'PY'
import re, struct, sys
d = open(sys.argv[1], "rb").read()
gen, rtype, regctl = struct.unpack_from("<IBH", d, 0)
ents = [d[64 + 64 * i: 128 + 64 * i] for i in range(regctl)]
keys = [struct.unpack_from("<Q", e, 8)[0] for e in ents]
scsi = [0, 1, 3, 5, 6, 7, 8][rtype]
holder = 0
if rtype and rtype < 5:
    holder = next(k for e, k in zip(ents, keys) if e[2] & 1)
print(f"gen={gen} keys={','.join(hex(k) for k in keys)} resv={scsi}/{holder:#x}")
types = {"Write Exclusive": 1, "Exclusive Access": 3,
         "Write Exclusive, registrants only": 5, "Exclusive Access, registrants only": 6,
         "Write Exclusive, all registrants": 7, "Exclusive Access, all registrants": 8}
for k, r in zip(sys.argv[2::2], sys.argv[3::2]):
    gen = int(re.search(r"PR generation=(0x[0-9a-f]+)", k).group(1), 16)
    rgen = int(re.search(r"PR generation=(0x[0-9a-f]+)", r).group(1), 16)
    assert gen == rgen, (k, r)
    keys = re.findall(r"^\s+(0x[0-9a-f]+)\s*$", k, re.M)
    m = re.search(r"Key=(0x[0-9a-f]+)\s+scope: LU_SCOPE,\s+type: (.*)", r)
    resv = f"{types[m.group(2).strip()]}/{int(m.group(1), 16):#x}" if m else "0/0x0"
    print(f"gen={gen} keys={','.join(hex(int(x, 16)) for x in keys)} resv={resv}")
PY
}
# state WANT WHAT: the target and SG_IO on both hosts say WANT.
state() {
	local v
	mapfile -t v < <(views "$A" "$B")
	vm_assert_eq "$1" "${v[0]:-}" "target's report: $2"
	vm_assert_eq "$1" "${v[1]:-}" "sg_persist on A: $2"
	vm_assert_eq "$1" "${v[2]:-}" "sg_persist on B: $2"
}
# prout DEV ARGS...: sg_persist --out; prints its exit code (24: conflict).
prout() {
	local dev=$1 rc=0
	shift
	sg_persist -n --out "$@" "$dev" > /tmp/prout 2>&1 || rc=$?
	echo "$rc"
}
may_write() { head -c 4096 /dev/urandom | dd of="$1" bs=4k seek=256 oflag=direct conv=notrunc status=none 2> /dev/null; }
may_read() { dd if="$1" of=/dev/null bs=4k skip=256 count=1 iflag=direct status=none 2> /dev/null; }
# scsi_rw DEV 28|2a: one block by SCSI READ(10) or WRITE(10) through SG_IO;
# prints sg_raw's SCSI status line.
scsi_rw() {
	local io=(-r 512) out line
	head -c 512 /dev/zero > /tmp/blk
	[ "$2" = 2a ] && io=(-s 512 -i /tmp/blk)
	out=$(sg_raw -v "${io[@]}" "$1" "$2" 00 00 00 08 00 00 00 01 00 2>&1 || true)
	line=$(grep -m1 'SCSI Status' <<< "$out" | sed 's/[[:space:]]*$//')
	echo "${line:-no SCSI status: $out}"
}
# resv_notices CTRL: CTRL's reservation notices as `rblkctl monitor
# --json` printed them, "DISK NSID NOTICE" a line.
resv_notices() {
	python3 - "$events" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "reservation" and e["name"] == sys.argv[2]:
        print(e["disk"], e["nsid"], e["notice"])
PY
}
# resv_notices_are CTRL WANT: CTRL's notices so far are WANT (lines).
resv_notices_are() { [ "$(resv_notices "$1")" = "$2" ]; }

# --- 1. SG_IO: sg_persist -----------------------------------------------------
caps=$(sg_persist -n -c "$A" 2>&1) || vm_fail "REPORT CAPABILITIES: $caps"
vm_assert_contains "$caps" "Type Mask Valid(TMV): 1" "REPORT CAPABILITIES"
vm_assert_contains "$caps" "Persist Through Power Loss Capable(PTPL_C): 0" "PTPL_C without --resv-state"
vm_assert_contains "$caps" "All Target Ports Capable(ATP_C): 1" "ATP_C"
vm_assert_contains "$caps" "Write Exclusive, registrants only: 1" "WE-RO in the type mask"
state "gen=0 keys= resv=0/0x0" "nothing yet"

vm_assert_eq 0 "$(prout "$A" --register --param-sark=0xa)" "A: REGISTER"
vm_assert_eq 0 "$(prout "$A" --reserve --param-rk=0xa --prout-type=5)" "A: RESERVE WE-RO"
state "gen=1 keys=0xa resv=5/0xa" "A registered and holds WE-RO"
may_write "$A" || vm_fail "A (holder) cannot write"
may_read "$B" || vm_fail "B (unregistered) cannot read under WE-RO"
may_write "$B" && vm_fail "B (unregistered) could write under WE-RO"
# As nvme's: a conflict is EBADE (BLK_STS_RESV_CONFLICT), not EIO, so that
# a fenced application can tell it from a failing disk.
err=$(head -c 4096 /dev/zero | dd of="$B" bs=4k seek=256 oflag=direct conv=notrunc status=none 2>&1) &&
	vm_fail "B (unregistered) could write under WE-RO"
vm_assert_contains "$err" "Invalid exchange" "B's write error under WE-RO (EBADE)"
vm_assert_eq "SCSI Status: Good" "$(scsi_rw "$B" 28)" "B's SCSI READ(10)"
vm_assert_contains "$(scsi_rw "$B" 2a)" "Reservation Conflict" "B's SCSI WRITE(10)"
vm_assert_eq 24 "$(prout "$B" --reserve --param-rk=0xb --prout-type=5)" "B (unregistered): RESERVE"
echo "RESULT: sg_persist: A holds WE-RO; B reads, B's writes get RESERVATION CONFLICT"

# REGISTER AND IGNORE EXISTING KEY: B unregistered (NVMe Register), then
# registered (Register conflicts, Replace ignoring the key).
vm_assert_eq 0 "$(prout "$B" --register-ignore --param-sark=0xb)" "B: REGISTER AND IGNORE (unregistered)"
state "gen=2 keys=0xa,0xb resv=5/0xa" "B registered"
may_write "$B" || vm_fail "B (registered) cannot write under WE-RO"
vm_assert_eq "SCSI Status: Good" "$(scsi_rw "$B" 2a)" "B's SCSI WRITE(10), registered"
vm_assert_eq 0 "$(prout "$B" --register-ignore --param-sark=0xb2)" "B: REGISTER AND IGNORE (registered)"
state "gen=3 keys=0xa,0xb2 resv=5/0xa" "B's key replaced"
vm_assert_eq 24 "$(prout "$B" --register --param-rk=0xb --param-sark=0xb3)" "B: REGISTER with a stale key"
echo "RESULT: sg_persist: REGISTER AND IGNORE EXISTING KEY registers and replaces"

# The notices' listeners, joined before the first notice: the monitor's
# socket in nlctrl's and rblk's groups, udev's printing.
work=$(mktemp -d)
events=$work/monitor.jsonl
"$RBLKCTL" monitor --json > "$events" 2> "$work/monitor.err" &
mon=$!
udevadm monitor --kernel --property --subsystem-match=rblk > "$work/uevents" 2>&1 &
udev=$!
trap 'kill "$mon" "$udev" 2> /dev/null || true; tgt_reap 120; [ -s "$TGT_LOG" ] && { echo "--- target log:"; tail -n 30 "$TGT_LOG"; } >&2' EXIT
vm_wait_for 20 vm_netlink_groups_joined "$mon" 2
vm_wait_for 30 grep -q 'monitor will print' "$work/uevents"

vm_assert_eq 0 "$(prout "$A" --preempt-abort --param-rk=0xa --param-sark=0xb2 --prout-type=5)" "A: PREEMPT AND ABORT B"
state "gen=4 keys=0xa resv=5/0xa" "B preempted"
may_write "$B" && vm_fail "B could write after being preempted"
vm_assert_contains "$(scsi_rw "$B" 2a)" "Reservation Conflict" "B's SCSI WRITE(10) after the preempt"
vm_wait_for 20 resv_notices_are rblk1 "rblk1n1 1 registration-preempted"
vm_dmesg_has "rblk1: reservation notice for nsid 1 (rblk1n1): registration-preempted" ||
	vm_fail "no registration-preempted notice in the kernel log"
full=$(sg_persist -n -s "$A" 2>&1) || vm_fail "READ FULL STATUS: $full"
vm_assert_contains "$full" "Key=0xa" "READ FULL STATUS: A's key"
vm_assert_contains "$full" "<< Reservation holder >>" "READ FULL STATUS: A holds"
vm_assert_contains "$full" "RDMA initiator port identifier:" "READ FULL STATUS: an SRP TransportID"
vm_assert_contains "$full" "0a 0a 0a 0a 00 00 40 00  80 00 00 00 00 00 00 0a" "READ FULL STATUS: A's Host ID ($TGT_ID_A)"
echo "RESULT: sg_persist: preempt and abort: B's writes conflict, B notified; full status names A"

vm_assert_eq 0 "$(prout "$A" --release --param-rk=0xa --prout-type=5)" "A: RELEASE"
state "gen=4 keys=0xa resv=0/0x0" "released"
may_write "$B" || vm_fail "B cannot write without a reservation"
vm_assert_eq 0 "$(prout "$B" --register --param-sark=0xb)" "B: REGISTER again"
vm_assert_eq 0 "$(prout "$A" --reserve --param-rk=0xa --prout-type=5)" "A: RESERVE WE-RO again"
vm_assert_eq 0 "$(prout "$A" --release --param-rk=0xa --prout-type=5)" "A: RELEASE, B registered"
state "gen=5 keys=0xa,0xb resv=0/0x0" "released with B registered"
vm_assert_eq 0 "$(prout "$A" --clear --param-rk=0xa)" "A: CLEAR"
state "gen=6 keys= resv=0/0x0" "cleared"
vm_wait_for 20 resv_notices_are rblk1 "$(printf '%s\n' "rblk1n1 1 registration-preempted" \
	"rblk1n1 1 reservation-released" "rblk1n1 1 reservation-preempted")"
vm_assert_eq "" "$(resv_notices rblk0)" "notices to A, the issuer of every change"
kill "$mon" "$udev"
wait "$mon" "$udev" 2> /dev/null || true
# One block per uevent, blank-line separated: rblk1's three, in order.
python3 - "$work/uevents" <<'PY' || vm_fail "reservation uevents: $(cat "$work/uevents")"
import sys
blocks = open(sys.argv[1]).read().split("\n\n")
events = [dict(l.split("=", 1) for l in b.splitlines() if "=" in l) for b in blocks]
resv = [e for e in events if e.get("RBLK_EVENT") == "reservation"]
got = [(e["DEVPATH"].rsplit("/", 1)[-1], e["ACTION"], e["RBLK_RESV"], e["RBLK_NSID"], e["RBLK_DISK"],
        e.get("RBLK_SUBNQN")) for e in resv]
nqn = "nqn.2024-01.io.rblk:badtarget"
want = [("rblk1", "change", k, "1", "rblk1n1", nqn)
        for k in ("registration-preempted", "reservation-released", "reservation-preempted")]
print(got, file=sys.stderr)
sys.exit(0 if got == want else 1)
PY
for bad in "notice.*ignored" "notices lost" "notification log unreadable" "refused to unmask" \
	"not empty after" "async event 0x800006"; do
	vm_dmesg_has -E "$bad" && vm_fail "kernel log: $(dmesg | grep -E "$bad")"
done
echo "RESULT: notices: B's controller alone saw registration-preempted, reservation-released, reservation-preempted (monitor --json, uevents, kernel log)"
vm_assert_eq 0 "$(prout "$A" --register --param-sark=0)" "A: REGISTER 0 to 0 (nothing)"
echo "RESULT: sg_persist: release, clear; READ KEYS/RESERVATION matched the target at each step"

# Malformed: a parameter list of 16 bytes, an unknown type.
head -c 16 /dev/zero > /tmp/plist
out=$(sg_raw -v -s 16 -i /tmp/plist "$A" 5f 00 00 00 00 00 00 00 10 00 2>&1 || true)
vm_assert_contains "$out" "Check Condition" "PR OUT with a 16-byte list"
vm_assert_contains "$out" "Parameter list length error" "PR OUT with a 16-byte list: sense"
vm_assert_eq 5 "$(prout "$A" --reserve --param-rk=0xa --prout-type=2)" "RESERVE of type 2 (obsolete)"
echo "RESULT: sg_persist: malformed PR OUT refused with sense"

# The notices' mask (Set Features 82h): once per namespace and association.
# Three rescans of each controller, one after the other (a rescan while a
# scan is queued adds none), send none: each round waits for its scans'
# list reads, so when the third round's are read, the first two rounds'
# scans are over. A reset (a new association, a new controller on the
# target) sends it again, once.
masks() { grep -c "^resv: cntlid [0-9]* set-mask nsid 0x1 mask 0 status 0$" "$TGT_LOG" || true; }
scans() { grep -c "^identify-active-list: " "$TGT_LOG" || true; }
vm_assert_eq 2 "$(masks)" "notice masks set by two connects"
s0=$(scans)
for r in 1 2 3; do
	for c in rblk0 rblk1; do nvme ns-rescan "/dev/$c" || vm_fail "nvme ns-rescan /dev/$c failed"; done
	vm_wait_for 60 bash -c "[ \$(grep -c '^identify-active-list: ' '$TGT_LOG') -ge $((s0 + 2 * r)) ]"
done
vm_assert_eq 2 "$(masks)" "notice masks set after 3 rescans of each host"
nvme reset /dev/rblk1 || vm_fail "nvme reset /dev/rblk1 failed"
vm_wait_for 60 bash -c "[ \$(grep -c '^resv: cntlid [0-9]* set-mask' '$TGT_LOG') -ge 3 ]"
vm_sleep 2
vm_assert_eq 3 "$(masks)" "notice masks set after a reset of B"
echo "RESULT: notice mask: one Set Features 82h per namespace and association, none per rescan"

# --- 2. the block layer's PR ioctls -------------------------------------------
pr() { "$PR" "$@" 2>&1 || true; }
vm_assert_eq ok "$(pr "$A" register 0 0xa)" "ioctl A: register"
vm_assert_eq ok "$(pr "$A" reserve 0xa we-ro)" "ioctl A: reserve WE-RO"
state "gen=7 keys=0xa resv=5/0xa" "ioctl: A holds WE-RO"
may_read "$B" || vm_fail "ioctl: B cannot read"
may_write "$B" && vm_fail "ioctl: B (unregistered) could write"
vm_assert_eq conflict "$(pr "$B" reserve 0xb we-ro)" "ioctl B (unregistered): reserve"
vm_assert_eq ok "$(pr "$B" register 0 0xb ignore)" "ioctl B: register, ignore key (unregistered)"
vm_assert_eq ok "$(pr "$B" register 0 0xb2 ignore)" "ioctl B: register, ignore key (registered)"
state "gen=9 keys=0xa,0xb2 resv=5/0xa" "ioctl: B registered"
may_write "$B" || vm_fail "ioctl: B (registered) cannot write"
vm_assert_eq conflict "$(pr "$B" register 0xb 0xb3)" "ioctl B: register with a stale key"
vm_assert_eq ok "$(pr "$A" preempt-abort 0xa 0xb2 we-ro)" "ioctl A: preempt and abort B"
state "gen=10 keys=0xa resv=5/0xa" "ioctl: B preempted"
may_write "$B" && vm_fail "ioctl: B could write after being preempted"
# a type other than the one held: the target's Invalid Field (EINVAL on
# 6.12; the NVMe status itself on 6.1, as its nvme returns it)
vm_assert_ne ok "$(pr "$A" release 0xa we)" "ioctl A: release with the wrong type"
vm_assert_eq ok "$(pr "$A" release 0xa we-ro)" "ioctl A: release"
state "gen=10 keys=0xa resv=0/0x0" "ioctl: released"
vm_assert_eq ok "$(pr "$B" register 0 0xb)" "ioctl B: register again"
vm_assert_eq ok "$(pr "$A" reserve 0xa we)" "ioctl A: reserve WE"
vm_assert_eq ok "$(pr "$B" preempt 0xb 0xa ea)" "ioctl B: preempt A, Exclusive Access"
state "gen=12 keys=0xb resv=3/0xb" "ioctl: B preempted A"
may_read "$A" && vm_fail "ioctl: A (preempted) could read under B's EA"
vm_assert_eq ok "$(pr "$B" register 0xb 0)" "ioctl B: unregister"
state "gen=13 keys= resv=0/0x0" "ioctl: B unregistered, its reservation gone"
vm_assert_eq ok "$(pr "$A" register 0 0xa)" "ioctl A: register"
vm_assert_eq ok "$(pr "$A" clear 0xa)" "ioctl A: clear"
state "gen=15 keys= resv=0/0x0" "ioctl: cleared"
echo "RESULT: PR ioctls: register (ignore key too), reserve, preempt(-abort), release, clear match the target"

# --- 3. multipath heads ---------------------------------------------------------
tgt_clean_slate reservations
tgt_start none --reservations --nguid 0123456789abcdef0123456789abcdef --uuid 01234567-89ab-cdef-0123-456789abcdef
tgt_connect_hosts
vm_assert_exists /sys/block/rblk0c0n1
vm_assert_exists /sys/block/rblk1c1n1
vm_assert_eq ok "$(pr "$A" register 0 0xa)" "head A: register (ioctl)"
vm_assert_eq 0 "$(prout "$A" --reserve --param-rk=0xa --prout-type=5)" "head A: RESERVE WE-RO (SG_IO)"
state "gen=1 keys=0xa resv=5/0xa" "heads: A holds WE-RO"
may_write "$B" && vm_fail "head B (unregistered) could write"
vm_assert_contains "$(scsi_rw "$B" 2a)" "Reservation Conflict" "head B's SCSI WRITE(10)"
vm_assert_eq 0 "$(prout "$B" --register-ignore --param-sark=0xb)" "head B: REGISTER AND IGNORE"
may_write "$B" || vm_fail "head B (registered) cannot write"
vm_assert_eq ok "$(pr "$A" preempt-abort 0xa 0xb we-ro)" "head A: preempt and abort B (ioctl)"
state "gen=3 keys=0xa resv=5/0xa" "heads: B preempted"
may_write "$B" && vm_fail "head B could write after being preempted"
vm_assert_eq ok "$(pr "$A" clear 0xa)" "head A: clear"
state "gen=4 keys= resv=0/0x0" "heads: cleared"
echo "RESULT: multipath heads: SG_IO and PR ioctls go down the path, conflicts as on the disks"

# --- 4. a report whose REGCTL the bytes do not hold ------------------------------
tgt_clean_slate reservations
tgt_start resv-regctl-huge --reservations
tgt_connect_hosts
vm_assert_eq 0 "$(prout "$A" --register --param-sark=0xd)" "regctl-huge: A registers"
keys=$(sg_persist -n -k "$B" 2>&1) || vm_fail "regctl-huge: READ KEYS: $keys"
vm_assert_contains "$keys" "1 registered reservation key follows:" "regctl-huge: READ KEYS count"
vm_assert_contains "$keys" "0xd" "regctl-huge: READ KEYS key"
full=$(sg_persist -n -s "$B" 2>&1) || vm_fail "regctl-huge: READ FULL STATUS: $full"
vm_assert_eq 1 "$(grep -c 'Key=' <<< "$full")" "regctl-huge: READ FULL STATUS descriptors"
[ "$(tgt_hits resv-regctl-huge)" -ge 2 ] || vm_fail "regctl-huge: the target did not misbehave"
echo "RESULT: resv-regctl-huge: REGCTL 65535 over one registrant: one key, one descriptor"

tgt_clean_slate reservations
