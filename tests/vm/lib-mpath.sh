# shellcheck shell=bash
# Helpers of the multipath cases (tests/vm/cases/mpath_*.sh): one nvmet
# subsystem reached through two RDMA ports on two soft-RoCE links, with
# ANA groups. Source it after lib.sh.
#
# The fabric: lib.sh's pair veth0 10.99.0.1 (target side, rxe0) <-> veth1
# 10.99.0.2, and a second pair veth2 10.98.0.1 (target side, rxe2) <->
# veth3 10.98.0.2 (rxe3). Port 1 listens on 10.99.0.1:4420, port 2 on
# 10.98.0.1:4420. Both ends live in the one VM, so the RC QPs of a path sit
# on the rxe device of its target address (see lib-flap.sh): taking the
# target side's link down (mp_link_down) breaks that path only.
#
#   MP_ADDR[1], MP_ADDR[2]       the ports' target addresses
#   mp_setup_fabric              both veth pairs with soft-RoCE (once)
#   mp_target NQN SIZE_MIB [NS]  NS (default 1) memory-backed namespaces
#                                1..NS of NQN on both ports (ANA group 1,
#                                optimized on both); prints the disks
#   mp_ana_set PORT STATE [GRP]  ANA state of group GRP (default 1) on
#                                PORT: optimized, non-optimized,
#                                inaccessible, persistent-loss, change
#   mp_ana_group PORT GRP        create ANA group GRP on PORT, optimized
#                                (nvmet's own default is inaccessible)
#   mp_ns_grp NQN NSID GRP       namespace NSID's ANA group
#   mp_port_down PORT NQN / mp_port_up PORT NQN
#                                unlink NQN from PORT (nvmet drops the
#                                port's controllers) / link it again
#   mp_link_down PORT / mp_link_up PORT
#                                the target side's veth of PORT down / up.
#                                Beware kmod/README.md's link-flap trap: with
#                                nvme-rdma (6.12) the path taken down under
#                                fio stayed connecting after the link came
#                                back, and `nvme disconnect` then hung in D
#                                state (over 360 s); the cases remove ports
#                                with mp_port_down instead
#   mp_mixed NQN [TARGET_ARGS...]
#                                one 32 MiB namespace of NQN on two targets
#                                that rblk takes for two paths: nvmet on
#                                port 1 and the test target (with
#                                TARGET_ARGS, log /tmp/target.log, pid in
#                                MP_TGT_PID) on port 2's address, with the
#                                same NGUID and UUID; each holds its own data
#   mp_connect NQN PORT [RBLKCTL_CONNECT_ARGS...]
#                                rblkctl connect to PORT; prints its output
#                                (the controller, then the head devices)
#   mp_ctrl_io CTRL              rblk controller CTRL's reads + writes
#                                (/sys/class/rblk/CTRL/{reads,writes})
#   mp_path_ana DISK             /sys/block/DISK/ana_state (a path disk)
#   mp_wait_ana SECS DISK STATE  until DISK's ana_state is STATE
#   mp_nvme_connect NQN PORT [NVME_CONNECT_ARGS...]
#                                nvme-rdma connect to PORT; prints the head
#   mp_nvme_paths NQN            nvme-rdma's path disks of NQN's head
#                                (nvmeXcYnZ), one a line
#   mp_disk_io DISK              reads + writes completed on a disk
#                                (/sys/block/DISK/stat), for nvme-rdma's
#                                path disks
#   mp_fio_start JSON DEV SECS [FIO_ARGS...]
#                                fio randrw 4k QD16 with crc32c verify on
#                                DEV for SECS s in the background (vm_fio,
#                                pid in MP_FIO_PID); mp_fio_wait JSON waits,
#                                fails on any error and logs the I/O counts
#   mp_fio_finish JSON           the steps are done: fio, still running,
#                                stops now; then as mp_fio_wait

MP_ADDR=([1]=10.99.0.1 [2]=10.98.0.1)
MP_VETH=([1]=veth0 [2]=veth2)

mp_setup_fabric() {
	rdma link show "${VM_RDMA}0/1" > /dev/null 2>&1 || vm_setup_rxe
	rdma link show "${VM_RDMA}2/1" > /dev/null 2>&1 || vm_rxe_pair 2 10.98.0
}

mp_target() {
	local nqn=$1 size_mib=$2 count=${3:-1} nsid dev devs p
	mp_setup_fabric
	devs=$(vm_membacked_disk "$count" "$size_mib" 512 1)
	nsid=0
	for dev in $devs; do
		nsid=$((nsid + 1))
		vm_nvmet_subsys "$nqn" "$dev" "$nsid"
	done
	for p in 1 2; do
		[ -d "$VM_NVMET/ports/$p" ] || vm_nvmet_port "$p" "${MP_ADDR[$p]}" 4420
		vm_nvmet_link "$p" "$nqn"
	done
	echo "$devs"
}

mp_ana_set() {
	echo "$2" > "$VM_NVMET/ports/$1/ana_groups/${3:-1}/ana_state" ||
		vm_fail "cannot set ANA group ${3:-1} of port $1 to $2"
}

# nvmet makes a new group inaccessible (6.12): optimized it is here.
mp_ana_group() {
	[ -d "$VM_NVMET/ports/$1/ana_groups/$2" ] || mkdir "$VM_NVMET/ports/$1/ana_groups/$2"
	mp_ana_set "$1" optimized "$2"
}

mp_ns_grp() {
	echo "$3" > "$VM_NVMET/subsystems/$1/namespaces/$2/ana_grpid" ||
		vm_fail "cannot put namespace $2 of $1 in ANA group $3"
}

mp_port_down() { vm_nvmet_unlink "$1" "$2"; }

mp_port_up() { vm_nvmet_link "$1" "$2"; }

mp_link_down() { ip link set "${MP_VETH[$1]}" down; }

mp_link_up() { ip link set "${MP_VETH[$1]}" up; }

mp_mixed() {
	local nqn=$1 tgt_bin=$RBLK_BUILD_DIR/tests/target/rblk_test_target ns
	local nguid=0123456789abcdef0123456789abcdef uuid=89abcdef-0123-4567-89ab-cdef01234567
	shift
	vm_require "$tgt_bin"
	mp_setup_fabric
	vm_nvmet_subsys "$nqn" "$(vm_membacked_disk 1 32)"
	ns=$VM_NVMET/subsystems/$nqn/namespaces/1
	# nvmet takes new identifiers on a disabled namespace only.
	echo 0 > "$ns/enable"
	echo "$uuid" > "$ns/device_uuid"
	echo "$nguid" > "$ns/device_nguid"
	echo 1 > "$ns/enable"
	vm_nvmet_port 1 "${MP_ADDR[1]}" 4420
	vm_nvmet_link 1 "$nqn"
	"$tgt_bin" -a "${MP_ADDR[2]}" -p 4420 -n "$nqn" --size-mib 32 --nguid "$nguid" --uuid "$uuid" \
		"$@" > /tmp/target.log 2>&1 &
	# shellcheck disable=SC2034 # the case's, to stop the target
	MP_TGT_PID=$!
	vm_wait_for 60 grep -q '^listening' /tmp/target.log
}

mp_connect() {
	local nqn=$1 port=$2 out
	shift 2
	out=$("$RBLKCTL" connect -a "${MP_ADDR[$port]}" -n "$nqn" "$@" 2>&1) ||
		vm_fail "rblkctl connect -a ${MP_ADDR[$port]} -n $nqn $* failed: $out"
	echo "$out"
}

mp_ctrl_io() {
	local r w
	read -r r < "/sys/class/rblk/$1/reads" || vm_fail "no counters of $1"
	read -r w < "/sys/class/rblk/$1/writes" || vm_fail "no counters of $1"
	echo $((r + w))
}

mp_path_ana() {
	local s=
	read -r s < "/sys/block/$1/ana_state" 2> /dev/null || true
	echo "$s"
}

mp__ana_is() { [ "$(mp_path_ana "$1")" = "$2" ]; }

mp_wait_ana() { vm_wait_for "$1" mp__ana_is "$2" "$3"; }

mp_nvme_connect() {
	local nqn=$1 port=$2
	shift 2
	vm_nvme_ref_connect "$nqn" "${MP_ADDR[$port]}" 4420 "$@"
}

mp_nvme_paths() {
	local head d
	head=$(vm_nvme_disk_of "$1") || return 0
	head=${head#/dev/}
	for d in /sys/block/"$head"/slaves/* /sys/block/nvme*c*n*; do
		[ -e "$d" ] || continue
		[ "$(cat "$d/device/subsysnqn" 2> /dev/null)" != "$1" ] || echo "${d##*/}"
	done | sort -u
}

# /sys/block/DISK/stat: reads completed is field 1, writes completed field 5.
mp_disk_io() {
	local s
	read -ra s < "/sys/block/$1/stat" || vm_fail "no /sys/block/$1/stat"
	echo $((s[0] + s[4]))
}

mp_fio_start() {
	local json=$1 dev=$2 secs=$3
	shift 3
	rm -f /tmp/mp-fio.stopped
	VM_FIO_STOPPED=/tmp/mp-fio.stopped VM_FIO_TIMEOUT=$((secs + 180)) \
		vm_fio "$json" --name=mpath --filename="$dev" \
		--ioengine=io_uring --direct=1 --rw=randrw --bs=4k --iodepth=16 --size=16M \
		--time_based --runtime="$secs" --verify=crc32c --verify_fatal=1 \
		--verify_backlog=64 "$@" &
	MP_FIO_PID=$!
}

# The runtime is a bound, not what the steps need: once they are done,
# waiting it out only costs the suite time. On SIGINT fio ends its jobs
# (each read verified as usual) and writes its report.
mp_fio_finish() {
	pgrep -x fio > /dev/null || vm_fail "fio ended before the steps did: not all under I/O"
	touch /tmp/mp-fio.stopped
	pkill -INT -x fio
	mp_fio_wait "$1"
}

# vm_fio in the background checked the report; its failure is the exit code.
mp_fio_wait() {
	wait "$MP_FIO_PID" || vm_fail "fio on the multipath disk failed (see above)"
	python3 - "$1" <<'PY' >&2
import json
jobs = json.load(open(__import__("sys").argv[1]))["jobs"]
print("fio: %d reads, %d writes, errors %s" % (
    sum(j["read"]["total_ios"] for j in jobs), sum(j["write"]["total_ios"] for j in jobs),
    [j["error"] for j in jobs]))
PY
}
