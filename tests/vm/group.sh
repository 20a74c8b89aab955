#!/bin/bash
# The job of a grouped VM run (run-in-vm.sh --group): several cases share
# one boot. Each case runs in a cgroup of its own, with a budget, output to
# <out>/<case>/output.log and RBLK_VM_OUT=<out>/<case>; afterwards the VM
# is put back as the boot left it (processes killed, mounts, rblk,
# nvme-rdma, nvmet, null_blk, soft-RoCE, links and modules removed, /tmp
# emptied), and the case's kernel log (it starts with an empty ring) is
# checked and saved. Its exit code goes to <out>/<case>/exit_code:
#   the case's own, 124 on its timeout, 97 when it passed but its kernel
#   log (teardown included) has WARNING/BUG/..., 98 when it passed but the
#   VM could not be put back.
# When the VM cannot be put back, the group stops (exit 3) and the host
# boots a fresh VM for the cases left; they never run on a dirty VM.
#
# Usage (inside the VM, from stage2.sh): group.sh BUDGET:CASE...
# Cases must write only under /tmp and RBLK_VM_OUT.
OUT=${RBLK_VM_GROUP_OUT:-/run/rblk-vm}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CG=/sys/fs/cgroup/rblk-case

# lib.sh gives vm_nvmet_teardown; its set -e does not suit a runner that
# must go on whatever a case did.
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"
set +eu +o pipefail

log() { echo "group: $*"; }

modules() { awk '{ print $1 }' /proc/modules | sort; }
links() { ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort; }
mounts() { awk '{ print $2 }' /proc/self/mounts | sort; }

# What the VM looks like before any case: the state to come back to.
snapshot() {
	modules > "$1/modules"
	links > "$1/links"
	mounts > "$1/mounts"
}

base=/run/rblk-group
mkdir -p "$base/base" "$base/now"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
snapshot "$base/base"

# kill_case: every process the case left, through cgroup.kill (whole
# tree, also the daemons it forked), then the cgroup itself.
kill_case() {
	local i
	[ -d "$CG" ] || return 0
	echo 1 > "$CG/cgroup.kill"
	for ((i = 0; i < 100; i++)); do
		[ -z "$(cat "$CG/cgroup.procs")" ] && break
		sleep 0.1
	done
	rmdir "$CG" || { log "processes of the case survive cgroup.kill: $(cat "$CG/cgroup.procs")"; return 1; }
}

# unload_new: the modules loaded since boot, users first; rmmod refuses a
# module in use, so repeat while that frees others.
unload_new() {
	local round m left
	for ((round = 0; round < 12; round++)); do
		left=$(comm -13 "$base/base/modules" <(modules))
		[ -z "$left" ] && return 0
		for m in $left; do
			timeout 60 rmmod "$m" 2> /dev/null
		done
	done
	log "modules that do not unload: $(comm -13 "$base/base/modules" <(modules) | tr '\n' ' ')"
	return 1
}

# reset: back to the boot's state, each step bounded; 0 when it got there.
reset() {
	local m l n d ok=0
	kill_case || ok=1
	# Mounts first (a file system on an rblk or nvme disk pins its module).
	for m in $(comm -13 "$base/base/mounts" <(mounts) | sort -r); do
		timeout 60 umount "$m" || timeout 30 umount -l "$m" || { log "cannot umount $m"; ok=1; }
	done
	# rblk deletes its controllers on unload; nvme-rdma's need a disconnect.
	if [ -d /sys/module/rblk ]; then
		timeout 120 rmmod rblk || { log "rmmod rblk failed"; ok=1; }
	fi
	if [ -d /sys/class/nvme-fabrics ]; then
		timeout 120 nvme disconnect-all > /dev/null 2>&1 || { log "nvme disconnect-all failed"; ok=1; }
	fi
	(set -e; vm_nvmet_teardown) 2> /dev/null || { log "nvmet teardown failed"; ok=1; }
	for d in /sys/kernel/config/nullb/*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/power" 2> /dev/null
		rmdir "$d" || { log "cannot remove null_blk $d"; ok=1; }
	done
	for l in $(rdma -j link show 2> /dev/null | python3 -c '
import json, sys
for l in json.load(sys.stdin):
    if l.get("netdev"):
        print(l["ifname"])' 2> /dev/null); do
		timeout 60 rdma link delete "$l" || { log "cannot delete rdma link $l"; ok=1; }
	done
	for n in $(comm -13 "$base/base/links" <(links)); do
		# A veth's peer goes with it.
		[ -e "/sys/class/net/$n" ] || continue
		timeout 30 ip link delete "$n" || { log "cannot delete link $n"; ok=1; }
	done
	unload_new || ok=1
	rm -rf /tmp/* /tmp/.[!.]* 2> /dev/null
	snapshot "$base/now"
	for f in modules links mounts; do
		if ! cmp -s "$base/base/$f" "$base/now/$f"; then
			log "$f differ from the boot's: $(diff "$base/base/$f" "$base/now/$f" | grep '^[<>]' | tr '\n' ' ')"
			ok=1
		fi
	done
	return "$ok"
}

for arg in "$@"; do
	budget=${arg%%:*} case=${arg#*:}
	name=$(basename "$case" .sh)
	dir=$OUT/$name
	mkdir -p "$dir"
	dmesg -C
	echo "RBLK-VM-CASE-START: $name $budget" > /dev/console
	: > "$dir/started"
	t0=$(date +%s%N)
	mkdir "$CG"
	# Output straight to the share: it survives a panic.
	(
		echo "$BASHPID" > "$CG/cgroup.procs"
		export RBLK_VM_OUT=$dir RBLK_VM_NAME=$name
		cd "$RBLK_SRC_DIR" || exit 125
		exec timeout -k 10 "$budget" /bin/bash "$case"
	) < /dev/null > "$dir/output.log" 2>&1
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		rc=124
		log "$name timed out after ${budget}s inside the VM" >> "$dir/output.log"
		echo w > /proc/sysrq-trigger
	fi
	clean=0
	reset >> "$dir/output.log" 2>&1 || clean=1
	dmesg > "$dir/dmesg.log"
	if ! "$here/check-dmesg.sh" "$dir/dmesg.log" >> "$dir/output.log" 2>&1 && [ "$rc" -eq 0 ]; then
		rc=97
	fi
	if [ "$clean" -ne 0 ]; then
		log "$name left the VM in a state that could not be undone; the cases after it get a fresh VM" >> "$dir/output.log"
		[ "$rc" -eq 0 ] && rc=98
	fi
	echo "$ms" > "$dir/ms"
	echo "$rc" > "$dir/exit_code"
	sync
	echo "RBLK-VM-CASE-END: $name $rc" > /dev/console
	[ "$clean" -eq 0 ] || exit 3
done
exit 0
