#!/usr/bin/env bash
# The instruction meter: guest instructions per I/O of rblk.ko and of the
# kernel's nvme-rdma, counted by QEMU's TCG (tests/bench/meter/insn_meter.c,
# a plugin: one inline add per translated block executed) and attributed
# to module and symbol by the guest's /proc/kallsyms. Deterministic where
# the wall-clock benchmark (vs_nvme_rdma.sh) is noise: the guest runs on
# one host thread, and each figure is the difference between two fio runs
# of the same job with different I/O counts (--ios A,B), divided by B-A,
# so that what a run costs once (fio's start, the rings, the marks) cancels.
#
# The same target as vs_nvme_rdma.sh: nvmet-rdma on soft-RoCE, a null_blk
# namespace that completes at once, 2 I/O queues x 128 each side.
# rblk and nvme-rdma each get their own controller (and, polled, one poll
# queue: --nr-poll-queues 1, fio hipri=1). Each job runs a warm-up, then A
# and B I/Os, --repeats times (the report shows how well repeats agree).
#
# The side `bypass` is the kernel-bypass initiator: fio's engine
# librblk_fio.so (thread=1, one queue of the job's depth), sleeping on
# its completion channel (rblk_event=1), in interrupt mode only (busy
# polling spins as often as the emulator's timing makes it). Its library
# runs in user space: with it the plugin counts user blocks by address
# (user=1), fio's exec_prerun saves the job's memory map for each run
# (raw/maps.N, the run of mark N), and the report attributes the blocks
# in librblk_fio.so (the library and the engine's glue) and in the verbs
# libraries by the objects' own symbol tables. The side `bypass8` is the
# same job over 8 files: 8 controllers of the target (the filename's
# ctrl_loss_tmo tells them apart for fio), whose queues share the thread's
# poll group; per I/O it should cost what one controller does.
#
# The side `ublk` is the same library serving /dev/ublkbN: `rblkctl
# connect --path bypass` (the kernel sides' queues), fio's io_uring on the
# disk, interrupt mode only (ublk has no poll queues), and only where the
# kernel has ublk_drv (not Debian's 6.1). The server's memory map is the
# one saved for each run, so the report attributes its user blocks (rblkctl,
# which links the library, and liburing: the server's own code) and fio's
# count as another process's.
#
# Started on the host it boots the test VM with the plugin and runs
# itself there:
#   tests/bench/insn_meter.sh [--kernel 6.1|6.12|KVER] [--build-dir build]
#       [--timeout SEC] [--out DIR] [OPTIONS]
# Options:
#   --jobs A,B     a subset of the jobs (default all, in this order):
#                    4k-randread-qd1        4k random reads, QD1
#                    4k-randread-qd32       4k random reads, QD32
#                    4k-randread-qd32-b8    the same, iodepth_batch_submit=8
#                    4k-randwrite-qd32      4k random writes, QD32 (in-capsule)
#                    128k-read-qd8          128k sequential reads, QD8
#   --mode M       interrupt, polled or both (default both)
#   --ios A,B      I/O counts of the two runs (default 1000,4000)
#   --repeats N    A/B pairs per job and side (default 2)
#   --sides A,B    rblk, nvme-rdma, bypass, bypass8, ublk (default rblk,nvme-rdma)
# The results come back to <build-dir>/vm-out/bench.insn_meter/meter/ (or
# --out DIR): meter.md, meter.json (tests/bench/meter_report.py), and raw/
# (the plugin's delta.N files, labels, kallsyms.MODE). A measurement to
# read: it fails only when a tool does, never on a figure.
set -euo pipefail
# No KFENCE: its sampling timer is noise to a count.
export RBLK_VM_MEMCHECK=${RBLK_VM_MEMCHECK:-0}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib-host.sh
. "$here/lib-host.sh"

job_table=(
	"4k-randread-qd1|--rw=randread --bs=4k --iodepth=1"
	"4k-randread-qd32|--rw=randread --bs=4k --iodepth=32"
	"4k-randread-qd32-b8|--rw=randread --bs=4k --iodepth=32 --iodepth_batch_submit=8"
	"4k-randwrite-qd32|--rw=randwrite --bs=4k --iodepth=32"
	"128k-read-qd8|--rw=read --bs=128k --iodepth=8"
)
job_names=()
declare -A job_fio=()
for row in "${job_table[@]}"; do
	IFS='|' read -r name args <<< "$row"
	job_names+=("$name") job_fio[$name]=$args
done

usage_error() {
	echo "insn_meter: $*" >&2
	exit 2
}

# parse_opts ARGS...: sets jobs, modes, ios_a, ios_b, repeats, sides.
parse_opts() {
	local list=all mode=both ios=1000,4000 side_list=rblk,nvme-rdma j s
	repeats=2
	while [ $# -gt 0 ]; do
		case $1 in
		--jobs | --mode | --ios | --repeats | --sides)
			[ $# -ge 2 ] || usage_error "$1 needs a value"
			case $1 in
			--jobs) list=$2 ;;
			--mode) mode=$2 ;;
			--ios) ios=$2 ;;
			--repeats) repeats=$2 ;;
			--sides) side_list=$2 ;;
			esac
			shift 2
			;;
		-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		*) usage_error "unknown option '$1' (see --help)" ;;
		esac
	done
	case $mode in
	interrupt | polled) modes=("$mode") ;;
	both) modes=(interrupt polled) ;;
	*) usage_error "--mode takes interrupt, polled or both, not '$mode'" ;;
	esac
	[[ $ios =~ ^([1-9][0-9]*),([1-9][0-9]*)$ ]] || usage_error "--ios takes A,B (two I/O counts), not '$ios'"
	ios_a=${BASH_REMATCH[1]} ios_b=${BASH_REMATCH[2]}
	[ "$ios_b" -gt "$ios_a" ] || usage_error "--ios A,B needs B > A, not '$ios'"
	[[ $repeats =~ ^[1-9][0-9]?$ ]] || usage_error "--repeats takes 1-99, not '$repeats'"
	jobs=()
	if [ "$list" = all ]; then
		jobs=("${job_names[@]}")
	else
		IFS=, read -ra jobs <<< "$list"
		[ "${#jobs[@]}" -gt 0 ] || usage_error "--jobs names no job"
		for j in "${jobs[@]}"; do
			[ -n "$j" ] && [ -n "${job_fio[$j]:-}" ] ||
				usage_error "--jobs: no job '$j' (jobs: $(IFS=,; echo "${job_names[*]}"))"
		done
	fi
	IFS=, read -ra sides <<< "$side_list"
	[ "${#sides[@]}" -gt 0 ] || usage_error "--sides names no side"
	for s in "${sides[@]}"; do
		case $s in
		rblk | nvme-rdma | bypass | bypass8 | ublk) ;;
		*) usage_error "--sides: no side '$s' (sides: rblk,nvme-rdma,bypass,bypass8,ublk)" ;;
		esac
	done
}

# --- on the host: boot the VM with the plugin and run this script in it ------
if [ -z "${RBLK_SRC_DIR:-}" ]; then
	bench_host_args "$@"
	parse_opts "${args[@]}"
	bench_host_build
	plugin=$build/tests/bench/meter/insn_meter.so
	[ -f "$plugin" ] || usage_error "no $plugin: build the target rblk_insn_meter (it needs qemu-plugin.h: ci/install-deps.sh)"
	[ -x "$build/tests/bench/meter/rblk_meter_mark" ] || usage_error "no rblk_meter_mark in $build: build the target rblk_meter_mark"
	if [ -z "$timeout" ]; then
		# Per run (one thread for the guest): fio's start, ~1 ms per
		# I/O at QD1; three runs per pair; plus the setup per mode.
		per=$(((30 + (ios_a + ios_b) * 3 / 1000) * (repeats * 2 + 1)))
		timeout=$(((${#modes[@]} * ${#sides[@]} * ${#jobs[@]} * per + 240 * ${#modes[@]}) * 2 + 300))
	fi
	bench_host_timeout
	name=bench.insn_meter
	# The plugin's files: beside the run's directory, which run-in-vm.sh
	# empties when it starts; moved into raw/ after.
	deltas=$build/vm-out/$name.deltas
	rm -rf -- "$deltas"
	mkdir -p "$deltas"
	plugin_args="$plugin,out=$deltas"
	[[ " ${sides[*]} " != *" bypass"* && " ${sides[*]} " != *" ublk "* ]] || plugin_args+=",user=1"
	rc=0
	RBLK_VM_PLUGIN="$plugin_args" "$here/../vm/run-in-vm.sh" --build-dir "$build" "${vm[@]}" \
		--timeout "$timeout" --name "$name" "$0" "${args[@]}" || rc=$?
	results=$build/vm-out/$name/meter
	if [ "$rc" -eq 0 ]; then
		mv "$deltas"/delta.* "$results/raw/"
		rmdir "$deltas"
		/usr/bin/python3 "$here/meter_report.py" "$results" || rc=$?
	fi
	bench_host_results "$results"
	echo "insn_meter: exit $rc; results in $results (meter.md, meter.json)" >&2
	exit "$rc"
fi

# --- inside the VM ----------------------------------------------------------------
parse_opts "$@"
# shellcheck source=tests/vm/lib.sh
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"
MARK=$RBLK_BUILD_DIR/tests/bench/meter/rblk_meter_mark
vm_require "$MARK"
ENGINE=$RBLK_BUILD_DIR/userlib/initiator/fio/librblk_fio.so
[[ " ${sides[*]} " != *" bypass"* ]] || vm_require "$ENGINE"
[ -n "${RBLK_VM_PLUGIN:-}" ] || vm_fail "no plugin: start this script on the host (it loads insn_meter.so)"
raw=$RBLK_VM_OUT/meter/raw
mkdir -p "$raw"
labels=$raw/labels
: > "$labels"
nq=2 qsize=128
nqn=nqn.2024-01.io.rblk:meter-null
n_marks=0

# mark LABEL: the plugin writes delta.<n>, the instructions since the
# last mark; the label says what they were.
mark() {
	"$MARK"
	echo "$n_marks $1" >> "$labels"
	n_marks=$((n_marks + 1))
}

# The target, as vs_nvme_rdma.sh's: null_blk completing inline, nvmet-rdma.
vm_bench_target "$nqn"
vm_rblk_load
vm_modprobe nvme-rdma
# The target sets its RDMA device up on the first connect: not a side's.
mapfile -t line < <(vm_rblk_connect "$nqn")
"$RBLKCTL" disconnect "${line[0]}" > /dev/null

declare -A dev_of=()
has_side() { [[ " ${sides[*]} " == *" $1 "* ]]; }
if has_side ublk; then
	modprobe ublk_drv 2> /dev/null && [ -e /dev/ublk-control ] ||
		vm_fail "the ublk side needs ublk_drv, which kernel $(uname -r) has not"
fi
ublk_pid=""

connect() {
	local mode=$1 poll=() ref_poll=() line
	if [ "$mode" = polled ]; then
		poll=(--nr-poll-queues 1) ref_poll=(--nr-poll-queues=1)
	fi
	if has_side rblk; then
		mapfile -t line < <(vm_rblk_connect "$nqn" --nr-io-queues "$nq" --queue-size "$qsize" "${poll[@]}")
		ctrl=${line[0]} dev_of[rblk]=${line[1]:-}
		[ -b "${dev_of[rblk]}" ] || vm_fail "rblk: no disk for $nqn"
	fi
	if has_side ublk && [ "$mode" = interrupt ]; then
		timeout 120 "$RBLKCTL" connect --path bypass -t rdma -a 10.99.0.1 -s 4420 -n "$nqn" \
			--nr-io-queues "$nq" --queue-size "$qsize" > /tmp/meter-ublk.log 2>&1 ||
			vm_fail "rblkctl connect --path bypass failed: $(tail -n 5 /tmp/meter-ublk.log)"
		dev_of[ublk]=$(grep -m1 -oE '^/dev/ublkb[0-9]+$' /tmp/meter-ublk.log || true)
		[ -b "${dev_of[ublk]}" ] || vm_fail "rblkctl connect --path bypass made no ublk disk: $(tail -n 5 /tmp/meter-ublk.log)"
		ublk_pid=$(vm_bypass_json pid)
		[ -d "/proc/$ublk_pid" ] || vm_fail "the ublk server (pid '$ublk_pid') is not running"
	fi
	# fio's engine connects its own controller in each run.
	dev_of[bypass]="trtype=rdma adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=${nqn//:/\\:} ns=1"
	dev_of[bypass8]=""
	for i in 1 2 3 4 5 6 7 8; do
		dev_of[bypass8]+="${dev_of[bypass8]:+:}${dev_of[bypass]} ctrl_loss_tmo=$((600 + i))"
	done
	if has_side nvme-rdma; then
		dev_of[nvme-rdma]=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --nr-io-queues="$nq" \
			--queue-size="$qsize" "${ref_poll[@]}")
	fi
}

disconnect() {
	! has_side nvme-rdma || vm_nvme_ref_disconnect "$nqn"
	if [ -n "${dev_of[ublk]:-}" ]; then
		timeout 60 "$RBLKCTL" disconnect "${dev_of[ublk]}" > /dev/null ||
			vm_fail "rblkctl disconnect ${dev_of[ublk]} failed"
		dev_of[ublk]="" ublk_pid=""
	fi
	! has_side rblk || "$RBLKCTL" disconnect "$ctrl" > /dev/null || vm_fail "rblkctl disconnect $ctrl failed"
}

# fio_run MODE JOB SIDE IOS: one run of IOS I/Os. The bypass side's
# prerun hook saves the job's memory map for the mark that ends the run
# ($PPID, in the hook's shell, is fio's job; fio sends the hook's stdout
# to <job>.prerun.txt in its directory, /tmp).
fio_run() {
	local mode=$1 job=$2 side=$3 ios=$4 args eng=(--ioengine=io_uring --direct=1)
	read -ra args <<< "${job_fio[$job]}"
	if [ "$side" = bypass ] || [ "$side" = bypass8 ]; then
		eng=(--ioengine=external:"$ENGINE" --thread=1 --rblk_event=1
			--exec_prerun="dd if=/proc/\$PPID/maps of=$raw/maps.$n_marks status=none")
	elif [ "$side" = ublk ]; then
		eng+=(--exec_prerun="dd if=/proc/$ublk_pid/maps of=$raw/maps.$n_marks status=none")
	elif [ "$mode" != interrupt ]; then
		eng+=(--hipri=1)
	fi
	(cd /tmp && timeout -k 5 600 fio --name="$job" --filename="${dev_of[$side]}" "${eng[@]}" \
		--number_ios="$ios" --norandommap --randrepeat=1 --output=/dev/null \
		--disk_util=0 --eta=never \
		"${args[@]}") > /tmp/meter-fio.log 2>&1 ||
		vm_fail "fio $job on ${dev_of[$side]} ($side, $mode) failed: $(tail -n 5 /tmp/meter-fio.log)"
}

echo "kernel: $(uname -r), modes: ${modes[*]}, sides: ${sides[*]}, jobs: ${jobs[*]}, I/Os $ios_a and $ios_b, $repeats repeats"
mark start
for mode in "${modes[@]}"; do
	connect "$mode"
	# Every module is in now, and stays until the end: these addresses
	# name the blocks of this mode's runs.
	cp /proc/kallsyms "$raw/kallsyms.$mode"
	for job in "${jobs[@]}"; do
		for side in "${sides[@]}"; do
			if [[ $side == bypass* || $side == ublk ]] && [ "$mode" != interrupt ]; then
				vm_log "$mode: $job: $side is counted sleeping, in interrupt mode only"
				continue
			fi
			fio_run "$mode" "$job" "$side" "$ios_a"
			mark "$mode $job $side warm 0"
			for ((r = 1; r <= repeats; r++)); do
				fio_run "$mode" "$job" "$side" "$ios_a"
				mark "$mode $job $side $ios_a $r"
				fio_run "$mode" "$job" "$side" "$ios_b"
				mark "$mode $job $side $ios_b $r"
			done
			vm_log "$mode: $job: $side counted"
		done
	done
	disconnect
	mark "$mode teardown"
done
{
	printf '{"kernel": "%s", "nr_io_queues": %d, "queue_size": %d, ' "$(uname -r)" "$nq" "$qsize"
	printf '"ios": [%d, %d], "repeats": %d, ' "$ios_a" "$ios_b" "$repeats"
	printf '"target": "nvmet-rdma on soft-RoCE, null_blk (irqmode 0), 4 GiB", "jobs": {'
	sep=""
	for job in "${jobs[@]}"; do
		printf '%s"%s": "%s"' "$sep" "$job" "${job_fio[$job]}"
		sep=", "
	done
	printf '}}\n'
} > "$raw/meta.json"
echo "marks: $n_marks"
