#!/usr/bin/env bash
# Efficiency check: the same job through fio's io_uring engine and through
# `rblkctl bench`, alternating, and the IOPS ratio rblkctl/fio (the goal is
# >= 0.95). A measurement to read, not a timed test: it never fails on the
# ratio, only when a tool does.
#
# usage: tests/bench/bench_vs_fio.sh [TARGET]
#   TARGET  block device or file; default: a fresh file on tmpfs (/dev/shm),
#           removed afterwards. A device is only read unless RW says otherwise.
# environment (fio's names and units):
#   RW=randread BS=4k IODEPTH=32 NUMJOBS=1 RUNTIME=5 SIZE=1g ROUNDS=2
#   DIRECT=0|1  (block devices are always O_DIRECT)
#   BATCH=1     completions waited for at once: fio's iodepth_batch_complete_min,
#               rblkctl's --batch-complete
#   FIO_FIXED=1 fio also registers buffers and files, as rblkctl always does,
#               so both submit the same kind of I/O; 0 measures stock fio
#   RBLKCTL=path to rblkctl (default: build/tool/rblkctl)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RW=${RW:-randread} BS=${BS:-4k} IODEPTH=${IODEPTH:-32} NUMJOBS=${NUMJOBS:-1}
RUNTIME=${RUNTIME:-5} SIZE=${SIZE:-1g} ROUNDS=${ROUNDS:-2} DIRECT=${DIRECT:-0} BATCH=${BATCH:-1}
FIO_FIXED=${FIO_FIXED:-1}
RBLKCTL=${RBLKCTL:-$here/../../build/tool/rblkctl}

die() { echo "bench_vs_fio: $*" >&2; exit 1; }
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed to read the JSON reports"
[ -x "$RBLKCTL" ] || die "no rblkctl at $RBLKCTL (build it, or set RBLKCTL)"

target=${1:-}
if [ -z "$target" ]; then
	target=$(mktemp /dev/shm/rblk-bench-vs-fio.XXXXXX)
	trap 'rm -f "$target"' EXIT
fi

direct_fio=()
direct_rblk=()
if [ "$DIRECT" = 1 ]; then
	direct_fio=(--direct=1)
	direct_rblk=(--direct)
fi
fixed_fio=()
[ "$FIO_FIXED" = 1 ] && fixed_fio=(--fixedbufs=1 --registerfiles=1)

# Lay the file out once (fio writes it fully), so neither tool measures a
# sparse file or pays for allocation.
if [ ! -b "$target" ]; then
	fio --name=layout --filename="$target" --size="$SIZE" --rw=write --bs=1m \
		--ioengine=io_uring --iodepth=8 --output=/dev/null
fi

# "IOPS CPU-ns-per-I/O" from a JSON report on stdin (both tools use fio's
# field names). CPU is that of the submitting threads, summed over jobs: what
# fio counts (io_uring's io-wq workers are in neither figure). It is the
# steadier number on a busy machine: it does not drop when the run is preempted.
summary() {
	python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
iops = sum(j[d]["iops"] for j in jobs for d in ("read", "write"))
cpu_ns = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] * 1e6 for j in jobs)
print(int(iops), int(cpu_ns / max(ios, 1)))'
}

run_fio() {
	# norandommap: uniform offsets with repeats, as rblkctl draws them.
	fio --name=bench --filename="$target" --ioengine=io_uring --rw="$RW" --bs="$BS" \
		--iodepth="$IODEPTH" --iodepth_batch_complete_min="$BATCH" --numjobs="$NUMJOBS" \
		--runtime="$RUNTIME" --time_based \
		--size="$SIZE" --norandommap --randrepeat=0 --thread \
		"${direct_fio[@]}" "${fixed_fio[@]}" --output-format=json |
		summary
}

run_rblk() {
	"$RBLKCTL" bench --filename "$target" --rw "$RW" --bs "$BS" --iodepth "$IODEPTH" \
		--batch-complete "$BATCH" \
		--numjobs "$NUMJOBS" --runtime "$RUNTIME" --size "$SIZE" "${direct_rblk[@]}" --json |
		summary
}

echo "job: $RW bs=$BS iodepth=$IODEPTH batch=$BATCH numjobs=$NUMJOBS ${RUNTIME}s on $target" \
	"(size $SIZE, direct=$DIRECT, fio fixedbufs/registerfiles=$FIO_FIXED)"
fio_iops=0 fio_cpu=0 rblk_iops=0 rblk_cpu=0
for round in $(seq 1 "$ROUNDS"); do
	read -r fr fc < <(run_fio)
	read -r ri rc < <(run_rblk)
	fio_iops=$((fio_iops + fr)) fio_cpu=$((fio_cpu + fc))
	rblk_iops=$((rblk_iops + ri)) rblk_cpu=$((rblk_cpu + rc))
	echo "round $round: fio $fr IOPS (${fc} ns CPU/IO), rblkctl $ri IOPS (${rc} ns CPU/IO)"
done
fio_iops=$((fio_iops / ROUNDS)) fio_cpu=$((fio_cpu / ROUNDS))
rblk_iops=$((rblk_iops / ROUNDS)) rblk_cpu=$((rblk_cpu / ROUNDS))
echo "fio:     $fio_iops IOPS, $fio_cpu ns CPU per I/O (mean of $ROUNDS)"
echo "rblkctl: $rblk_iops IOPS, $rblk_cpu ns CPU per I/O (mean of $ROUNDS)"
python3 -c "print('ratio rblkctl/fio: IOPS %.3f (goal >= 0.95), CPU per I/O %.3f (lower is better)'
      % ($rblk_iops / max($fio_iops, 1), $rblk_cpu / max($fio_cpu, 1)))"
