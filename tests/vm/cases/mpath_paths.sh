#!/bin/bash
# Two paths, one disk per namespace: connecting to the second port of a
# subsystem joins it (no --duplicate), and each of its two namespaces is one
# head /dev/rblk0n<N> over hidden path disks rblk0c0n<N> and rblk0c1n<N>
# (no /dev node), with the namespace's size and wwid; data written through
# the head reads back. `list --json`, `list-subsys` (text and nvme-cli's
# JSON shape), the subsystem's sysfs, and set-iopolicy (rblkctl, sysfs and
# the refusals); a path disconnected takes only its path disk with it; the
# heads keep their names when the first controller goes, even against a
# new controller that gets its id.
# vm-timeout: 400
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-paths
mp_target "$nqn" 32 2 > /dev/null
vm_rblk_load
vm_assert_eq Y "$(cat /sys/module/rblk/parameters/multipath)" "multipath parameter default"

vm_assert_eq $'rblk0\n/dev/rblk0n1\n/dev/rblk0n2' "$(mp_connect "$nqn" 1)" "first path's connect output"
vm_assert_eq $'rblk1\n/dev/rblk0n1\n/dev/rblk0n2' "$(mp_connect "$nqn" 2)" "second path's connect output"
vm_assert_eq $'/dev/rblk0n1\n/dev/rblk0n2' "$(vm_rblk_disks)" "block devices: the heads only"
for n in 1 2; do
	for c in 0 1; do
		vm_assert_exists "/sys/block/rblk0c${c}n$n"
		vm_assert_not_exists "/dev/rblk0c${c}n$n"
		vm_assert_eq optimized "$(mp_path_ana "rblk0c${c}n$n")" "ana_state of rblk0c${c}n$n"
		vm_assert_eq 1 "$(cat "/sys/block/rblk0c${c}n$n/ana_grpid")" "ana_grpid of rblk0c${c}n$n"
	done
	vm_assert_eq $((32 << 20)) "$(blockdev --getsize64 "/dev/rblk0n$n")" "size of /dev/rblk0n$n"
	vm_assert_eq "uuid.$(cat "$VM_NVMET/subsystems/$nqn/namespaces/$n/device_uuid")" \
		"$(cat "/sys/block/rblk0n$n/wwid")" "wwid of /dev/rblk0n$n"
	vm_assert_eq "$n" "$(cat "/sys/block/rblk0n$n/nsid")" "nsid of /dev/rblk0n$n"
done
vm_assert_ne "$(cat /sys/block/rblk0n1/wwid)" "$(cat /sys/block/rblk0n2/wwid)" "the two namespaces' wwids"

# Data through the head, both namespaces.
head -c 4M /dev/urandom > /tmp/a
for n in 1 2; do
	vm_put /tmp/a "/dev/rblk0n$n" $((n << 20))
	vm_assert_eq "$(sha256sum < /tmp/a | cut -d' ' -f1)" "$(vm_sum "/dev/rblk0n$n" $((n << 20)) $((4 << 20)))" \
		"data read back through /dev/rblk0n$n"
done

# The subsystem in sysfs.
sys=/sys/class/rblk-subsystem/rblk-subsys0
vm_assert_eq "$nqn" "$(cat "$sys/subsysnqn")" "subsysnqn"
vm_assert_eq "$(cat /sys/class/rblk/rblk0/hostnqn)" "$(cat "$sys/hostnqn")" "hostnqn"
vm_assert_eq numa "$(cat "$sys/iopolicy")" "default iopolicy"

# list --json: both controllers a path of subsystem 0, one entry per head.
"$RBLKCTL" list --json > /tmp/list.json || vm_fail "rblkctl list --json failed"
python3 - "$nqn" /tmp/list.json <<'PY' || vm_fail "rblkctl list --json: $(cat /tmp/list.json)"
import json, sys
nqn, d = sys.argv[1], json.load(open(sys.argv[2]))
cs = d["controllers"]
assert [c["name"] for c in cs] == ["rblk0", "rblk1"], cs
for c in cs:
    assert (c["subsys_id"], c["multipath"], c["iopolicy"], c["state"]) == (0, True, "numa", "live"), c
    assert c["anatt"] > 0, c
    for ns in c["namespaces"]:
        assert ns["device"] == "/dev/rblk0n%d" % ns["nsid"], ns
        assert ns["path_disk"] == "rblk0c%dn%d" % (c["id"], ns["nsid"]), ns
        assert (ns["ana_state"], ns["anagrpid"], ns["size_bytes"]) == ("optimized", 1, 32 << 20), ns
assert [c["traddr"] for c in cs] == ["10.99.0.1", "10.98.0.1"], cs
(s,) = d["subsystems"]
assert (s["name"], s["id"], s["subnqn"], s["multipath"], s["iopolicy"]) == ("rblk-subsys0", 0, nqn, True, "numa"), s
assert [(p["name"], p["state"], p["ana_state"]) for p in s["paths"]] == [("rblk0", "live", "optimized"), ("rblk1", "live", "optimized")], s
assert [n["device"] for n in s["namespaces"]] == ["/dev/rblk0n1", "/dev/rblk0n2"], s
for n in s["namespaces"]:
    assert [p["path_disk"] for p in n["paths"]] == ["rblk0c0n%d" % n["nsid"], "rblk0c1n%d" % n["nsid"]], n
PY
# The table: a row per path, both under rblk-subsys0 with the same heads.
out=$("$RBLKCTL" list) || vm_fail "rblkctl list failed"
vm_assert_match '^rblk0 +live +optimized +rdma +10\.99\.0\.1 +4420 .* rblk-subsys0 +nqn\S+ +/dev/rblk0n1,/dev/rblk0n2 +32\.0M,32\.0M$' "$out" "list row of rblk0"
vm_assert_match '^rblk1 +live +optimized +rdma +10\.98\.0\.1 +4420 .* rblk-subsys0 +nqn\S+ +/dev/rblk0n1,/dev/rblk0n2 +32\.0M,32\.0M$' "$out" "list row of rblk1"

# list-subsys, as nvme-cli prints it.
out=$("$RBLKCTL" list-subsys) || vm_fail "rblkctl list-subsys failed"
vm_assert_match "^rblk-subsys0 - NQN=$nqn\$" "$out" "list-subsys: subsystem line"
vm_assert_match '^ +iopolicy=numa$' "$out" "list-subsys: iopolicy"
vm_assert_match '^ \+- rblk0 rdma traddr=10\.99\.0\.1,trsvcid=4420 live optimized$' "$out" "list-subsys: path rblk0"
vm_assert_match '^ \+- rblk1 rdma traddr=10\.98\.0\.1,trsvcid=4420 live optimized$' "$out" "list-subsys: path rblk1"
"$RBLKCTL" list-subsys --json > /tmp/subsys.json || vm_fail "rblkctl list-subsys --json failed"
python3 - "$nqn" /tmp/subsys.json <<'PY' || vm_fail "rblkctl list-subsys --json: $(cat /tmp/subsys.json)"
import json, sys
nqn, d = sys.argv[1], json.load(open(sys.argv[2]))
(host,) = d
(s,) = host["Subsystems"]
assert (s["Name"], s["NQN"], s["IOPolicy"]) == ("rblk-subsys0", nqn, "numa"), s
assert s["Paths"] == [
    {"Name": "rblk0", "Transport": "rdma", "Address": "traddr=10.99.0.1,trsvcid=4420", "State": "live", "ANAState": "optimized"},
    {"Name": "rblk1", "Transport": "rdma", "Address": "traddr=10.98.0.1,trsvcid=4420", "State": "live", "ANAState": "optimized"},
], s["Paths"]
PY

# set-iopolicy by NQN, by controller, by disk; sysfs agrees both ways.
"$RBLKCTL" set-iopolicy "$nqn" round-robin || vm_fail "set-iopolicy $nqn round-robin failed"
vm_assert_eq round-robin "$(cat "$sys/iopolicy")" "iopolicy after set-iopolicy NQN"
"$RBLKCTL" set-iopolicy rblk1 queue-depth || vm_fail "set-iopolicy rblk1 queue-depth failed"
vm_assert_eq queue-depth "$(cat "$sys/iopolicy")" "iopolicy after set-iopolicy rblk1"
"$RBLKCTL" set-iopolicy /dev/rblk0n2 numa || vm_fail "set-iopolicy /dev/rblk0n2 numa failed"
vm_assert_eq numa "$(cat "$sys/iopolicy")" "iopolicy after set-iopolicy /dev/rblk0n2"
echo round-robin > "$sys/iopolicy"
vm_assert_contains "$("$RBLKCTL" list-subsys)" "iopolicy=round-robin" "list-subsys after a sysfs write"
vm_assert_fails sh -c "echo fastest > $sys/iopolicy"
vm_assert_eq round-robin "$(cat "$sys/iopolicy")" "iopolicy after a refused sysfs write"
refused() {
	local want=$1 out rc=0
	shift
	out=$("$RBLKCTL" set-iopolicy "$@" 2>&1) || rc=$?
	vm_assert_eq "$want" "$rc" "exit code of set-iopolicy $*"
	vm_assert_match '^rblkctl: .+$' "$out" "set-iopolicy $*"
	vm_assert_eq 1 "$(wc -l <<< "$out")" "lines printed by set-iopolicy $*"
	vm_log "set-iopolicy $*: $out"
}
refused 1 nqn.2024-01.io.rblk:nobody numa
refused 1 rblk7 numa
refused 1 rblk-subsys7 numa
refused 2 "$nqn" fastest
vm_assert_eq round-robin "$(cat "$sys/iopolicy")" "iopolicy after the refusals"

# One path goes: the heads stay, its path disks go with it.
"$RBLKCTL" disconnect rblk1 > /dev/null || vm_fail "disconnect rblk1 failed"
vm_assert_not_exists /sys/block/rblk0c1n1
vm_assert_exists /sys/block/rblk0c0n1
vm_assert_eq $'/dev/rblk0n1\n/dev/rblk0n2' "$(vm_rblk_disks)" "heads after one path went"
vm_assert_eq "$(sha256sum < /tmp/a | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n1 $((1 << 20)) $((4 << 20)))" \
	"data through the remaining path"
# It joins again, under the same names.
vm_assert_eq $'rblk1\n/dev/rblk0n1\n/dev/rblk0n2' "$(mp_connect "$nqn" 2)" "the second path again"
vm_assert_exists /sys/block/rblk0c1n2

# The first controller, whose id numbers the subsystem, goes: the heads
# keep their names, and a controller of another subsystem connected now
# (which may get id 0 again) must not take them.
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect rblk0 failed"
vm_assert_eq $'/dev/rblk0n1\n/dev/rblk0n2' "$(vm_rblk_disks)" "heads after the first path went"
vm_assert_exists "$sys"
other=nqn.2024-01.io.rblk:mp-paths-other
vm_nvmet_subsys "$other" "$(vm_membacked_disk 1 16)"
vm_nvmet_link 1 "$other"
out=$(mp_connect "$other" 1)
vm_log "another subsystem while rblk-subsys0 has lost its first controller: $out"
vm_assert_eq 2 "$(wc -l <<< "$out")" "connect output of the other subsystem"
case $(tail -n 1 <<< "$out") in
/dev/rblk0n1 | /dev/rblk0n2) vm_fail "the other subsystem's disk took a head's name: $out" ;;
esac
vm_assert_eq $((32 << 20)) "$(blockdev --getsize64 /dev/rblk0n1)" "rblk-subsys0's head after the other connect"
vm_assert_eq $((16 << 20)) "$(blockdev --getsize64 "$(tail -n 1 <<< "$out")")" "the other subsystem's disk"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 30 vm_rblk_none
vm_assert_not_exists "$sys"
