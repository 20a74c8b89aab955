# shellcheck shell=bash
# Helpers for the scripts that run-in-vm.sh runs inside the test VM.
# Source it: `. "$RBLK_SRC_DIR/tests/vm/lib.sh"` (it turns on set -euo pipefail).
#
# Assertions (print "FAIL: ..." with both sides, exit 1):
#   vm_log MSG...                    progress line on stderr
#   vm_fail MSG...                   fail the test now
#   vm_assert_eq EXPECTED ACTUAL [WHAT]
#   vm_assert_ne UNEXPECTED ACTUAL [WHAT]
#   vm_assert_match ERE STRING [WHAT]        grep -E on STRING
#   vm_assert_contains HAYSTACK NEEDLE [WHAT]
#   vm_assert_exists PATH / vm_assert_not_exists PATH
#   vm_assert_fails CMD...           CMD must exit non-zero
#   vm_wait_for SECONDS CMD...       retry CMD every 0.2 s until it succeeds
#   vm_wait_until SECONDS CMD...     the same, but returns 1 when time is up
#   vm_dmesg_has [GREP_OPTS] PATTERN  the kernel log has a line matching PATTERN
#   vm_dmesg_clean                   fail if the kernel log so far has a
#                                    WARNING/BUG/Oops/... (the harness also
#                                    checks at the end)
# Time:
#   vm_now_ms                        wall clock in milliseconds
#   vm_ms_since T0_MS                milliseconds since T0_MS (a vm_now_ms)
#   vm_both_ms T0_MS SECS CHECK_A CHECK_B
#                                    polls both checks (commands) together
#                                    every 0.05 s; prints "A_MS B_MS", the
#                                    time since T0_MS at which each first
#                                    passed; fails after SECS
# Environment:
#   vm_modprobe MOD [PARAM=V...]     modprobe one module, clear error
#   vm_require FILE...               fail unless each build output exists
#   vm_setup_rxe                     veth0 10.99.0.1 (target side, rxe0) <->
#                                    veth1 10.99.0.2 (initiator side, rxe1);
#                                    with RBLK_VM_RDMA=siw the devices are
#                                    soft-iWARP's, siw0 and siw1 (the debug
#                                    kernel's lane; Debian has no siw).
#                                    VM_RDMA: rxe or siw, the devices' prefix
#   vm_rxe_pair N NET                another such pair, after vm_setup_rxe:
#                                    vethN NET.1 (rxeN) <-> vethN+1 NET.2
#                                    (rxeN+1); NET is "10.98.0". A pair an
#                                    earlier case of the boot left as it was
#                                    made is reused (group.sh keeps it)
#   vm_no_rdma_device                remove every soft-RoCE device and the
#                                    pairs' links, a kept pair's too: for a
#                                    check of what happens without one
#   vm_rdma_errors                   the sum of every RDMA device's error
#                                    counters (hw_counters/*_err, link_downed):
#                                    soft-RoCE moves a QP to the error state
#                                    with flushes alone when it fails to send
#   vm_membacked_disk COUNT SIZE_MIB [BS] [DISCARD] [DELAY_NS]  memory-backed
#                                    null_blk disks (data is kept, block size
#                                    BS, default 512; DISCARD=1: discard frees
#                                    the blocks, which then read as zeros;
#                                    DELAY_NS: each I/O completes that late,
#                                    on a timer);
#                                    prints one /dev path a line:
#                                    devs=$(vm_membacked_disk 2 64)
#   vm_meminfo_kib FIELD             a /proc/meminfo value (Slab, MemFree...)
#   vm_slab_kib                      Slab after dropping the caches and
#                                    shrinking every slab cache (which also
#                                    empties KASAN's quarantine), so that
#                                    mostly what was allocated moves
#   vm_slab_caches FILE              each cache's KiB, for vm_slab_growth
#   vm_slab_growth BEFORE AFTER      logs the 6 caches that grew most
# Reference target and initiator (Linux nvmet / nvme-rdma):
#   vm_nvmet_subsys NQN DEV [NSID]   subsystem (allow_any_host) + namespace
#   vm_nvmet_ns_file NQN NSID FILE   namespace NSID of NQN's subsystem on
#                                    FILE, buffered (tmpfs has no O_DIRECT;
#                                    a file can grow), enabled
#   vm_nvmet_port PORTID TRADDR TRSVCID [TRTYPE]   port, rdma/ipv4 default
#   vm_nvmet_link PORTID NQN / vm_nvmet_unlink PORTID NQN
#   vm_nvmet_teardown                remove every port, subsystem, namespace
#   vm_nvme_ref_connect NQN [TRADDR] [TRSVCID] [NVME_CONNECT_ARGS...]
#                                    nvme-cli connect; prints the multipath
#                                    head /dev/nvmeXnY of NQN's nsid 1
#   vm_nvme_disk_of NQN [NSID]       nvme-rdma's head disk of NSID (default
#                                    1); Y is not the NSID: nvme-core numbers
#                                    heads in the order its scan adds them
#   vm_nvme_ref_disconnect NQN
# rblk:
#   vm_rblk_load [PARAM=V...]        install $RBLK_KO (build/kmod/KVER/rblk.ko) into updates/,
#                                    depmod (index from the host), modprobe rblk
#   vm_rblk_unload                   rmmod rblk, check /sys/module/rblk is gone
#   vm_rblk_ctrls                    controller names in /sys/class/rblk, one a line
#   vm_rblk_none                     no controller and no rblk disk is left
#   vm_rblk_state CTRL               state from sysfs, empty once CTRL is gone
#   vm_rblk_attr CTRL ATTR           one sysfs attribute of CTRL
#   vm_rblk_wait_state SECS CTRL ST  wait until CTRL is in state ST
#   vm_rblk_wait_gone SECS CTRL      wait until /sys/class/rblk/CTRL is gone
#   RBLKCTL, RBLK_NLPROBE            paths of the built rblkctl and probe tool
# Data path:
#   vm_rdma_target NQN SIZE_MIB [BS] soft-RoCE (once), a memory-backed disk
#                                    (discard on) as namespace 1 of NQN on
#                                    port 1, 10.99.0.1:4420; prints the disk
#   vm_rblk_connect NQN [RBLKCTL_CONNECT_ARGS...]  rblkctl connect to
#                                    10.99.0.1 (port 4420 unless -s); prints
#                                    rblkctl's output (controller, devices)
#   vm_rblk_disks                    the /dev/rblk* disks, one a line (block
#                                    devices: /dev/rblkN is a controller's
#                                    character device)
#   vm_sum DEV OFFSET LEN            sha256 of LEN bytes at OFFSET, O_DIRECT
#   vm_put FILE DEV OFFSET           write FILE at byte OFFSET, O_DIRECT
#   vm_fio JSON FIO_ARGS...          fio (bounded by 240 s times VM_SLOW) writing its
#                                    JSON report (nothing else) to JSON;
#                                    fails on a fio error or any job's
#                                    non-zero error
#   vm_fio_log LOG FIO_ARGS...       fio, bounded as vm_fio, its text output
#                                    in LOG (the engine's rblk: lines, errors
#                                    and IOPS logged); fails on an exit
#                                    other than 0 or a verify failure
#   vm_fio_log_across_bounce NQN DISK LOG FIO_ARGS...
#                                    vm_fio_log while NQN's subsystem leaves
#                                    port 1 under writes to DISK and comes
#                                    back (vm_nvmet_bounce_under_writes)
#   vm_bypass_json FIELD             FIELD (a.b.0 for nesting) of the first
#                                    bypass controller of rblkctl list
#                                    --json ("" when there is none)
#   vm_bypass_state_is STATE         that controller's state is STATE
set -euo pipefail

: "${RBLK_SRC_DIR:?run this inside the VM via tests/vm/run-in-vm.sh}"
: "${RBLK_BUILD_DIR:?run this inside the VM via tests/vm/run-in-vm.sh}"
export RBLKCTL=$RBLK_BUILD_DIR/tool/rblkctl
export RBLK_NLPROBE=$RBLK_BUILD_DIR/tests/tools/rblk_nlprobe
VM_NVMET=/sys/kernel/config/nvmet
VM_NULLB=/sys/kernel/config/nullb
# The soft RDMA provider of the fabric: soft-RoCE (rxe, the default) or
# soft-iWARP (siw). Both ends live in this VM, so every connection runs
# over lo whatever the provider (see lib-flap.sh); siw carries it in
# kernel TCP sockets, rxe in UDP.
VM_RDMA=${RBLK_VM_RDMA:-rxe}
# The debug lane's kernel (lockdep, KASAN, kmemleak) runs a case's steps
# several times slower: vm_wait_for's budgets are VM_SLOW times theirs
# there, and a case that keeps I/O running across its steps runs it that
# much longer.
case $(uname -r) in
*-rblk-debug) VM_SLOW=2 ;;
*) VM_SLOW=1 ;;
esac
case $VM_RDMA in
rxe) VM_RDMA_MOD=rdma_rxe ;;
siw) VM_RDMA_MOD=siw ;;
*) echo "FAIL: RBLK_VM_RDMA=$VM_RDMA: rxe or siw" >&2; exit 1 ;;
esac

# --- assertions -------------------------------------------------------------

# The helpers below use bash's builtins where they can: under TCG every
# process costs 100-300 ms (a fork, an exec, the dynamic loader), and a
# case calls them hundreds of times.
vm_log() {
	local up
	read -r up _ < /proc/uptime
	echo "[vm $up] $*" >&2
}

vm_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

vm_assert_eq() {
	[ "$1" = "$2" ] || vm_fail "${3:-value}: expected '$1', got '$2'"
}

vm_assert_ne() {
	[ "$1" != "$2" ] || vm_fail "${3:-value}: got '$2', which it must not be"
}

# Line by line, as grep -E would.
vm_assert_match() {
	local line
	while IFS= read -r line; do
		[[ $line =~ $1 ]] && return 0
	done <<< "$2"
	vm_fail "${3:-value}: '$2' does not match /$1/"
}

vm_assert_contains() {
	case $1 in
	*"$2"*) ;;
	*) vm_fail "${3:-value}: '$1' does not contain '$2'" ;;
	esac
}

vm_assert_exists() { [ -e "$1" ] || vm_fail "$1 does not exist"; }

vm_assert_not_exists() { [ ! -e "$1" ] || vm_fail "$1 exists but must not"; }

vm_assert_fails() {
	if "$@"; then
		vm_fail "command succeeded but must fail: $*"
	fi
}

# vm_sleep SECS: sleep(1) without its process: a read that times out on
# a pipe nobody writes to.
vm_sleep() {
	[ -n "${VM_SLEEP_FD:-}" ] || exec {VM_SLEEP_FD}<> <(:)
	read -rt "$1" -u "$VM_SLEEP_FD" _ || true
}

# vm_wait_until SECS CMD...: as vm_wait_for, but 1 once the time is up,
# for a case that says itself what was missing.
vm_wait_until() {
	local deadline=$((EPOCHSECONDS + $1 * VM_SLOW))
	shift
	until "$@"; do
		[ "$EPOCHSECONDS" -lt "$deadline" ] || return 1
		vm_sleep 0.2
	done
}

vm_wait_for() {
	local secs=$1
	shift
	vm_wait_until "$secs" "$@" || vm_fail "timed out after $((secs * VM_SLOW))s waiting for: $*"
}

# vm_netlink_groups_joined PID N: a netlink socket of PID is in N generic
# netlink multicast groups or more (/proc/net/netlink: groups 1-32 as a
# hex mask; nlctrl's "notify" and rblk's "events" both have small ids):
# a listener that joined sees every later event.
vm_netlink_groups_joined() {
	local link mask bits
	for link in /proc/"$1"/fd/*; do
		link=$(readlink "$link") || continue
		[[ $link =~ ^socket:\[([0-9]+)\]$ ]] || continue
		mask=$(awk -v ino="${BASH_REMATCH[1]}" '$2 == 16 && $10 == ino { print $4 }' /proc/net/netlink)
		[ -n "$mask" ] || continue
		for ((mask = 16#$mask, bits = 0; mask; mask >>= 1)); do
			bits=$((bits + (mask & 1)))
		done
		[ "$bits" -ge "$2" ] && return 0
	done
	return 1
}

# `dmesg | grep -q` fails under pipefail when grep's early exit ends dmesg
# with SIGPIPE (seen: a 4 MiB log after the 1024-namespace scan): read it all.
vm_dmesg_has() {
	dmesg | grep -c "$@" > /dev/null
}

vm_dmesg_clean() {
	local bad
	if bad=$(dmesg | grep -E -f "$RBLK_SRC_DIR/tests/vm/dmesg-patterns"); then
		vm_fail "kernel log has warnings/bugs:"$'\n'"$bad"
	fi
}

# --- time -------------------------------------------------------------------

vm_now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	echo $((t / 1000))
}

vm_ms_since() { echo $(($(vm_now_ms) - $1)); }

vm_both_ms() {
	local t0=$1 secs=$2 a="" b="" deadline=$((EPOCHSECONDS + $2 * VM_SLOW))
	while [ -z "$a" ] || [ -z "$b" ]; do
		[ "$EPOCHSECONDS" -lt "$deadline" ] ||
			vm_fail "after $((secs * VM_SLOW)) s: $3 -> ${a:-not yet}, $4 -> ${b:-not yet}"
		[ -z "$a" ] && $3 && a=$(vm_ms_since "$t0")
		[ -z "$b" ] && $4 && b=$(vm_ms_since "$t0")
		vm_sleep 0.05
	done
	echo "$a $b"
}

# --- environment ------------------------------------------------------------

# A module already loaded, without parameters to apply, is left as it is:
# the fabric's and targets' stay loaded between the cases of a boot.
vm_modprobe() {
	[ $# -eq 1 ] && [ -e "/sys/module/${1//-/_}/initstate" ] && return 0
	modprobe "$@" || vm_fail "modprobe $* failed"
}

vm_require() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || vm_fail "$f is not built (cmake --build \"$RBLK_BUILD_DIR\")"
	done
}

vm_setup_rxe() {
	local m
	# One module per call: modprobe takes the rest as parameters.
	for m in "$VM_RDMA_MOD" ib_uverbs rdma_ucm; do
		vm_modprobe "$m"
	done
	vm_rxe_pair 0 10.99.0
}

# A pair as made here is recorded in VM_FABRIC/pairN: its NET, the
# carrier changes of its two ends and its devices' resource counts (QPs,
# PDs, MRs, CM ids, ...).
# group.sh keeps it for the boot's next case only if all are the same then
# (no flap, no address or resource left behind): making one and waiting
# for its ports took 3-10 s of each case under TCG.
VM_FABRIC=/run/rblk-fabric

vm_rxe_pair() {
	local t=$1 i=$(($1 + 1)) net=$2 rec=$VM_FABRIC/pair$1
	if [ -e "$rec" ] && vm__rxe_active "$VM_RDMA$t" && vm__rxe_active "$VM_RDMA$i"; then
		return 0
	fi
	ip link add "veth$t" type veth peer name "veth$i"
	ip addr add "$net.1/24" dev "veth$t"
	ip addr add "$net.2/24" dev "veth$i"
	ip link set "veth$t" up
	ip link set "veth$i" up
	rdma link add "$VM_RDMA$t" type "$VM_RDMA" netdev "veth$t"
	rdma link add "$VM_RDMA$i" type "$VM_RDMA" netdev "veth$i"
	vm_wait_for 30 vm__rxe_active "$VM_RDMA$t"
	vm_wait_for 30 vm__rxe_active "$VM_RDMA$i"
	mkdir -p "$VM_FABRIC"
	vm_fabric_state "$t" "$net" > "$rec"
}

vm_rdma_errors() {
	local f v n=0
	for f in /sys/class/infiniband/*/ports/*/hw_counters/*_err \
		/sys/class/infiniband/*/ports/*/hw_counters/link_downed; do
		read -r v 2> /dev/null < "$f" && n=$((n + v))
	done
	echo "$n"
}

vm_no_rdma_device() {
	local d rec t
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		rdma link delete "${d##*/}" || vm_fail "rdma link delete ${d##*/} failed"
	done
	for rec in "$VM_FABRIC"/pair*; do
		[ -e "$rec" ] || continue
		t=${rec##*/pair}
		ip link delete "veth$t" || vm_fail "ip link delete veth$t failed"
		rm -f "$rec"
	done
	[ -z "$(ls /sys/class/infiniband)" ] || vm_fail "RDMA devices left: $(ls /sys/class/infiniband)"
}

# vm_fabric_state N NET: what the record of pair N holds (see above).
vm_fabric_state() {
	local t=$1 i=$(($1 + 1)) a b
	read -r a < "/sys/class/net/veth$t/carrier_changes"
	read -r b < "/sys/class/net/veth$i/carrier_changes"
	echo "$2 $a $b"
	# All but the CQs: nvmet-rdma's and nvme-rdma's come from the device's
	# CQ pool (ib_cq_pool_get), which keeps them until the device goes.
	rdma resource show | awk -v t="$VM_RDMA$t:" -v i="$VM_RDMA$i:" '$2 == t || $2 == i {
		$1 = ""
		for (f = 3; f < NF; f += 2)
			if ($f == "cq")
				$(f + 1) = "-"
		print
	}'
}

vm__rxe_active() {
	local st=
	read -r _ st < "/sys/class/infiniband/$1/ports/1/state" 2> /dev/null
	[ "$st" = ACTIVE ]
}

vm_membacked_disk() {
	local count=$1 size_mib=$2 bs=${3:-512} discard=${4:-0} delay=${5:-} i n d
	[ -d "$VM_NULLB" ] || vm_modprobe null_blk nr_devices=0
	for ((i = 0; i < count; i++)); do
		n=0
		while [ -e "$VM_NULLB/memdisk$n" ]; do n=$((n + 1)); done
		d=$VM_NULLB/memdisk$n
		mkdir "$d"
		echo "$size_mib" > "$d/size"
		echo 1 > "$d/memory_backed"
		echo "$bs" > "$d/blocksize"
		echo "$discard" > "$d/discard"
		if [ -n "$delay" ]; then
			echo 2 > "$d/irqmode"
			echo "$delay" > "$d/completion_nsec"
		fi
		echo 1 > "$d/power"
		# The disk is named after the configfs item on newer kernels,
		# nullb<index> on older ones.
		vm_wait_for 30 vm__nullb_dev "$d" > /dev/null
		vm__nullb_dev "$d"
	done
}

# vm_bench_target NQN: the benchmarks' target (tests/bench): a 4 GiB
# null_blk disk that completes each I/O inline (irqmode 0) and stores
# nothing, as namespace 1 of subsystem NQN on port 1 (10.99.0.1:4420) of
# nvmet-rdma over soft-RoCE. What an earlier call set up is kept.
vm_bench_target() {
	local nqn=$1 d=$VM_NULLB/benchnull
	rdma link show rxe0/1 > /dev/null 2>&1 || vm_setup_rxe
	[ -d "$VM_NULLB" ] || vm_modprobe null_blk nr_devices=0
	if [ ! -d "$d" ]; then
		mkdir "$d"
		echo 4096 > "$d/size"
		echo 0 > "$d/irqmode"
		echo 1 > "$d/power"
	fi
	vm_wait_for 30 vm__nullb_dev "$d" > /dev/null
	[ -d "$VM_NVMET/subsystems/$nqn" ] || vm_nvmet_subsys "$nqn" "$(vm__nullb_dev "$d")"
	[ -d "$VM_NVMET/ports/1" ] || vm_nvmet_port 1 10.99.0.1 4420
	[ -e "$VM_NVMET/ports/1/subsystems/$nqn" ] || vm_nvmet_link 1 "$nqn"
}

vm_meminfo_kib() {
	awk -v f="$1:" '$1 == f { print $2; found = 1 } END { exit !found }' /proc/meminfo ||
		vm_fail "no $1 in /proc/meminfo"
}

vm_slab_kib() {
	local f
	sync
	echo 3 > /proc/sys/vm/drop_caches
	# KASAN's quarantine keeps freed objects in their slabs (megabytes
	# after a few hundred connections of the debug kernel's siw);
	# shrinking a cache releases its share and its empty slabs.
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 2> /dev/null > "$f" || true
	done
	sleep 1
	vm_meminfo_kib Slab
}

# awk, not head, to cut the list: head leaves early, and sort, killed by
# SIGPIPE when its output outgrows the pipe (slub_debug unmerges the
# caches), failed a case under pipefail (exit 141, 6.12, 2026-12-05).
vm_slab_caches() {
	awk 'NR > 2 { printf "%s %d\n", $1, $2 * $4 / 1024 }' /proc/slabinfo | sort > "$1"
}

vm_slab_growth() {
	local line
	join "$1" "$2" | awk '{ printf "%s %d KiB\n", $1, $3 - $2 }' | sort -k2 -nr | awk 'NR <= 6' |
		while read -r line; do vm_log "slab cache growth: $line"; done
}

vm__nullb_dev() {
	local name
	name=${1##*/}
	[ -b "/dev/$name" ] || name=nullb$(cat "$1/index")
	[ -b "/dev/$name" ] && echo "/dev/$name"
}

# --- reference target (nvmet) -------------------------------------------------

vm_nvmet_subsys() {
	local nqn=$1 dev=$2 nsid=${3:-1} s
	[ -d "$VM_NVMET" ] || vm_modprobe nvmet
	s=$VM_NVMET/subsystems/$nqn
	[ -d "$s" ] || mkdir "$s"
	echo 1 > "$s/attr_allow_any_host"
	mkdir "$s/namespaces/$nsid"
	echo "$dev" > "$s/namespaces/$nsid/device_path"
	echo 1 > "$s/namespaces/$nsid/enable"
}

vm_nvmet_ns_file() {
	local d=$VM_NVMET/subsystems/$1/namespaces/$2
	[ -d "$d" ] || mkdir "$d"
	echo "$3" > "$d/device_path"
	echo 1 > "$d/buffered_io"
	echo 1 > "$d/enable"
}

vm_nvmet_port() {
	local id=$1 traddr=$2 trsvcid=$3 trtype=${4:-rdma} p
	[ -d "$VM_NVMET" ] || vm_modprobe nvmet
	vm_modprobe "nvmet-$trtype"
	p=$VM_NVMET/ports/$id
	mkdir "$p"
	echo "$trtype" > "$p/addr_trtype"
	echo ipv4 > "$p/addr_adrfam"
	echo "$traddr" > "$p/addr_traddr"
	echo "$trsvcid" > "$p/addr_trsvcid"
}

vm_nvmet_link() { ln -s "$VM_NVMET/subsystems/$2" "$VM_NVMET/ports/$1/subsystems/$2"; }

vm_nvmet_unlink() { rm "$VM_NVMET/ports/$1/subsystems/$2"; }

# vm__writing DISK: DISK (/dev/nullbN) has writes in flight.
vm__writing() {
	local w
	read -r _ w < "/sys/block/${1##*/}/inflight"
	[ "$w" -gt 0 ]
}

# vm_nvmet_bounce_under_writes NQN DISK: once DISK, NQN's namespace on port
# 1, has writes in flight, the subsystem leaves the port for 2 s and comes
# back (a target restart as the host sees it).
vm_nvmet_bounce_under_writes() {
	vm_wait_for 60 vm__writing "$2"
	vm_nvmet_unlink 1 "$1"
	vm_sleep 2
	vm_nvmet_link 1 "$1"
}

# vm_nvmet_referral PORT NAME TRADDR TRSVCID [PORTID]: PORT's discovery log
# refers hosts to the discovery controller at TRADDR:TRSVCID.
vm_nvmet_referral() {
	local r=$VM_NVMET/ports/$1/referrals/$2
	mkdir "$r"
	echo rdma > "$r/addr_trtype"
	echo ipv4 > "$r/addr_adrfam"
	echo "$3" > "$r/addr_traddr"
	echo "$4" > "$r/addr_trsvcid"
	echo "${5:-0}" > "$r/addr_portid"
	echo 1 > "$r/enable"
}

vm_nvmet_teardown() {
	local l p s ns
	[ -d "$VM_NVMET" ] || return 0
	for l in "$VM_NVMET"/ports/*/subsystems/*; do
		[ -L "$l" ] && rm "$l"
	done
	for l in "$VM_NVMET"/ports/*/referrals/*; do
		[ -d "$l" ] && rmdir "$l"
	done
	# ANA groups but the default (1) one, which goes with its port.
	for l in "$VM_NVMET"/ports/*/ana_groups/*; do
		[ -d "$l" ] && [ "${l##*/}" != 1 ] && rmdir "$l"
	done
	for p in "$VM_NVMET"/ports/*; do
		[ -d "$p" ] && rmdir "$p"
	done
	for s in "$VM_NVMET"/subsystems/*; do
		[ -d "$s" ] || continue
		for l in "$s"/allowed_hosts/*; do
			[ -L "$l" ] && rm "$l"
		done
		for ns in "$s"/namespaces/*; do
			[ -d "$ns" ] || continue
			echo 0 > "$ns/enable"
			rmdir "$ns"
		done
		rmdir "$s"
	done
	# Hosts (auth_dhchap's, with their DH-HMAC-CHAP keys).
	for l in "$VM_NVMET"/hosts/*; do
		[ ! -d "$l" ] || rmdir "$l"
	done
}

# --- reference initiator (nvme-rdma) ------------------------------------------

# The head disk of NQN: with native multipath the per-path nvmeXcYnZ nodes
# have no /dev entry, so only nvmeXnY names qualify.
# vm_nvme_disk_of NQN [NSID]: nvme-rdma's head disk of namespace NSID
# (default 1). By nsid, not by name: the core scans namespaces in parallel,
# so nvme0n1 is whichever head was allocated first.
vm_nvme_disk_of() {
	local b
	for b in /sys/block/nvme*n*; do
		[[ $(basename "$b") =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ "$(cat "$b/device/subsysnqn" 2> /dev/null)" = "$1" ] || continue
		[ "$(cat "$b/nsid" 2> /dev/null)" = "${2:-1}" ] || continue
		[ -b "/dev/$(basename "$b")" ] || continue
		echo "/dev/$(basename "$b")"
		return 0
	done
	return 1
}

vm_nvme_ref_connect() {
	local nqn=$1 traddr=${2:-10.99.0.1} trsvcid=${3:-4420}
	shift $(($# < 3 ? $# : 3))
	vm_modprobe nvme-rdma
	nvme connect -t rdma -a "$traddr" -s "$trsvcid" -n "$nqn" "$@" > /dev/null ||
		vm_fail "nvme connect -t rdma -a $traddr -s $trsvcid -n $nqn $* failed"
	vm_wait_for 20 vm_nvme_disk_of "$nqn" > /dev/null
	vm_nvme_disk_of "$nqn"
}

vm_nvme_ref_disconnect() {
	nvme disconnect -n "$1" > /dev/null || vm_fail "nvme disconnect -n $1 failed"
}

# --- rblk -----------------------------------------------------------------------

# shellcheck disable=SC2120 # parameters are optional
vm_rblk_load() {
	local kver=${RBLK_KVER:-$(uname -r)} ko dir stamp have='' prepared=''
	ko=${RBLK_KO:-$RBLK_BUILD_DIR/kmod/$kver/rblk.ko}
	vm_require "$ko"
	dir=/lib/modules/$kver/updates
	# Installed once a boot, again only when the build changed it.
	stamp="$ko $(stat -c '%s %Y' "$ko")"
	if [ -e /run/rblk-ko.installed ]; then read -r have < /run/rblk-ko.installed || true; fi
	if [ "$have" != "$stamp" ]; then
		mkdir -p "$dir"
		if [ -r "$RBLK_VM_DEPMOD/source" ]; then read -r prepared < "$RBLK_VM_DEPMOD/source" || true; fi
		# run-in-vm.sh prepared this KO on the host: its copy without
		# debug information, and what `depmod -a` writes (here it reads
		# every module over 9p and takes minutes).
		if [ "$ko $prepared" = "$stamp" ]; then
			cp "$RBLK_VM_DEPMOD/rblk.ko" "$dir/rblk.ko"
			cp "$RBLK_VM_DEPMOD"/modules.* "/lib/modules/$kver/"
		else
			vm_log "no host-side module index for $ko: running depmod -a (slow)"
			cp "$ko" "$dir/rblk.ko"
			depmod -a
		fi
		echo "$stamp" > /run/rblk-ko.installed
	fi
	vm_modprobe rblk "$@"
	vm_assert_exists /sys/module/rblk
}

vm_rblk_unload() {
	rmmod rblk || vm_fail "rmmod rblk failed"
	vm_assert_not_exists /sys/module/rblk
}

# Globs come sorted, in sort(1)'s order for this locale.
vm_rblk_ctrls() {
	local c
	for c in /sys/class/rblk/*; do
		[ -e "$c" ] && echo "${c##*/}"
	done
	return 0
}

vm_rblk_none() { [ -z "$(vm_rblk_ctrls)" ] && [ -z "$(vm_rblk_disks)" ]; }

vm_rblk_state() { cat "/sys/class/rblk/$1/state" 2> /dev/null || true; }

vm_rblk_attr() { cat "/sys/class/rblk/$1/$2"; }

vm__rblk_in_state() { [ "$(vm_rblk_state "$1")" = "$2" ]; }

vm_rblk_wait_state() { vm_wait_for "$1" vm__rblk_in_state "$2" "$3"; }

vm__rblk_gone() { [ ! -e "/sys/class/rblk/$1" ]; }

vm_rblk_wait_gone() { vm_wait_for "$1" vm__rblk_gone "$2"; }


# --- data path ------------------------------------------------------------------

vm_rdma_target() {
	local nqn=$1 size_mib=$2 bs=${3:-512} dev
	rdma link show "${VM_RDMA}0/1" > /dev/null 2>&1 || vm_setup_rxe
	dev=$(vm_membacked_disk 1 "$size_mib" "$bs" 1)
	vm_nvmet_subsys "$nqn" "$dev"
	[ -d "$VM_NVMET/ports/1" ] || vm_nvmet_port 1 10.99.0.1 4420
	vm_nvmet_link 1 "$nqn"
	echo "$dev"
}

vm_rblk_connect() {
	local nqn=$1 out
	shift
	out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" "$@" 2>&1) ||
		vm_fail "rblkctl connect -a 10.99.0.1 -n $nqn $* failed: $out"
	echo "$out"
}

# vm_rblk_path_disk CTRL [NSID]: the blk-mq disk of controller CTRL (rblkN)
# for namespace NSID (default 1): with multipath the hidden path
# rblk<S>c<N>n<NSID> below the head, else rblk<N>n<NSID> itself.
vm_rblk_path_disk() {
	local c=${1#rblk} n=${2:-1} d
	for d in /sys/block/rblk[0-9]*c"${c}"n"${n}" /sys/block/rblk"${c}"n"${n}"; do
		if [ -d "$d/mq" ]; then
			basename "$d"
			return 0
		fi
	done
	vm_fail "no blk-mq disk of rblk$c for nsid $n"
}

vm_rblk_disks() {
	local d
	for d in /dev/rblk*; do
		[ -b "$d" ] && echo "$d"
	done
	return 0
}

vm_sum() {
	dd if="$1" bs=1M iflag=direct,skip_bytes,count_bytes skip="$2" count="$3" \
		status=none | sha256sum | cut -d' ' -f1
}

vm_put() {
	dd if="$1" of="$2" bs=1M oflag=direct,seek_bytes seek="$3" conv=notrunc,fsync \
		status=none || vm_fail "writing $1 to $2 at $3 failed"
}

vm_fio() {
	local json=$1 rc=0
	shift
	# Its bound grows with the kernel's slowness (VM_SLOW), as every wait's.
	timeout -k 5 "${VM_FIO_TIMEOUT:-$((240 * VM_SLOW))}" fio --output-format=json --output="$json" "$@" ||
		rc=$?
	# 128: stopped by SIGINT, on purpose when VM_FIO_STOPPED names a file
	# that exists (mp_fio_finish).
	[ "$rc" -eq 0 ] || { [ "$rc" -eq 128 ] && [ -e "${VM_FIO_STOPPED:-/nonexistent}" ]; } ||
		vm_fail "fio $* exited $rc: $(tail -c 2000 "$json" 2> /dev/null)"
	python3 - "$json" <<'PY' || vm_fail "fio $* reported errors"
import json, sys
text = open(sys.argv[1]).read()
# fio may print notes before the JSON object: keep only the report.
report = json.loads(text[text.index("{"):])
json.dump(report, open(sys.argv[1], "w"))
jobs = report["jobs"]
bad = [(j["jobname"], j["error"]) for j in jobs if j["error"]]
if bad:
    sys.exit("fio job errors: %s" % bad)
PY
}

vm_fio_log() {
	local log=$1 rc=0
	shift
	timeout -k 5 "${VM_FIO_TIMEOUT:-$((240 * VM_SLOW))}" fio "$@" > "$log" 2>&1 || rc=$?
	vm_log "$(grep -E '^rblk:|err=|IOPS=|verify' "$log" | head -20)"
	[ "$rc" -eq 0 ] || vm_fail "fio $* exited $rc: $(tail -c 2000 "$log")"
	if grep -q 'verify: bad\|crc32c: verify failed' "$log"; then
		vm_fail "fio $* reported a verify failure"
	fi
}

vm_fio_log_across_bounce() {
	local nqn=$1 disk=$2 pid
	shift 2
	vm_fio_log "$@" &
	pid=$!
	vm_nvmet_bounce_under_writes "$nqn" "$disk"
	wait "$pid" || { grep -v "lat (\|clat\|^ *|\|bw (\|iops  " "$1" | head -120; vm_fail "fio across the restart of $nqn failed"; }
}

# Without bypass servers (and rblk.ko) list fails: then there is none.
vm_bypass_json() {
	{ "$RBLKCTL" list --json 2> /dev/null || echo '{}'; } | python3 -c 'import json, sys
b = json.load(sys.stdin).get("bypass", [])
v = b[0] if b else {}
for k in sys.argv[1].split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k, "") if isinstance(v, dict) else ""
print(v)' "$1"
}
vm_bypass_state_is() { [ "$(vm_bypass_json state)" = "$1" ]; }
