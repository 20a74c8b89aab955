#!/usr/bin/env bash
# rblk against the kernel's own nvme-rdma initiator and rblk's kernel-bypass
# initiator, in one VM run: the same nvmet-rdma target (a null_blk
# namespace that completes at once and keeps nothing, so the target costs
# little), the same number and depth of I/O queues, the same fio jobs, run
# alternately on /dev/rblkXnY and /dev/nvmeXnY (io_uring, direct), through
# fio's external engine librblk_fio.so (the bypass path: thread=1, one
# controller shared by fio's threads, an I/O queue each) and, where there is one, on the
# ublk disk /dev/ublkbN that `rblkctl connect --path bypass` serves. A
# measurement to read: it fails only when a tool does, never on a figure.
#
# Started on the host it boots the test VM and runs itself there:
#   tests/bench/vs_nvme_rdma.sh [--kernel 6.1|6.12|KVER] [--build-dir build]
#       [--timeout SEC] [--out DIR] [OPTIONS]
# (tests/vm/run-in-vm.sh --name bench.vs_nvme_rdma ... this script OPTIONS);
# the results come back to <build-dir>/vm-out/bench.vs_nvme_rdma/
# vs_nvme_rdma/, or are copied to --out DIR, and it prints where. Inside a
# VM (a case, ci/demo.sh) --out DIR is a directory of the guest (default
# $RBLK_VM_OUT/vs_nvme_rdma). --timeout defaults to what the options need.
# Options (defaults also from RBLK_BENCH_RUNTIME, RBLK_BENCH_ROUNDS,
# RBLK_BENCH_MODE, RBLK_BENCH_JOBS, RBLK_BENCH_SIDES, RBLK_BENCH_PROFILE=1):
#   --runtime S   seconds of each fio run (default 15)
#   --rounds N    rounds per job (default 4); odd rounds run the sides in
#                 --sides order, even rounds in reverse (ABBA; ABC CBA)
#   --sides A,B   the initiators (default rblk,nvme-rdma,bypass,ublk):
#                   rblk          rblk.ko, /dev/rblkXnY, fio io_uring
#                   nvme-rdma     the kernel's nvme-rdma, /dev/nvmeXnY
#                   bypass        fio's engine librblk_fio.so, busy polling
#                                 (in both modes: it takes no interrupts);
#                                 a poller is one CPU at 100%, counted so
#                   bypass-event  the same, rblk_event=1: sleeps on the
#                                 completion channel while it waits
#                   ublk          /dev/ublkbN of `rblkctl connect --path
#                                 bypass` (io_uring, never hipri: ublk has
#                                 no poll queues); left out, and the report
#                                 says why, when rblkctl has no such
#                                 command or the kernel no ublk_drv
#   --mode M      interrupt: the kernel drivers as they come; polled: rblk
#                 with --nr-poll-queues 1, nvme-rdma with --nr-poll-queues=1,
#                 fio hipri=1 (io_uring IOPOLL); both (default): one, then
#                 the other, each with controllers of its own. The bypass
#                 sides and ublk run the same way in both
#   --jobs A,B    a subset of the jobs (default all, in this order):
#                   4k-randread-qd1       4k random reads, QD1
#                   4k-randread-qd32      4k random reads, QD32
#                   4k-randwrite-qd32     4k random writes, QD32
#                   4k-randrw-qd16x2      4k random 70% reads 30% writes,
#                                         QD16, numjobs=2
#                   128k-seqread-qd8      128k sequential reads, QD8
#                   4k-randread-halfrate  4k-randread-qd32 at fio rate_iops
#                                         = half the slowest side's median
#                                         IOPS of 4k-randread-qd32 in this
#                                         mode (measured first, in this
#                                         run): CPU per I/O at equal load
#   --profile     perf record -a -g -e cpu-clock -F 499 over the timed part
#                 of each run; the report adds where the VM's CPU goes, by
#                 module and symbol class (perf's own sampling then adds
#                 to the CPU per I/O: compare that column without it)
#   --out DIR     where the results go (see above)
#   --nqn NQN     (inside a VM, --mode interrupt) use the target and the
#                 rblk controller already set up for NQN (ci/demo.sh does,
#                 with --sides rblk,nvme-rdma); its port is 10.99.0.1:4420
#   --rblk-slab "BEFORE AFTER"  with --nqn: Slab (KiB) around that connect
# The results: results.md (the tables: medians, ratios of each side to
# rblk.ko and to nvme-rdma, issue 11's targets), results.json (every run's
# figures, the medians and ratios), latency.png (latency percentiles per
# job and mode),
# meta.json and raw/MODE/JOB/ROUND.SIDE.{fio.json,cpu,perf.txt}; the
# analysis is tests/bench/report.py's.
set -euo pipefail
# A benchmark boots without the suite's memory checks (KFENCE's sampling
# timer and guarded allocations are noise to it): RBLK_VM_MEMCHECK in
# run-in-vm.sh.
export RBLK_VM_MEMCHECK=${RBLK_VM_MEMCHECK:-0}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib-host.sh
. "$here/lib-host.sh"

# The jobs, in the order they run: name, title, fio arguments.
job_table=(
	"4k-randread-qd1|4k randread QD1|--rw=randread --bs=4k --iodepth=1"
	"4k-randread-qd32|4k randread QD32|--rw=randread --bs=4k --iodepth=32"
	"4k-randwrite-qd32|4k randwrite QD32|--rw=randwrite --bs=4k --iodepth=32"
	"4k-randrw-qd16x2|4k randrw 70/30 QD16 x2|--rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --numjobs=2"
	"128k-seqread-qd8|128k seq read QD8|--rw=read --bs=128k --iodepth=8"
	"4k-randread-halfrate|4k randread QD32|--rw=randread --bs=4k --iodepth=32"
)
job_names=()
declare -A job_title=() job_fio=()
for row in "${job_table[@]}"; do
	IFS='|' read -r name title args <<< "$row"
	job_names+=("$name") job_title[$name]=$title job_fio[$name]=$args
done

usage_error() {
	echo "vs_nvme_rdma: $*" >&2
	exit 2
}

all_sides=(rblk nvme-rdma bypass bypass-event ublk)

# parse_opts ARGS...: the options of both sides; sets runtime, rounds,
# modes, jobs, sides, profile, out, nqn, rblk_slab.
parse_opts() {
	local mode=${RBLK_BENCH_MODE:-both} list=${RBLK_BENCH_JOBS-all} j s
	local side_list=${RBLK_BENCH_SIDES:-rblk,nvme-rdma,bypass,ublk}
	runtime=${RBLK_BENCH_RUNTIME:-15} rounds=${RBLK_BENCH_ROUNDS:-4}
	profile=${RBLK_BENCH_PROFILE:-0} out="" nqn="" rblk_slab=""
	while [ $# -gt 0 ]; do
		case $1 in
		--runtime | --rounds | --mode | --jobs | --sides | --out | --nqn | --rblk-slab)
			[ $# -ge 2 ] || usage_error "$1 needs a value"
			case $1 in
			--runtime) runtime=$2 ;;
			--rounds) rounds=$2 ;;
			--mode) mode=$2 ;;
			--jobs) list=$2 ;;
			--sides) side_list=$2 ;;
			--out) out=$2 ;;
			--nqn) nqn=$2 ;;
			--rblk-slab) rblk_slab=$2 ;;
			esac
			shift 2
			;;
		--profile) profile=1; shift ;;
		-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		*) usage_error "unknown option '$1' (see --help)" ;;
		esac
	done
	[[ $runtime =~ ^[1-9][0-9]*$ ]] || usage_error "--runtime takes a positive number of seconds, not '$runtime'"
	[[ $rounds =~ ^[1-9][0-9]*$ ]] || usage_error "--rounds takes a positive number, not '$rounds'"
	case $mode in
	interrupt | polled) modes=("$mode") ;;
	both) modes=(interrupt polled) ;;
	*) usage_error "--mode takes interrupt, polled or both, not '$mode'" ;;
	esac
	declare -A want=()
	if [ "$list" != all ]; then
		local -a asked
		IFS=, read -ra asked <<< "$list"
		[ "${#asked[@]}" -gt 0 ] || usage_error "--jobs names no job"
		for j in "${asked[@]}"; do
			[ -n "$j" ] && [ -n "${job_fio[$j]:-}" ] ||
				usage_error "--jobs: no job '$j' (jobs: $(IFS=,; echo "${job_names[*]}"))"
			want[$j]=1
		done
	else
		for j in "${job_names[@]}"; do want[$j]=1; done
	fi
	jobs=()
	for j in "${job_names[@]}"; do
		[ -z "${want[$j]:-}" ] || jobs+=("$j")
	done
	if [ -n "${want[4k-randread-halfrate]:-}" ] && [ -z "${want[4k-randread-qd32]:-}" ]; then
		usage_error "--jobs: 4k-randread-halfrate needs 4k-randread-qd32 (its rate is half of that job's IOPS)"
	fi
	local -a asked_sides
	IFS=, read -ra asked_sides <<< "$side_list"
	[ "${#asked_sides[@]}" -gt 0 ] || usage_error "--sides names no side"
	sides=()
	for s in "${asked_sides[@]}"; do
		[[ " ${all_sides[*]} " == *" $s "* ]] && [ -n "$s" ] ||
			usage_error "--sides: no side '$s' (sides: $(IFS=,; echo "${all_sides[*]}"))"
		[[ " ${sides[*]} " != *" $s "* ]] || usage_error "--sides: '$s' twice"
		sides+=("$s")
	done
	if [ -n "$nqn" ] && [ "${modes[*]}" != interrupt ]; then
		usage_error "--nqn uses the controller it finds: it takes --mode interrupt"
	fi
	[ "$profile" = 0 ] || profile=1
}

# --- on the host: boot the VM and run this script in it ----------------------
if [ -z "${RBLK_SRC_DIR:-}" ]; then
	BENCH_VM_ONLY="--nqn|--rblk-slab" bench_host_args "$@"
	parse_opts "${args[@]}"
	if [ -z "$timeout" ]; then
		# Each run: the runtime, fio's start and end (a few seconds under
		# TCG) and, profiled, perf's start and report; plus the setup.
		# A bypass run also connects (fio's setup, for the namespace's
		# size: the controller its threads then share).
		per=$((runtime + 8 + 10 * profile))
		timeout=$(((${#modes[@]} * rounds * ${#sides[@]} * ${#jobs[@]} * per + 180 * ${#modes[@]}) * 3 / 2 + 300))
	fi
	bench_host_timeout
	bench_host_build
	# The plot's font cache, built here in a second rather than in the VM.
	MPLCONFIGDIR=$build/mpl /usr/bin/python3 -c 'import matplotlib.pyplot' 2> /dev/null || true
	rc=0
	"$here/../vm/run-in-vm.sh" --build-dir "$build" "${vm[@]}" --timeout "$timeout" \
		--name bench.vs_nvme_rdma "$0" "${args[@]}" || rc=$?
	bench_host_results "$build/vm-out/bench.vs_nvme_rdma/vs_nvme_rdma"
	echo "vs_nvme_rdma: exit $rc; results in $results (results.md, results.json, latency.png)" >&2
	exit "$rc"
fi

# --- inside the VM ----------------------------------------------------------------
parse_opts "$@"
# shellcheck source=tests/vm/lib.sh
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"
if [ "$profile" = 1 ]; then
	command -v perf > /dev/null || vm_fail "--profile needs perf (Debian's linux-perf: ci/install-deps.sh)"
fi
has_side() { [[ " ${sides[*]} " == *" $1 "* ]]; }
ENGINE=$RBLK_BUILD_DIR/userlib/initiator/fio/librblk_fio.so
if has_side bypass || has_side bypass-event; then
	vm_require "$ENGINE"
fi
out=${out:-$RBLK_VM_OUT/vs_nvme_rdma}
mkdir -p "$out"
rm -rf -- "$out/raw" "$out/meta.json" "$out/results.json" "$out/results.md" "$out/latency.png" \
	"$out/module-symbols.txt"
work=/tmp/vs_nvme_rdma
rm -rf -- "$work"
mkdir -p "$work"
hook=$here/fio-window.sh
nq=2 qsize=128
declare -A rate=() slab=() devs=() dev_of=()
notes=()

# ublk: a side only where rblkctl serves a ublk disk (connect --path
# bypass) and the kernel has ublk_drv (6.1's Debian kernel has not).
if has_side ublk; then
	why=""
	if ! "$RBLKCTL" connect --help 2>&1 | grep -q -- '--path'; then
		why="this rblkctl has no connect --path bypass (no ublk server)"
	elif ! modprobe ublk_drv 2> /dev/null || [ ! -e /dev/ublk-control ]; then
		why="kernel $(uname -r) has no ublk (ublk_drv)"
	fi
	if [ -n "$why" ]; then
		notes+=("ublk left out: $why")
		kept=()
		for s in "${sides[@]}"; do [ "$s" = ublk ] || kept+=("$s"); done
		sides=("${kept[@]}")
		vm_log "ublk left out: $why"
	fi
fi
[ "${#sides[@]}" -gt 0 ] || vm_fail "no side left to measure"

echo "kernel: $(uname -r), modes: ${modes[*]}, sides: ${sides[*]}, jobs: ${jobs[*]}, $rounds rounds of ${runtime}s"

slab_line() { # NAME SLAB_BEFORE SLAB_AFTER
	printf '%-10s slab %6d -> %6d KiB: %+d KiB\n' "$1" "$2" "$3" $(($3 - $2))
}

# The target: vm_bench_target's (lib.sh); what a run before this one in
# the same VM set up is used again.
own_target=0
if [ -z "$nqn" ]; then
	own_target=1
	nqn=nqn.2024-01.io.rblk:bench-null
	vm_bench_target "$nqn"
	vm_rblk_load
	# The target sets up its RDMA device on the first connect: let that
	# one count for no side.
	mapfile -t line < <(vm_rblk_connect "$nqn")
	"$RBLKCTL" disconnect "${line[0]}" > /dev/null
fi
# fio splits a filename on ':': the NQN's are escaped (userlib/initiator/README.md).
bypass_spec="trtype=rdma adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=${nqn//:/\\:} ns=1"

# ublk_start: `rblkctl connect --path bypass` serving the namespace as a
# ublk disk, with the kernel sides' queues; sets dev_of[ublk]. The command
# returns once its detached server serves the disk, and prints it.
ublk_start() {
	local dev
	timeout 120 "$RBLKCTL" connect --path bypass -t rdma -a 10.99.0.1 -s 4420 -n "$nqn" \
		--nr-io-queues "$nq" --queue-size "$qsize" > "$work/ublk.log" 2>&1 ||
		vm_fail "rblkctl connect --path bypass failed: $(tail -n 5 "$work/ublk.log")"
	dev=$(grep -m1 -oE '^/dev/ublkb[0-9]+$' "$work/ublk.log" || true)
	[ -b "$dev" ] || vm_fail "rblkctl connect --path bypass made no ublk disk: $(tail -n 5 "$work/ublk.log")"
	dev_of[ublk]=$dev
}

# ublk_stop: the server stops (the disk goes) before the next mode's.
ublk_stop() {
	if [ -n "${dev_of[ublk]:-}" ]; then
		timeout 60 "$RBLKCTL" disconnect "${dev_of[ublk]}" > /dev/null ||
			vm_fail "rblkctl disconnect ${dev_of[ublk]} failed"
		dev_of[ublk]=""
	fi
}

# connect MODE: the controllers of the kernel sides (the same queues) and
# the ublk server; sets ctrl, dev_of[SIDE]. The bypass sides connect in
# each fio run (each thread its own controller, outside the timed part).
connect() {
	local mode=$1 poll=() ref_poll=() before="" line
	if [ "$mode" = polled ]; then
		poll=(--nr-poll-queues 1) ref_poll=(--nr-poll-queues=1)
	fi
	dev_of=([bypass]="$bypass_spec" [bypass-event]="$bypass_spec")
	if has_side rblk; then
		if [ "$own_target" = 1 ]; then
			[ "$mode" != interrupt ] || before=$(vm_slab_kib)
			mapfile -t line < <(vm_rblk_connect "$nqn" --nr-io-queues "$nq" --queue-size "$qsize" \
				"${poll[@]}")
			[ "$mode" != interrupt ] || slab[$mode.rblk]="$before $(vm_slab_kib)"
			ctrl=${line[0]} dev_of[rblk]=${line[1]:-}
		else
			read -r ctrl "dev_of[rblk]" nq qsize < <("$RBLKCTL" list --json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["controllers"]:
    if c["subnqn"] == sys.argv[1] and c["namespaces"]:
        print(c["name"], c["namespaces"][0]["device"], c["nr_io_queues"], c["queue_size"])
        break' "$nqn") || vm_fail "no rblk controller with a namespace for $nqn"
			[ -z "$rblk_slab" ] || slab[$mode.rblk]=$rblk_slab
		fi
		[ -b "${dev_of[rblk]}" ] || vm_fail "rblk: no disk ${dev_of[rblk]} for $nqn"
	fi
	if has_side nvme-rdma; then
		# Slab: in interrupt mode, where both have the same queues
		# (polled mode adds one each).
		[ "$mode" != interrupt ] || before=$(vm_slab_kib)
		dev_of[nvme-rdma]=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --nr-io-queues="$nq" \
			--queue-size="$qsize" "${ref_poll[@]}")
		[ "$mode" != interrupt ] || slab[$mode.nvme-rdma]="$before $(vm_slab_kib)"
	fi
	! has_side ublk || ublk_start
	local s list=""
	for s in "${sides[@]}"; do list+="${list:+, }$s ${dev_of[$s]}"; done
	devs[$mode]=$list
	vm_log "$mode: $list; $nq I/O queues x $qsize ${poll[*]}"
}

disconnect() {
	! has_side nvme-rdma || vm_nvme_ref_disconnect "$nqn"
	if has_side rblk && [ "$own_target" = 1 ]; then
		"$RBLKCTL" disconnect "$ctrl" > /dev/null || vm_fail "rblkctl disconnect $ctrl failed"
	fi
	! has_side ublk || ublk_stop
}

# "${perf_ns[@]}" CMD...: CMD (perf) in a mount namespace of its own with an empty
# tmpfs over /lib/modules/KVER/kernel. Each perf record and report walks
# that tree (thousands of modules, stat()ed over the 9p root: over a
# minute under TCG); it needs none of them: perf report --kallsyms takes
# the kernel's symbols, the modules' included, from /proc/kallsyms (there
# is no vmlinux, and without a build-id it would leave them addresses).
# It then names the object of every kernel sample [kernel.kallsyms]:
# report.py gives a module symbol its module from module-symbols.txt,
# the module lines of /proc/kallsyms, saved once rblk and nvme-rdma are in.
# shellcheck disable=SC2016 # for sh -c
perf_ns=(unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh
	"/lib/modules/$(uname -r)/kernel")

perf_pid=""
stop_perf() {
	[ -n "$perf_pid" ] || return 0
	kill -INT "$perf_pid" 2> /dev/null || true
	wait "$perf_pid" 2> /dev/null || true
	perf_pid=""
}
cleanup() {
	stop_perf
	[ -z "${dev_of[ublk]:-}" ] || timeout 60 "$RBLKCTL" disconnect "${dev_of[ublk]}" > /dev/null 2>&1 || true
}
trap cleanup EXIT

# run MODE JOB ROUND SIDE [RATE_IOPS]: one fio run, its /proc/stat
# window and, with --profile, its perf report, into raw/MODE/JOB/.
#
# CPU per I/O needs the CPU time of the timed part alone: fio takes a
# second or more under TCG to start (parse, fork, open, set up the rings;
# the bypass engine's connects), which is not the driver's cost. fio's
# exec_prerun and exec_postrun hooks run in each job right before its
# clock starts and after its I/O ends (after the engine's init and
# post_init, before its cleanup), so fio-window.sh samples /proc/stat
# there (and switches perf's events on and off there), and the run has no
# ramp_time: the I/Os fio counts are those of that window. What the hook
# itself costs after its sample (its exit, a few ms) is counted; a wrapper
# sleeping through fio's start would have to guess it. The busy time is
# that of all vCPUs, so a busy-polling thread counts as one CPU at 100%.
run() {
	local mode=$1 job=$2 r=$3 side=$4 dev base args eng hook_args rc=0 t0
	t0=$(vm_now_ms)
	dev=${dev_of[$side]}
	base=$out/raw/$mode/$job/$r.$side
	mkdir -p "${base%/*}"
	read -ra args <<< "${job_fio[$job]}"
	[ -z "${5:-}" ] || args+=("--rate_iops=$5")
	case $side in
	rblk | nvme-rdma)
		eng=(--ioengine=io_uring --direct=1)
		[ "$mode" = interrupt ] || eng+=(--hipri=1)
		;;
	ublk) eng=(--ioengine=io_uring --direct=1) ;;
	bypass) eng=(--ioengine=external:"$ENGINE" --thread=1) ;;
	bypass-event) eng=(--ioengine=external:"$ENGINE" --thread=1 --rblk_event=1) ;;
	esac
	rm -f "$work"/window*
	hook_args="$work/window"
	if [ "$profile" = 1 ]; then
		rm -f "$work/ctl" "$work/ack" "$work/perf.data"
		mkfifo "$work/ctl" "$work/ack"
		# -D -1: no samples until fio-window.sh enables them; -B -N: no
		# build-id pass over the samples at the end. exec, all the way:
		# the job's pid is perf's, which SIGINT then stops.
		(exec "${perf_ns[@]}" perf record -a -g -e cpu-clock -F 499 -D -1 \
			--control "fifo:$work/ctl,$work/ack" -B -N -o "$work/perf.data" \
			> "$work/perf.log" 2>&1) &
		perf_pid=$!
		hook_args+=" $work/ctl $work/ack"
	fi
	(cd "$work" && timeout -k 5 $((runtime + 120)) fio --output-format=json+ \
		--output="$base.fio.json" --name="$job" --filename="$dev" "${eng[@]}" \
		--time_based --runtime="$runtime" --norandommap --group_reporting \
		--lat_percentiles=1 --percentile_list=1:5:10:25:50:75:90:95:99:99.5:99.9:99.95:99.99 \
		--exec_prerun="$hook pre $hook_args" --exec_postrun="$hook post $hook_args" \
		"${args[@]}") || rc=$?
	stop_perf
	[ "$rc" -eq 0 ] || vm_fail "fio $job on $dev ($side, $mode) exited $rc: $(tail -c 2000 "$base.fio.json" 2> /dev/null)"
	mv "$work/window" "$base.cpu"
	if [ "$profile" = 1 ]; then
		"${perf_ns[@]}" perf report -i "$work/perf.data" --kallsyms=/proc/kallsyms \
			--stdio --no-children \
			--sort comm,dso,sym -F overhead,sample,comm,dso,sym -t '|' -g none \
			> "$base.perf.txt" 2> "$work/report.log" ||
			vm_fail "perf report failed: $(tail -n 5 "$work/report.log"; tail -n 5 "$work/perf.log")"
		rm -f "$work/perf.data"
	fi
	vm_log "$mode: round $r: $side: $job took $(vm_ms_since "$t0") ms"
}

# rounds MODE JOB...: the rounds of JOBs in MODE; odd rounds run the sides
# in order, even rounds in reverse (A B C, C B A: each side's mean place
# in a pair of rounds is the same, so a steady drift favours none).
rounds() {
	local mode=$1 r i side j
	shift
	local -a list=("$@") order
	for ((r = 1; r <= rounds; r++)); do
		order=()
		for ((i = 0; i < ${#sides[@]}; i++)); do
			if [ $((r % 2)) = 1 ]; then
				order+=("${sides[i]}")
			else
				order+=("${sides[${#sides[@]} - 1 - i]}")
			fi
		done
		for side in "${order[@]}"; do
			for j in "${list[@]}"; do
				if [ "$j" = 4k-randread-halfrate ]; then
					run "$mode" "$j" "$r" "$side" "${rate[$mode]}"
				else
					run "$mode" "$j" "$r" "$side"
				fi
			done
		done
	done
}

for mode in "${modes[@]}"; do
	connect "$mode"
	if [ "$profile" = 1 ] && [ ! -e "$out/module-symbols.txt" ]; then
		awk 'NF == 4 { print $3, $4 }' /proc/kallsyms > "$out/module-symbols.txt"
	fi
	plain=()
	for j in "${jobs[@]}"; do
		[ "$j" = 4k-randread-halfrate ] || plain+=("$j")
	done
	rounds "$mode" "${plain[@]}"
	if [ "${plain[*]}" != "${jobs[*]}" ]; then
		rate[$mode]=$(python3 "$here/report.py" rate "$out" "$mode") ||
			vm_fail "no rate for 4k-randread-halfrate"
		vm_log "$mode: 4k-randread-halfrate at ${rate[$mode]} IOPS"
		rounds "$mode" 4k-randread-halfrate
	fi
	disconnect
done

# The settings, for report.py.
json_list() { # STRING...: a JSON list of strings (no quotes or backslashes in them)
	local s sep=""
	printf '['
	for s in "$@"; do printf '%s"%s"' "$sep" "$s"; sep=", "; done
	printf ']'
}
{
	printf '{\n "kernel": "%s",\n "nr_io_queues": %d,\n "queue_size": %d,\n' "$(uname -r)" "$nq" "$qsize"
	printf ' "runtime_s": %d,\n "rounds": %d,\n "profile": %s,\n "clk_tck": %d,\n' \
		"$runtime" "$rounds" "$([ "$profile" = 1 ] && echo true || echo false)" "$(getconf CLK_TCK)"
	printf ' "target": "nvmet-rdma, null_blk (irqmode 0, not memory-backed), 4 GiB",\n'
	printf ' "modes": %s,\n "sides": %s,\n' "$(json_list "${modes[@]}")" "$(json_list "${sides[@]}")"
	printf ' "notes": %s,\n "jobs": [' "$(json_list "${notes[@]}")"
	sep=""
	for j in "${jobs[@]}"; do
		printf '%s\n  {"name": "%s", "title": "%s", "fio": "%s", "fixed_rate": %s}' "$sep" "$j" \
			"${job_title[$j]}" "${job_fio[$j]}" "$([ "$j" = 4k-randread-halfrate ] && echo true || echo false)"
		sep=","
	done
	printf '\n ],\n "rate_iops": {'
	sep=""
	for m in "${!rate[@]}"; do printf '%s"%s": %d' "$sep" "$m" "${rate[$m]}"; sep=", "; done
	printf '},\n "devices": {'
	sep=""
	for m in "${modes[@]}"; do
		d=${devs[$m]//\\/\\\\}
		printf '%s"%s": "%s"' "$sep" "$m" "$d"
		sep=", "
	done
	printf '},\n "slab_kib": {'
	sep=""
	for k in "${!slab[@]}"; do
		# shellcheck disable=SC2086 # two numbers
		printf '%s"%s": [%d, %d]' "$sep" "$k" ${slab[$k]}
		sep=", "
	done
	printf '}\n}\n'
} > "$out/meta.json"

# matplotlib's font cache takes minutes to build under TCG: keep it in
# the build directory (the host's; ci/demo.sh builds it there first).
MPLCONFIGDIR=${RBLK_BUILD_DIR:-$work}/mpl python3 "$here/report.py" summarize "$out" ||
	vm_fail "report.py failed"
echo
echo "slab of one controller, $nq I/O queues x $qsize (the target's side of it included):"
for m in "${modes[@]}"; do
	for s in rblk nvme-rdma; do
		# shellcheck disable=SC2086 # two numbers
		[ -z "${slab[$m.$s]:-}" ] || echo "$m: $(slab_line "$s" ${slab[$m.$s]})"
	done
done
echo "results: $out"
