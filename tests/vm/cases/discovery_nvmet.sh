#!/bin/bash
# Discovery against the kernel's nvmet, compared with nvme-cli on the same
# target. Three subsystems on two ports (a on both, b on port 1, c on
# port 2), each port's log referring to the other's discovery controller
# (a referral loop). rblkctl discover gives what nvme discover gives,
# entry for entry, on both ports; connect-all follows the referrals, ends
# the loop, connects every subsystem entry once (four controllers), and a
# second run adds nothing; a persistent discovery controller stays (with
# a keep-alive), and when a fourth subsystem appears on port 1, its log
# change event makes `rblkctl monitor --connect-new` connect it; udev sees
# that event and the state changes as uevents with the address.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

pre=nqn.2024-01.io.rblk:disc
work=$(mktemp -d)
mon=""
trap '[ -z "$mon" ] || kill "$mon" 2> /dev/null || true' EXIT

vm_setup_rxe
vm_modprobe nvmet
for n in a b c d; do
	vm_nvmet_subsys "$pre-$n" "$(vm_membacked_disk 1 16 512 1)"
done
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_port 2 10.99.0.1 4421
vm_nvmet_link 1 "$pre-a"
vm_nvmet_link 1 "$pre-b"
vm_nvmet_link 2 "$pre-a"
vm_nvmet_link 2 "$pre-c"
vm_nvmet_referral 1 to2 10.99.0.1 4421 2
vm_nvmet_referral 2 to1 10.99.0.1 4420 1
vm_modprobe nvme-rdma
vm_rblk_load

# ctrls [discovery]: "subnqn trsvcid state" of the I/O (or discovery)
# controllers, sorted.
ctrls() {
	"$RBLKCTL" list --json | python3 -c '
import json, sys
want = len(sys.argv) > 1
rows = [" ".join((c["subnqn"], str(c["trsvcid"]), c["state"]))
        for c in json.load(sys.stdin)["controllers"]
        if bool(c.get("discovery", False)) == want]
print("\n".join(sorted(rows)))' "$@"
}

# 1. The log, as nvme-cli reads it: the same records, field for field
# (every field nvme-cli prints that rblkctl prints too; the core ones
# must be there), and the same first line of the text form.
for port in 4420 4421; do
	"$RBLKCTL" discover -t rdma -a 10.99.0.1 -s "$port" --json > "$work/rblk.json" ||
		vm_fail "rblkctl discover -s $port failed"
	nvme discover -t rdma -a 10.99.0.1 -s "$port" -o json > "$work/nvme.json" ||
		vm_fail "nvme discover -s $port failed"
	python3 - "$work/rblk.json" "$work/nvme.json" << 'EOF' || vm_fail "rblkctl discover -s $port differs from nvme discover (above)"
import json, sys
rblk, nvme = (json.load(open(p)) for p in sys.argv[1:])
core = ["trtype", "adrfam", "subtype", "treq", "portid", "trsvcid", "subnqn", "traddr"]
key = lambda r: (r["subtype"], r["subnqn"], r["traddr"], r["trsvcid"])
ok = len(rblk["records"]) == len(nvme["records"]) and len(nvme["records"]) >= 3
if not ok:
    print(f"records: rblk {len(rblk['records'])}, nvme {len(nvme['records'])}")
mine = {key(r): r for r in rblk["records"]}
for n in nvme["records"]:
    r = mine.get(key(n))
    if r is None:
        print("rblk lacks", key(n)); ok = False; continue
    for f in core:
        if f not in r:
            print("rblk lacks field", f); ok = False
    for f, v in n.items():
        if f in r and str(r[f]) != str(v):
            print(f"{key(n)} {f}: rblk {r[f]!r}, nvme {v!r}"); ok = False
sys.exit(0 if ok else 1)
EOF
	want=$(nvme discover -t rdma -a 10.99.0.1 -s "$port" | grep -m1 'Discovery Log Number of Records')
	got=$("$RBLKCTL" discover -t rdma -a 10.99.0.1 -s "$port" | grep -m1 'Discovery Log Number of Records')
	vm_assert_eq "$want" "$got" "first line of rblkctl discover -s $port"
done
vm_assert_eq "" "$(ctrls; ctrls discovery)" "controllers left by discover"
vm_assert_eq "" "$(ls /sys/class/nvme)" "nvme controllers left by nvme discover"

# 2. connect-all, twice: four I/O controllers, no discovery controller left.
want=$(printf '%s\n' "$pre-a 4420 live" "$pre-a 4421 live" "$pre-b 4420 live" "$pre-c 4421 live")
for run in 1 2; do
	"$RBLKCTL" connect-all -t rdma -a 10.99.0.1 -s 4420 -i 1 -Q 32 > "$work/ca.out" 2> "$work/ca.err" ||
		vm_fail "connect-all (run $run) failed: $(cat "$work/ca.err")"
	vm_log "connect-all run $run: $(tr '\n' ' ' < "$work/ca.out") / $(tr '\n' ' ' < "$work/ca.err")"
	vm_assert_eq "$want" "$(ctrls)" "I/O controllers after connect-all run $run"
	vm_assert_eq "" "$(ctrls discovery)" "discovery controllers after connect-all run $run"
done
# Subsystem a, reached on both ports, is one multipath head over two paths.
vm_assert_eq 3 "$(vm_rblk_disks | wc -l)" "disks after connect-all (a's two paths share one)"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 20 vm_rblk_none

# 3. Persistent: the discovery controller stays, with nvme-cli's 30 s
# keep-alive, and its log change event connects a new subsystem. udev
# sees the state changes and the log change as uevents.
udevadm monitor --kernel --property --subsystem-match=rblk > "$work/uevents" 2>&1 &
udev=$!
trap '[ -z "$mon" ] || kill "$mon" 2> /dev/null || true; kill "$udev" 2> /dev/null || true' EXIT
vm_wait_for 30 grep -q 'monitor will print' "$work/uevents"
"$RBLKCTL" connect-all -t rdma -a 10.99.0.1 -s 4420 -i 1 -Q 32 --persistent > "$work/ca.out" 2> "$work/ca.err" ||
	vm_fail "connect-all --persistent failed: $(cat "$work/ca.err")"
vm_assert_eq "$want" "$(ctrls)" "I/O controllers after connect-all --persistent"
vm_assert_eq "nqn.2014-08.org.nvmexpress.discovery 4420 live" "$(ctrls discovery)" \
	"the persistent discovery controller"
disc=$("$RBLKCTL" list --json | python3 -c '
import json, sys
print(next(c["name"] for c in json.load(sys.stdin)["controllers"] if c.get("discovery")))')
vm_assert_eq 30 "$(vm_rblk_attr "$disc" kato)" "keep-alive of the persistent discovery controller"
vm_assert_eq discovery "$(vm_rblk_attr "$disc" cntrltype)" "cntrltype of $disc"

"$RBLKCTL" monitor --connect-new -i 1 -Q 32 > "$work/mon.out" 2>&1 &
mon=$!
# Subscribed once it prints the state changes of a discover's controller
# (on port 2: on port 1, discover reads through the persistent one).
subscribed() {
	[ -s "$work/mon.out" ] && return 0
	"$RBLKCTL" discover -t rdma -a 10.99.0.1 -s 4421 > /dev/null || vm_fail "discover failed"
	[ -s "$work/mon.out" ]
}
vm_wait_for 60 subscribed
vm_nvmet_link 1 "$pre-d"
new() { ctrls | grep -q "^$pre-d 4420 live$"; }
vm_wait_for 60 new
vm_log "monitor: $(tr '\n' ' ' < "$work/mon.out")"
vm_assert_eq "$(printf '%s\n' "$want" "$pre-d 4420 live" | sort)" "$(ctrls)" \
	"I/O controllers after the log change"
vm_dmesg_has "$disc: discovery log changed" || vm_fail "no 'discovery log changed' in the kernel log"
# One event block per uevent, blank-line separated: the discovery one and
# a live one of the new controller, each with the address. The kernel
# sends them from a work item after the state changes, and udevadm prints
# them when it is scheduled: wait for them (bounded), then judge.
uevents_ok() {
	python3 - "$work/uevents" "$disc" "$pre-d" "$@" << 'EOF'
import sys
text, disc, new = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
events = [dict(l.split("=", 1) for l in b.splitlines() if "=" in l) for b in text.split("\n\n")]
events = [e for e in events if e.get("SUBSYSTEM") == "rblk"]
aen = [e for e in events if e.get("RBLK_EVENT") == "discovery" and e.get("DEVPATH", "").endswith("/" + disc)]
live = [e for e in events if e.get("RBLK_EVENT") == "state" and e.get("RBLK_STATE") == "live" and e.get("RBLK_SUBNQN") == new]
if len(sys.argv) > 4:
    print(f"{len(events)} rblk uevents; discovery: {aen[:1]}; live of {new}: {live[:1]}", file=sys.stderr)
ok = bool(aen) and bool(live)
for e in aen[:1] + live[:1]:
    ok &= e.get("RBLK_TRTYPE") == "rdma" and e.get("RBLK_TRADDR") == "10.99.0.1" and e.get("RBLK_TRSVCID") == "4420"
# Notice (2), Discovery Log Page Change (f0h), log page 70h.
ok &= bool(aen) and int(aen[0].get("RBLK_AEN", "0"), 16) == 0x70f002
sys.exit(0 if ok else 1)
EOF
}
vm_wait_until 30 uevents_ok || true  # judged below, with what came
kill "$udev"
uevents_ok verbose || vm_fail "uevents (above) lack what udev rules need"
kill "$mon"
wait "$mon" 2> /dev/null || true
mon=""

"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 20 vm_rblk_none
vm_nvmet_teardown
vm_rblk_unload
vm_dmesg_clean
