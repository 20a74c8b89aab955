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
# test: it exits 0 unless a step fails or takes over 900 s (a rescan
# revalidates every namespace: minutes under TCG at 1,024).
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
nr=${1:-1024}
nqn=nqn.2024-01.io.rblk:rescan-many
s=$VM_NVMET/subsystems/$nqn
img=$(mktemp)
truncate -s $((2 << 20)) "$img"

vm_setup_rxe
vm_modprobe nvmet
mkdir "$s"
echo 1 > "$s/attr_allow_any_host"
for ((i = 1; i < nr; i++)); do
	vm_nvmet_ns_file "$nqn" "$i" "$img"
done
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
ref=$(vm_nvme_ref_connect "$nqn")  # its head for namespace 1, /dev/nvmeXnY
# ulimit: nvme-cli's topology scan holds a descriptor per namespace.
ulimit -n 8192

# nvme-rdma's heads are /dev/nvmeXnY with Y in the order its scan (asynchronous
# in 6.12) added them, not the NSID: counted, and the new one found by
# its nsid attribute once it is there. rblk's are /dev/rblk0nNSID. No
# process per poll: a scan of 2,000 disks' attributes takes seconds
# under TCG.
sub=${ref%n*}
ref_count() {
	local d n=0
	for d in "$sub"n*; do
		[ -b "$d" ] && n=$((n + 1))
	done
	echo "$n"
}
ref_has() { [ "$(ref_count)" -ge "$1" ]; }
ref_gone() { ! ref_has "$1"; }
rblk_has() { [ -b "/dev/rblk0n$1" ]; }
rblk_gone() { ! rblk_has "$1"; }
rblk_count() {
	local i n=0
	for ((i = 1; i <= nr; i++)); do
		rblk_has "$i" && n=$((n + 1))
	done
	echo "$n"
}
all_there() { [ "$(rblk_count)" = $((nr - 1)) ] && [ "$(ref_count)" = $((nr - 1)) ]; }
t0=$(vm_now_ms)
vm_wait_until 900 all_there ||
	vm_fail "after 900 s: rblk has $(rblk_count) of $((nr - 1)) disks, nvme-rdma $(ref_count)"
vm_log "both initiators have $((nr - 1)) disks ($(vm_ms_since "$t0") ms after the second connect)"

t0=$(vm_now_ms)
vm_nvmet_ns_file "$nqn" "$nr" "$img"
r=$(vm_both_ms "$t0" 900 "rblk_has $nr" "ref_has $nr") || exit 1
read -r a b <<< "$r"
new_ref=$(vm_nvme_disk_of "$nqn" "$nr") || vm_fail "nvme-rdma's new disk is not namespace $nr's"
echo "RESULT: namespace $nr of $nr added: rblk's disk after $a ms, nvme-rdma's ($new_ref) after $b ms"

t0=$(vm_now_ms)
echo 0 > "$s/namespaces/$nr/enable"
r=$(vm_both_ms "$t0" 900 "rblk_gone $nr" "ref_gone $nr") || exit 1
[ ! -b "$new_ref" ] || vm_fail "nvme-rdma removed another disk than namespace $nr's $new_ref"
read -r a b <<< "$r"
echo "RESULT: namespace $nr of $nr removed: rblk's disk gone after $a ms, nvme-rdma's after $b ms"

"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
vm_nvme_ref_disconnect "$nqn"
vm_nvmet_teardown
vm_rblk_unload
rm -f "$img"
