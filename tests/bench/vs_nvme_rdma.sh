#!/usr/bin/env bash
# rblk against the kernel's own nvme-rdma initiator: the same nvmet-rdma
# target and namespace, the same fio io_uring job, run alternately on
# /dev/rblkXnY and /dev/nvmeXnY; prints a side-by-side table with the ratio
# rblk/nvme-rdma, and the kernel memory each controller costs. A
# measurement to read: it fails only when a tool does, never on a ratio.
#
# It runs inside the test VM (soft-RoCE is CPU-bound under emulation: only
# the ratio means something, not the absolute figures). Started on the host
# it boots one itself:
#   tests/bench/vs_nvme_rdma.sh [--kernel 6.1|6.12|KVER] [--build-dir build]
#       [--timeout 1200] [--runtime S] [--rounds N] [--mode polled]
# which is tests/vm/run-in-vm.sh --build-dir build --kernel KVER
# --timeout 1200 tests/bench/vs_nvme_rdma.sh [--runtime S] [--rounds N].
# The first line of the output names the kernel it ran on.
# Options (defaults also from RBLK_BENCH_RUNTIME, RBLK_BENCH_ROUNDS):
#   --runtime S   seconds per fio job (default 5, after a 1 s ramp)
#   --rounds N    rblk/nvme-rdma alternations per job (default 2); the
#                 table shows the mean over the rounds
#   --mode M      interrupt (default: both drivers as they come) or
#                 polled: rblk with --nr-poll-queues 1, nvme-rdma with
#                 --nr-poll-queues=1, fio with hipri=1 (io_uring IOPOLL),
#                 so both reap their completions by polling
#   --nqn NQN     use the target and the rblk controller already set up for
#                 NQN (ci/demo.sh does); default: set up soft-RoCE, a
#                 256 MiB memory-backed nvmet-rdma namespace, load rblk and
#                 connect (2 I/O queues x 128 entries, as nvme-rdma)
#   --rblk-slab "BEFORE AFTER"  with --nqn: Slab (KiB) around that rblk
#                 connect, printed next to nvme-rdma's
set -euo pipefail

if [ -z "${RBLK_SRC_DIR:-}" ]; then
	# On the host: boot the VM and run this script in it.
	vm=(--build-dir build --timeout 1200)
	args=()
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel|--build-dir|--timeout) vm+=("$1" "$2"); shift 2 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	exec "$(dirname "$0")/../vm/run-in-vm.sh" "${vm[@]}" --name bench.vs_nvme_rdma \
		"$0" "${args[@]}"
fi
# shellcheck source=tests/vm/lib.sh
. "$RBLK_SRC_DIR/tests/vm/lib.sh"

runtime=${RBLK_BENCH_RUNTIME:-5} rounds=${RBLK_BENCH_ROUNDS:-2} nqn="" rblk_slab="" mode=interrupt
while [ $# -gt 0 ]; do
	case $1 in
	--runtime) runtime=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--nqn) nqn=$2; shift 2 ;;
	--rblk-slab) rblk_slab=$2; shift 2 ;;
	*) vm_fail "vs_nvme_rdma: unknown argument $1 (see the header of $0)" ;;
	esac
done
[[ $runtime =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] ||
	vm_fail "--runtime and --rounds take positive numbers"
case $mode in
interrupt) poll=() ref_poll=() fio_poll=() ;;
polled) poll=(--nr-poll-queues 1) ref_poll=(--nr-poll-queues=1) fio_poll=(--hipri=1) ;;
*) vm_fail "--mode takes interrupt or polled, not $mode" ;;
esac
[ "$mode" = interrupt ] || [ -z "$nqn" ] || vm_fail "--mode polled sets up its own controllers: drop --nqn"
vm_require "$RBLKCTL"
echo "kernel: $(uname -r), mode: $mode"

mem_line() { # NAME SLAB_BEFORE SLAB_AFTER
	printf '%-10s slab %6d -> %6d KiB: %+d KiB\n' "$1" "$2" "$3" $(($3 - $2))
}

own_target=0
if [ -z "$nqn" ]; then
	own_target=1
	nqn=nqn.2024-01.io.rblk:bench
	vm_rdma_target "$nqn" 256 > /dev/null
	vm_rblk_load
	# The target sets up its RDMA device on the first connect: let that
	# one not count for either side.
	vm_rblk_connect "$nqn" > /dev/null
	"$RBLKCTL" disconnect rblk0 > /dev/null
	before=$(vm_slab_kib)
	vm_rblk_connect "$nqn" --nr-io-queues 2 --queue-size 128 "${poll[@]}" > /dev/null
	rblk_slab="$before $(vm_slab_kib)"
fi

# The rblk controller of NQN: name, disk, queues.
read -r ctrl rblk_dev nq qsize < <("$RBLKCTL" list --json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["controllers"]:
    if c["subnqn"] == sys.argv[1] and c["namespaces"]:
        print(c["name"], c["namespaces"][0]["device"], c["nr_io_queues"], c["queue_size"])
        break' "$nqn") || vm_fail "no rblk controller with a namespace for $nqn"

# nvme-rdma with the same number and depth of queues.
vm_modprobe nvme-rdma
before=$(vm_slab_kib)
ref_dev=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --nr-io-queues="$nq" --queue-size="$qsize" \
	"${ref_poll[@]}")
nvme_mem=$(mem_line nvme-rdma "$before" "$(vm_slab_kib)")

# The jobs, run one after the other (stonewall) by one fio per device and
# round: fio takes seconds to start in the VM.
jobs=(
	--name=4k-randread-qd1 --rw=randread --bs=4k --iodepth=1
	--name=4k-randread-qd32 --stonewall --rw=randread --bs=4k --iodepth=32
	--name=128k-read-qd8 --stonewall --rw=read --bs=128k --iodepth=8
)
results=/tmp/vs_nvme_rdma
rm -rf "$results"
mkdir -p "$results"
vm_log "rblk $rblk_dev ($ctrl) vs nvme-rdma $ref_dev, $nq I/O queues x $qsize," \
	"fio io_uring ${runtime}s per job, $rounds rounds"
for ((r = 1; r <= rounds; r++)); do
	# ABBA: each side goes first as often as the other.
	sides=(rblk nvme-rdma)
	[ $((r % 2)) = 1 ] || sides=(nvme-rdma rblk)
	for side in "${sides[@]}"; do
		dev=$rblk_dev
		[ "$side" = rblk ] || dev=$ref_dev
		vm_fio "$results/$r.$side.json" --filename="$dev" --ioengine=io_uring --direct=1 "${fio_poll[@]}" \
			--time_based --runtime="$runtime" --ramp_time=1 --lat_percentiles=1 "${jobs[@]}"
		vm_log "round $r: $side done"
	done
done

vm_nvme_ref_disconnect "$nqn"
if [ "$own_target" = 1 ]; then
	"$RBLKCTL" disconnect "$ctrl" > /dev/null || vm_fail "rblkctl disconnect $ctrl failed"
fi

# The reads of each job: IOPS, p99 of the total latency, MiB/s; each run,
# then the table of the means.
python3 - "$results" <<'PY'
import collections, glob, json, os, sys
runs = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    rnd, side = os.path.basename(path).split(".")[:2]
    for j in json.load(open(path))["jobs"]:
        r = j["read"]
        v = (r["iops"], r["lat_ns"]["percentile"]["99.000000"] / 1000, r["bw_bytes"] / 2**20)
        runs[j["jobname"], side].append(v)
        print("  round %s %-10s %-17s %6.0f IOPS  p99 %7.0f us  %6.1f MiB/s" % ((rnd, side, j["jobname"]) + v))
def mean(job, side, i):
    v = [r[i] for r in runs[job, side]]
    return sum(v) / len(v)
rows = [("4k randread QD1", "4k-randread-qd1", "IOPS", 0),
        ("4k randread QD1", "4k-randread-qd1", "p99 lat us", 1),
        ("4k randread QD32", "4k-randread-qd32", "IOPS", 0),
        ("4k randread QD32", "4k-randread-qd32", "p99 lat us", 1),
        ("128k seq read QD8", "128k-read-qd8", "MiB/s", 2)]
print()
print("%-18s %-11s %10s %10s %15s" % ("job", "metric", "rblk", "nvme-rdma", "rblk/nvme-rdma"))
for title, job, metric, i in rows:
    a, b = mean(job, "rblk", i), mean(job, "nvme-rdma", i)
    fmt = "%10.1f %10.1f" if i == 2 else "%10.0f %10.0f"
    print(("%-18s %-11s " + fmt + " %15s") % (title, metric, a, b, "%.2f" % (a / b) if b else "-"))
PY
echo "(p99 is fio's total latency, submission to completion: lower is better)"
echo
echo "slab of one controller, $nq I/O queues x $qsize (the target's side of it included):"
if [ -n "$rblk_slab" ]; then
	# shellcheck disable=SC2086 # two numbers
	mem_line rblk $rblk_slab
fi
echo "$nvme_mem"
