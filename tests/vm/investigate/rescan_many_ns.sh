#!/bin/bash
# Usage: RBLK_VM_MEMCHECK=0 tests/vm/run-in-vm.sh --build-dir build \
#            --kernel 6.12 --mem 4096 tests/vm/investigate/rescan_many_ns.sh [N]
# The rescan after a namespace-change notice when a subsystem already has
# N-1 namespaces (default N = 1024, nvmet's limit) (issue 31 §3): rblk and
# nvme-rdma both connected to one nvmet-rdma subsystem, namespace N
# enabled, and the time until each initiator's disk for it is there (both
# rescan on the same AEN; polled together). Then namespace N disabled, and
# the time until each disk is gone. Every namespace is the same buffered
# file (nvmet opens files without exclusion). Prints RESULT lines. Not a
# test: it exits 0 unless a step fails or takes over 120 s.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
nr=${1:-1024}
nqn=nqn.2024-01.io.rblk:rescan-many
s=$VM_NVMET/subsystems/$nqn
img=$(mktemp)
truncate -s $((2 << 20)) "$img"

ns_enable() {
	mkdir -p "$s/namespaces/$1"
	echo "$img" > "$s/namespaces/$1/device_path"
	echo 1 > "$s/namespaces/$1/buffered_io"
	echo 1 > "$s/namespaces/$1/enable"
}

vm_setup_rxe
vm_modprobe nvmet
mkdir "$s"
echo 1 > "$s/attr_allow_any_host"
for ((i = 1; i < nr; i++)); do
	ns_enable "$i"
done
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
ref=$(vm_nvme_ref_connect "$nqn")  # its head for namespace 1, /dev/nvmeXn1
# ulimit: nvme-cli's topology scan holds a descriptor per namespace.
ulimit -n 8192

# The reference's head for NSID, /dev/nvmeXnNSID (no process per poll:
# a scan of 2,000 disks' attributes takes seconds under TCG).
ref_disk() { [ -b "${ref%n1}n$1" ]; }
rblk_has() { [ -b "/dev/rblk0n$1" ]; }
all_there() {
	local i
	for ((i = 1; i < nr; i++)); do
		rblk_has "$i" || return 1
	done
	for ((i = 1; i < nr; i++)); do
		ref_disk "$i" || return 1
	done
}
vm_wait_for 300 all_there
vm_log "both initiators have $((nr - 1)) disks"

# both_ms T0 RBLK_CHECK REF_CHECK: "rblk_ms ref_ms", the time since T0 at
# which each check first passed.
both_ms() {
	local t0=$1 a="" b="" deadline=$((EPOCHSECONDS + 120))
	while [ -z "$a" ] || [ -z "$b" ]; do
		[ "$EPOCHSECONDS" -lt "$deadline" ] || vm_fail "over 120 s: rblk ${a:-not yet}, nvme-rdma ${b:-not yet}"
		[ -z "$a" ] && eval "$2" && a=$(vm_ms_since "$t0")
		[ -z "$b" ] && eval "$3" && b=$(vm_ms_since "$t0")
		vm_sleep 0.05
	done
	echo "$a $b"
}

t0=$(vm_now_ms)
ns_enable "$nr"
r=$(both_ms "$t0" "rblk_has $nr" "ref_disk $nr") || exit 1
read -r a b <<< "$r"
echo "RESULT: namespace $nr of $nr added: rblk's disk after $a ms, nvme-rdma's after $b ms"

t0=$(vm_now_ms)
echo 0 > "$s/namespaces/$nr/enable"
r=$(both_ms "$t0" "! rblk_has $nr" "! ref_disk $nr") || exit 1
read -r a b <<< "$r"
echo "RESULT: namespace $nr of $nr removed: rblk's disk gone after $a ms, nvme-rdma's after $b ms"

"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
vm_nvme_ref_disconnect "$nqn"
vm_nvmet_teardown
vm_rblk_unload
rm -f "$img"
