#!/bin/bash
# rblkctl connect against nvmet-rdma: what it prints, the disk's size and
# queue limits (checked against the kernel's nvme-rdma on the same
# namespace), the controller's sysfs and `list --json`; wrong NQN, a host
# the subsystem refuses and no listener each fail with their own message;
# a duplicate is refused unless asked for; 5 connect/disconnect cycles
# (lifecycle_cycles_slab runs 20, with the slab's growth).
# A busy host stretches it to ~290 s (measured): the budget allows that.
# vm-timeout: 900
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:connect
size_mib=96
disk=$(vm_rdma_target "$nqn" "$size_mib")
vm_rblk_load

# connect_refused MESSAGE RBLKCTL_CONNECT_ARGS...: exit non-zero, one line
# on stderr, no controller left behind.
connect_refused() {
	local msg=$1 out rc=0
	shift
	out=$("$RBLKCTL" connect "$@" 2>&1) || rc=$?
	vm_assert_ne 0 "$rc" "exit code of rblkctl connect $*"
	vm_assert_eq "rblkctl: $msg" "$out" "rblkctl connect $*"
	vm_assert_eq "" "$(vm_rblk_disks)" "disks after the failed connect $*"
	vm_assert_eq "" "$(ls /sys/class/rblk)" "controllers after the failed connect $*"
	vm_log "refused as expected: $out"
}

# --- failures first, on a module with no controller yet --------------------
connect_refused "Connect refused: subsystem NQN not found on the target" \
	-a 10.99.0.1 -n nqn.2024-01.io.rblk:no-such-subsystem
connect_refused "connection rejected (no NVMe-oF listener at this address?)" \
	-a 10.99.0.1 -s 4421 -n "$nqn"
closed=nqn.2024-01.io.rblk:closed
mkdir "$VM_NVMET/subsystems/$closed"
vm_nvmet_link 1 "$closed"
connect_refused "Connect refused: host not allowed by the subsystem" -a 10.99.0.1 -n "$closed"

# --- connect ------------------------------------------------------------------
out=$(vm_rblk_connect "$nqn")
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect output"
vm_assert_exists /dev/rblk0n1
dev=/dev/rblk0n1 q=/sys/block/rblk0n1/queue c=/sys/class/rblk/rblk0
size=$((size_mib << 20))
vm_assert_eq "$size" "$(blockdev --getsize64 "$dev")" "size of $dev"
vm_assert_eq "$(blockdev --getss "$disk")" "$(blockdev --getss "$dev")" "logical block size"
vm_assert_eq "$(blockdev --getpbsz "$disk")" "$(blockdev --getpbsz "$dev")" "physical block size"
vm_assert_eq 0 "$(cat "$q/rotational")" "rotational"

# The controller, through sysfs.
attr() { cat "$c/$1"; }
vm_assert_eq live "$(attr state)" state
vm_assert_eq rdma "$(attr transport)" transport
vm_assert_eq 10.99.0.1 "$(attr traddr)" traddr
vm_assert_eq 4420 "$(attr trsvcid)" trsvcid
vm_assert_eq "$nqn" "$(attr subnqn)" subnqn
vm_assert_eq "$(cat /etc/nvme/hostnqn)" "$(attr hostnqn)" "hostnqn (rblkctl passes /etc/nvme/hostnqn)"
# Default: one I/O queue per online CPU (nvmet allows far more).
vm_assert_eq "$(nproc)" "$(attr nr_io_queues)" nr_io_queues
vm_assert_eq 128 "$(attr queue_size)" queue_size
vm_assert_eq 5 "$(attr kato)" kato
vm_assert_match '^[1-9][0-9]*$' "$(attr cntlid)" cntlid
vm_assert_eq Linux "$(attr model)" model
vm_assert_match '^[0-9a-f]+$' "$(attr serial)" serial
# nvmet reports a multi-controller subsystem: rblk0n1 is its head, over
# the hidden path rblk0c0n1 (no device node), which has the hardware queues.
vm_assert_eq rblk0c0n1 "$(vm_rblk_path_disk rblk0)" "the path's disk"
vm_assert_not_exists /dev/rblk0c0n1
vm_assert_not_exists /sys/block/rblk0n1/mq
vm_assert_eq "$(attr nr_io_queues)" "$(find /sys/block/rblk0c0n1/mq -mindepth 1 -maxdepth 1 | wc -l)" \
	"blk-mq hardware queues"
vm_assert_eq 0 "$(attr errors)" errors

# The same namespace through the kernel's nvme-rdma: identity and limits.
ref=$(vm_nvme_ref_connect "$nqn")
rq=/sys/block/$(basename "$ref")/queue
vm_assert_eq "$(cat "/sys/block/$(basename "$ref")/wwid")" "$(cat /sys/block/rblk0n1/wwid)" wwid
vm_assert_eq "$(blockdev --getsize64 "$ref")" "$size" "size seen by nvme-rdma"
for a in logical_block_size physical_block_size write_cache fua; do
	vm_assert_eq "$(cat "$rq/$a")" "$(cat "$q/$a")" "queue/$a (nvme-rdma vs rblk)"
done
# MDTS is in units of the minimum page size (CAP.MPSMIN: 4 KiB on nvmet).
mdts=$(nvme id-ctrl "$ref" | awk '$1 == "mdts" { print $3 }')
kb=$(cat "$q/max_hw_sectors_kb")
if [ "$mdts" -gt 0 ]; then
	[ "$kb" -le $((4 << mdts)) ] || vm_fail "max_hw_sectors_kb $kb exceeds MDTS ($mdts: $((4 << mdts)) KiB)"
fi
[ "$kb" -ge 128 ] || vm_fail "max_hw_sectors_kb $kb is too small to be sane"
oncs=$(nvme id-ctrl "$ref" | awk '$1 == "oncs" { print $3 }')
if (( oncs & 0x4 )); then
	[ "$(cat "$q/discard_max_bytes")" -gt 0 ] || vm_fail "ONCS has DSM but discard_max_bytes is 0"
fi
if (( oncs & 0x8 )); then
	[ "$(cat "$q/write_zeroes_max_bytes")" -gt 0 ] || vm_fail "ONCS has Write Zeroes but write_zeroes_max_bytes is 0"
fi
vm_nvme_ref_disconnect "$nqn"

# The controller, through rblkctl list --json.
json=$("$RBLKCTL" list --json) || vm_fail "rblkctl list --json failed"
JSON=$json python3 - "$nqn" "$size" "$(nproc)" <<'PY' || vm_fail "rblkctl list --json: $json"
import json, os, sys
nqn, size, nq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ctrls = json.loads(os.environ["JSON"])["controllers"]
assert len(ctrls) == 1, ctrls
c = ctrls[0]
want = {"name": "rblk0", "state": "live", "transport": "rdma", "traddr": "10.99.0.1",
        "trsvcid": 4420, "subnqn": nqn, "nr_io_queues": nq, "queue_size": 128}
for k, v in want.items():
    assert c[k] == v, (k, c[k], v)
# The keys of before, and the head's path with its ANA state (nvmet: optimized).
old = [{k: n[k] for k in ("nsid", "device", "size_bytes", "lba_size")} for n in c["namespaces"]]
assert old == [{"nsid": 1, "device": "/dev/rblk0n1", "size_bytes": size,
                "lba_size": 512}], c["namespaces"]
n = c["namespaces"][0]
assert (n["path_disk"], n["ana_state"]) == ("rblk0c0n1", "optimized"), n
PY

# --- duplicates -------------------------------------------------------------------
connect_dup() {
	local out rc=0
	out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" 2>&1) || rc=$?
	vm_assert_ne 0 "$rc" "exit code of a duplicate connect"
	vm_assert_eq "rblkctl: a controller for this traddr, trsvcid, subnqn and hostnqn already exists" \
		"$out" "duplicate connect"
}
connect_dup
vm_assert_eq /dev/rblk0n1 "$(vm_rblk_disks)" "disks after the refused duplicate"
# A duplicate is a second path to the same subsystem: the same head.
out=$(vm_rblk_connect "$nqn" --duplicate-connect)
vm_assert_eq $'rblk1\n/dev/rblk0n1' "$out" "connect --duplicate-connect"
vm_assert_eq "$(cat /sys/block/rblk0n1/wwid)" "$(cat /sys/block/rblk0c1n1/wwid)" "wwid of the duplicate's path"
vm_assert_eq /dev/rblk0n1 "$(vm_rblk_disks)" "disks with the duplicate"
"$RBLKCTL" disconnect rblk1 > /dev/null || vm_fail "rblkctl disconnect rblk1 failed"
vm_assert_not_exists /sys/block/rblk0c1n1
dd if=/dev/rblk0n1 of=/dev/null bs=4k count=1 iflag=direct status=none ||
	vm_fail "reading /dev/rblk0n1 after the duplicate left"
connect_dup
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_wait_for 10 test -z "$(vm_rblk_disks)"

# --- 5 cycles -----------------------------------------------------------------------
start=$EPOCHSECONDS
for ((i = 1; i <= 5; i++)); do
	out=$(vm_rblk_connect "$nqn" -i 2 -Q 32)
	vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "cycle $i: connect"
	# One read proves the queues work, not just that the disk exists.
	dd if=/dev/rblk0n1 of=/dev/null bs=4k count=1 iflag=direct status=none ||
		vm_fail "cycle $i: reading /dev/rblk0n1 failed"
	vm_assert_eq rblk0 "$("$RBLKCTL" disconnect rblk0)" "cycle $i: disconnect"
	vm_wait_for 10 test -z "$(vm_rblk_disks)"
	vm_assert_eq "" "$(ls /sys/class/rblk)" "cycle $i: controllers left"
done
vm_log "5 connect/disconnect cycles in $(( $EPOCHSECONDS - start ))s"
vm_assert_eq '{"controllers": [], "subsystems": []}' "$("$RBLKCTL" list --json | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))')" \
	"rblkctl list --json at the end"

vm_rblk_unload
vm_dmesg_clean
