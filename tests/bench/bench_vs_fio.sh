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
#   FIO_FIXED=1 fio also registers buffers and files, as rblkctl always does,
#               so both submit the same kind of I/O; 0 measures stock fio
#   RBLKCTL=path to rblkctl (default: build/tool/rblkctl)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RW=${RW:-randread} BS=${BS:-4k} IODEPTH=${IODEPTH:-32} NUMJOBS=${NUMJOBS:-1}
RUNTIME=${RUNTIME:-5} SIZE=${SIZE:-1g} ROUNDS=${ROUNDS:-2} DIRECT=${DIRECT:-0}
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

# Sum of read and write IOPS in a report; $1 is a python expression for the job.
iops() {
	python3 -c 'import json,sys; j=json.load(sys.stdin)'"$1"'; print(int(j["read"]["iops"] + j["write"]["iops"]))'
}

run_fio() {
	# norandommap: uniform offsets with repeats, as rblkctl draws them.
	fio --name=bench --filename="$target" --ioengine=io_uring --rw="$RW" --bs="$BS" \
		--iodepth="$IODEPTH" --numjobs="$NUMJOBS" --runtime="$RUNTIME" --time_based \
		--size="$SIZE" --norandommap --randrepeat=0 --group_reporting \
		"${direct_fio[@]}" "${fixed_fio[@]}" --output-format=json |
		iops '["jobs"][0]'
}

run_rblk() {
	"$RBLKCTL" bench --filename "$target" --rw "$RW" --bs "$BS" --iodepth "$IODEPTH" \
		--numjobs "$NUMJOBS" --runtime "$RUNTIME" --size "$SIZE" "${direct_rblk[@]}" --json |
		iops '["aggregate"]'
}

echo "job: $RW bs=$BS iodepth=$IODEPTH numjobs=$NUMJOBS ${RUNTIME}s on $target" \
	"(size $SIZE, direct=$DIRECT, fio fixedbufs/registerfiles=$FIO_FIXED)"
fio_sum=0
rblk_sum=0
for round in $(seq 1 "$ROUNDS"); do
	f=$(run_fio)
	r=$(run_rblk)
	fio_sum=$((fio_sum + f))
	rblk_sum=$((rblk_sum + r))
	echo "round $round: fio $f IOPS, rblkctl $r IOPS"
done
fio_mean=$((fio_sum / ROUNDS))
rblk_mean=$((rblk_sum / ROUNDS))
echo "fio:     $fio_mean IOPS (mean of $ROUNDS)"
echo "rblkctl: $rblk_mean IOPS (mean of $ROUNDS)"
python3 -c "print('ratio rblkctl/fio: %.3f (goal >= 0.95)' % ($rblk_mean / max($fio_mean, 1)))"
