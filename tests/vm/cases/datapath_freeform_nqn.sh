#!/bin/bash
# NQNs are free-form, as in the kernel's nvme-fabrics: an nvmet subsystem
# named like blktests names them (blktests-subsystem-1) connects, with a
# free-form host NQN too, and its disk reads and writes (the data checked
# through the kernel's nvme-rdma on the same namespace). A subsystem NQN
# of the spec's maximum of 223 bytes connects as well. What rblk refuses
# (empty, too long) fails before any connection, with its reason.
# NQNs are the module's own string handling, the same on both kernels
# (datapath_connect covers 6.1's connect): newest kernel only, for the
# suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=blktests-subsystem-1
vm_rdma_target "$nqn" 32 > /dev/null
vm_rblk_load

out=$(vm_rblk_connect "$nqn" -q blktests-host-1 -i 1 -Q 32)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect -n $nqn"
c=/sys/class/rblk/rblk0
vm_assert_eq "$nqn" "$(cat "$c/subnqn")" subnqn
vm_assert_eq blktests-host-1 "$(cat "$c/hostnqn")" hostnqn
vm_assert_eq "$nqn" "$("$RBLKCTL" list --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["controllers"][0]["subnqn"])')" \
	"subnqn in list --json"

# Write through rblk, read back through rblk and through nvme-rdma.
head -c $((1 << 20)) /dev/urandom > /tmp/data
want=$(sha256sum < /tmp/data | cut -d' ' -f1)
vm_put /tmp/data /dev/rblk0n1 $((4 << 20))
vm_assert_eq "$want" "$(vm_sum /dev/rblk0n1 $((4 << 20)) $((1 << 20)))" "data read back through rblk"
ref=$(vm_nvme_ref_connect "$nqn")
vm_assert_eq "$want" "$(vm_sum "$ref" $((4 << 20)) $((1 << 20)))" "rblk's data read through nvme-rdma"
vm_nvme_ref_disconnect "$nqn"
"$RBLKCTL" disconnect --nqn "$nqn" > /dev/null || vm_fail "rblkctl disconnect --nqn $nqn failed"
vm_wait_for 10 test -z "$(vm_rblk_disks)"

# The spec's longest NQN (223 bytes; nvme-fabrics itself stops at 222).
long=$(printf 'l%.0s' {1..223})
mkdir "$VM_NVMET/subsystems/$long"
echo 1 > "$VM_NVMET/subsystems/$long/attr_allow_any_host"
vm_nvmet_link 1 "$long"
out=$(vm_rblk_connect "$long" -i 1 -Q 32)
vm_assert_eq rblk0 "$out" "connect to a 223-byte NQN (no namespaces)"
vm_assert_eq "$long" "$(cat /sys/class/rblk/rblk0/subnqn)" "223-byte subnqn"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"

# Refused before any connection, with the reason.
for bad in "" "$(printf 'x%.0s' {1..224})"; do
	rc=0
	out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$bad" 2>&1) || rc=$?
	vm_assert_eq 2 "$rc" "exit code of connect -n '<${#bad} bytes>' (a usage error)"
	vm_assert_match '^rblkctl: --nqn (is required|is 224 bytes long, the maximum is 223)$' \
		"$out" "connect -n '<${#bad} bytes>'"
done
vm_assert_eq "" "$(ls /sys/class/rblk)" "controllers left"

vm_rblk_unload
vm_dmesg_clean
